-- DropIndex
DROP INDEX "Lead_formId_utmCampaign_createdAt_idx";

-- DropIndex
DROP INDEX "Lead_utmSource_createdAt_idx";

-- CreateIndex
CREATE INDEX "Lead_formId_utmCampaign_isSpam_createdAt_id_idx" ON "Lead"("formId", "utmCampaign", "isSpam", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Lead_isSpam_utmSource_createdAt_id_idx" ON "Lead"("isSpam", "utmSource", "createdAt", "id");

