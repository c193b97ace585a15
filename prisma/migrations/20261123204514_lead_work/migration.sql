-- AlterTable
ALTER TABLE "User" ADD COLUMN "timeZone" TEXT;

-- CreateTable
CREATE TABLE "LeadTag" (
    "leadId" TEXT NOT NULL,
    "tag" TEXT NOT NULL,

    PRIMARY KEY ("leadId", "tag"),
    CONSTRAINT "LeadTag_leadId_fkey" FOREIGN KEY ("leadId") REFERENCES "Lead" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "LeadActivity" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "leadId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "body" TEXT,
    "fromValue" TEXT,
    "toValue" TEXT,
    "actorId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "LeadActivity_leadId_fkey" FOREIGN KEY ("leadId") REFERENCES "Lead" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "LeadActivity_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "FormView" (
    "formId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "utmSource" TEXT NOT NULL DEFAULT '',
    "utmCampaign" TEXT NOT NULL DEFAULT '',
    "referrerHost" TEXT NOT NULL DEFAULT '',
    "views" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("formId", "day", "utmSource", "utmCampaign", "referrerHost"),
    CONSTRAINT "FormView_formId_fkey" FOREIGN KEY ("formId") REFERENCES "Form" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Lead" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "formId" TEXT NOT NULL,
    "schemaVersion" INTEGER NOT NULL,
    "data" JSONB NOT NULL,
    "searchText" TEXT NOT NULL DEFAULT '',
    "utmSource" TEXT,
    "utmMedium" TEXT,
    "utmCampaign" TEXT,
    "utmTerm" TEXT,
    "utmContent" TEXT,
    "referrerUrl" TEXT,
    "referrerHost" TEXT,
    "landingPageUrl" TEXT,
    "userAgent" TEXT,
    "ipHash" TEXT,
    "isSpam" BOOLEAN NOT NULL DEFAULT false,
    "idempotencyKey" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" TEXT NOT NULL DEFAULT 'new',
    "ownerId" TEXT,
    "email" TEXT,
    CONSTRAINT "Lead_formId_fkey" FOREIGN KEY ("formId") REFERENCES "Form" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Lead_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Lead" ("createdAt", "data", "formId", "id", "idempotencyKey", "ipHash", "isSpam", "landingPageUrl", "referrerHost", "referrerUrl", "schemaVersion", "searchText", "userAgent", "utmCampaign", "utmContent", "utmMedium", "utmSource", "utmTerm") SELECT "createdAt", "data", "formId", "id", "idempotencyKey", "ipHash", "isSpam", "landingPageUrl", "referrerHost", "referrerUrl", "schemaVersion", "searchText", "userAgent", "utmCampaign", "utmContent", "utmMedium", "utmSource", "utmTerm" FROM "Lead";
DROP TABLE "Lead";
ALTER TABLE "new_Lead" RENAME TO "Lead";
CREATE INDEX "Lead_isSpam_createdAt_id_idx" ON "Lead"("isSpam", "createdAt", "id");
CREATE INDEX "Lead_formId_isSpam_createdAt_id_idx" ON "Lead"("formId", "isSpam", "createdAt", "id");
CREATE INDEX "Lead_formId_utmCampaign_isSpam_createdAt_id_idx" ON "Lead"("formId", "utmCampaign", "isSpam", "createdAt", "id");
CREATE INDEX "Lead_isSpam_utmSource_createdAt_id_idx" ON "Lead"("isSpam", "utmSource", "createdAt", "id");
CREATE INDEX "Lead_email_idx" ON "Lead"("email");
CREATE INDEX "Lead_ownerId_createdAt_id_idx" ON "Lead"("ownerId", "createdAt", "id");
CREATE UNIQUE INDEX "Lead_formId_idempotencyKey_key" ON "Lead"("formId", "idempotencyKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "LeadTag_tag_leadId_idx" ON "LeadTag"("tag", "leadId");

-- CreateIndex
CREATE INDEX "LeadActivity_leadId_createdAt_idx" ON "LeadActivity"("leadId", "createdAt");

-- CreateIndex
CREATE INDEX "Ticket_email_idx" ON "Ticket"("email");

