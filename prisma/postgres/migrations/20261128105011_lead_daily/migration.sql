-- CreateTable
CREATE TABLE "LeadDaily" (
    "formId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "utmSource" TEXT NOT NULL DEFAULT '',
    "utmCampaign" TEXT NOT NULL DEFAULT '',
    "referrerHost" TEXT NOT NULL DEFAULT '',
    "leads" INTEGER NOT NULL DEFAULT 0,
    "shard" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "LeadDaily_pkey" PRIMARY KEY ("formId","day","utmSource","utmCampaign","referrerHost","shard")
);

-- AddForeignKey
ALTER TABLE "LeadDaily" ADD CONSTRAINT "LeadDaily_formId_fkey" FOREIGN KEY ("formId") REFERENCES "Form"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Backfill: the leads stored so far (createdAt is a timestamp holding UTC).
INSERT INTO "LeadDaily" ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "leads")
SELECT "formId", to_char("createdAt", 'YYYY-MM-DD'), COALESCE("utmSource", ''), COALESCE("utmCampaign", ''),
       COALESCE("referrerHost", ''), COUNT(*)
FROM "Lead" WHERE "isSpam" = false
GROUP BY 1, 2, 3, 4, 5;
