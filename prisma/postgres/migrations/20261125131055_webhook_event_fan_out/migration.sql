-- DropIndex
DROP INDEX "WebhookEvent_createdAt_idx";

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "fanOutAt" TIMESTAMP(3),
ADD COLUMN     "fanOutTo" TEXT;

-- CreateIndex
CREATE INDEX "WebhookEvent_fanOutAt_idx" ON "WebhookEvent"("fanOutAt");

