-- CreateTable
CREATE TABLE "PartialLead" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "formId" TEXT NOT NULL,
    "schemaVersion" INTEGER NOT NULL,
    "data" JSONB NOT NULL,
    "email" TEXT NOT NULL,
    "utmSource" TEXT,
    "utmMedium" TEXT,
    "utmCampaign" TEXT,
    "utmTerm" TEXT,
    "utmContent" TEXT,
    "referrerUrl" TEXT,
    "referrerHost" TEXT,
    "landingPageUrl" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "PartialLead_formId_fkey" FOREIGN KEY ("formId") REFERENCES "Form" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "PartialLead_formId_createdAt_idx" ON "PartialLead"("formId", "createdAt");

-- CreateIndex
CREATE INDEX "PartialLead_updatedAt_idx" ON "PartialLead"("updatedAt");

