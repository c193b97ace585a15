-- Consent records (decision 065): what a visitor agreed to by ticking a consent field.
-- CreateTable
CREATE TABLE "ConsentRecord" (
    "leadId" TEXT NOT NULL,
    "fieldKey" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "acceptedAt" TIMESTAMP(3) NOT NULL,
    "formVersion" INTEGER NOT NULL,
    "ipHash" TEXT,

    CONSTRAINT "ConsentRecord_pkey" PRIMARY KEY ("leadId","fieldKey")
);

-- AddForeignKey
ALTER TABLE "ConsentRecord" ADD CONSTRAINT "ConsentRecord_leadId_fkey" FOREIGN KEY ("leadId") REFERENCES "Lead"("id") ON DELETE CASCADE ON UPDATE CASCADE;
