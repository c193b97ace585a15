-- Double opt-in (decision 067). Added in place rather than by copying the table (what the
-- generated migration did): instant on a table of millions of leads.
ALTER TABLE "Lead" ADD COLUMN "awaitingConfirmation" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Lead" ADD COLUMN "confirmedAt" DATETIME;

-- A partial index (not in schema.prisma, which cannot declare one): only the leads awaiting
-- confirmation are in it, so the inserts of every other lead do not maintain it. Retention's
-- expiry reads it (app/storage/retention-store.server.ts, whose WHERE repeats the predicate).
CREATE INDEX "Lead_awaitingConfirmation_createdAt_idx" ON "Lead"("createdAt") WHERE "awaitingConfirmation";
