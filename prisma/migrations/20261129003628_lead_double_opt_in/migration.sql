-- Double opt-in (decision 067). Added in place rather than by copying the table (what the
-- generated migration did): instant on a table of millions of leads.
ALTER TABLE "Lead" ADD COLUMN "awaitingConfirmation" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Lead" ADD COLUMN "confirmedAt" DATETIME;

-- CreateIndex
CREATE INDEX "Lead_awaitingConfirmation_createdAt_idx" ON "Lead"("awaitingConfirmation", "createdAt");
