-- Leads stored before the email column: the value of their form's first email field that
-- has one, lower-cased (as app/models/form-schema.ts leadEmail does at submit).
UPDATE "Lead" SET "email" = (
  SELECT lower(json_extract("Lead"."data", '$."' || json_extract(f."value", '$.key') || '"'))
  FROM "Form" fo, json_each(fo."fields") f
  WHERE fo."id" = "Lead"."formId"
    AND json_extract(f."value", '$.type') = 'email'
    AND json_type("Lead"."data", '$."' || json_extract(f."value", '$.key') || '"') = 'text'
    AND json_extract("Lead"."data", '$."' || json_extract(f."value", '$.key') || '"') <> ''
  ORDER BY CAST(f."key" AS INTEGER)
  LIMIT 1
)
WHERE "email" IS NULL;
