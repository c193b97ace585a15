-- The people of the leads and tickets stored before people existed (decision 071): one per
-- distinct address, its id 'p' || the id of its first lead or ticket (as a new person's is),
-- first seen then. tests/integration/people-backfill.test.ts runs this on 100,000 leads.
INSERT INTO "Person" ("id", "email", "name", "firstSeenAt")
SELECT 'p' || "id", "email", NULL, "createdAt" FROM (
  SELECT "id", "email", "createdAt",
    ROW_NUMBER() OVER (PARTITION BY "email" ORDER BY "createdAt", "id") AS "rank"
  FROM (
    SELECT "id", "email", "createdAt" FROM "Lead" WHERE "email" IS NOT NULL AND "email" <> ''
    UNION ALL
    SELECT "id", lower(trim("email")), "createdAt" FROM "Ticket" WHERE trim("email") <> ''
  ) AS "seen"
) AS "ranked"
WHERE "rank" = 1;

INSERT INTO "PersonAddress" ("email", "personId") SELECT "email", "id" FROM "Person";

-- Named by their first support request that gives a name, else their first lead's `name` field.
UPDATE "Person" SET "name" = COALESCE(
  (SELECT "name" FROM "Ticket" t WHERE t."email" = "Person"."email" AND t."name" <> ''
    ORDER BY t."createdAt" LIMIT 1),
  (SELECT json_extract(l."data", '$.name') FROM "Lead" l
    WHERE l."email" = "Person"."email" AND json_type(l."data", '$.name') = 'text'
    ORDER BY l."createdAt" LIMIT 1));
