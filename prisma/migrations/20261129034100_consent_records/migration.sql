-- Consent records (decision 065): what a visitor agreed to by ticking a consent field.
-- CreateTable
CREATE TABLE "ConsentRecord" (
    "leadId" TEXT NOT NULL,
    "fieldKey" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "acceptedAt" DATETIME NOT NULL,
    "formVersion" INTEGER NOT NULL,
    "ipHash" TEXT,

    PRIMARY KEY ("leadId", "fieldKey"),
    CONSTRAINT "ConsentRecord_leadId_fkey" FOREIGN KEY ("leadId") REFERENCES "Lead" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
