-- Leads stored before the email column: the value of their form's first email field that
-- has one, lower-cased (as app/models/form-schema.ts leadEmail does at submit).
UPDATE "Lead" l SET "email" = (
  SELECT lower(l."data" ->> (f.elem ->> 'key'))
  FROM "Form" fo, jsonb_array_elements(fo."fields") WITH ORDINALITY AS f(elem, n)
  WHERE fo."id" = l."formId"
    AND f.elem ->> 'type' = 'email'
    AND jsonb_typeof(l."data" -> (f.elem ->> 'key')) = 'string'
    AND l."data" ->> (f.elem ->> 'key') <> ''
  ORDER BY f.n
  LIMIT 1
)
WHERE l."email" IS NULL;
