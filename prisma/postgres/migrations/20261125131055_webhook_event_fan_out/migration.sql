-- DropIndex
DROP INDEX "WebhookEvent_createdAt_idx";

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "fanOutTo" TEXT;

-- CreateIndex
CREATE INDEX "WebhookEvent_fanOutTo_idx" ON "WebhookEvent"("fanOutTo");

