-- AlterTable
ALTER TABLE "Lead" ADD COLUMN     "awaitingConfirmation" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "confirmedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Lead_awaitingConfirmation_createdAt_idx" ON "Lead"("awaitingConfirmation", "createdAt");

