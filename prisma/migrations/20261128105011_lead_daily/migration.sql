-- CreateTable
CREATE TABLE "LeadDaily" (
    "formId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "utmSource" TEXT NOT NULL DEFAULT '',
    "utmCampaign" TEXT NOT NULL DEFAULT '',
    "referrerHost" TEXT NOT NULL DEFAULT '',
    "leads" INTEGER NOT NULL DEFAULT 0,
    "shard" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "shard"),
    CONSTRAINT "LeadDaily_formId_fkey" FOREIGN KEY ("formId") REFERENCES "Form" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);


-- Backfill: the leads stored so far (createdAt is ISO 8601 text in UTC: its day is the prefix).
INSERT INTO "LeadDaily" ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "leads")
SELECT "formId", substr("createdAt", 1, 10), COALESCE("utmSource", ''), COALESCE("utmCampaign", ''),
       COALESCE("referrerHost", ''), COUNT(*)
FROM "Lead" WHERE "isSpam" = 0
GROUP BY 1, 2, 3, 4, 5;
