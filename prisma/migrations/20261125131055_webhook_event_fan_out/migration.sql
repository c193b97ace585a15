-- DropIndex
DROP INDEX "WebhookEvent_createdAt_idx";

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN "fanOutAt" DATETIME;
ALTER TABLE "WebhookEvent" ADD COLUMN "fanOutTo" TEXT;

-- CreateIndex
CREATE INDEX "WebhookEvent_fanOutAt_idx" ON "WebhookEvent"("fanOutAt");

