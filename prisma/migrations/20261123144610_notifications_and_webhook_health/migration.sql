-- AlterTable
ALTER TABLE "OutboxEmail" ADD COLUMN "replyTo" TEXT;

-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN "failingSince" DATETIME;
ALTER TABLE "WebhookEndpoint" ADD COLUMN "lastSuccessAt" DATETIME;

-- CreateTable
CREATE TABLE "NotificationDigest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "formId" TEXT NOT NULL,
    "periodEnd" DATETIME NOT NULL,
    "leadCount" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "NotificationDigest_formId_fkey" FOREIGN KEY ("formId") REFERENCES "Form" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "NotificationDigest_formId_periodEnd_key" ON "NotificationDigest"("formId", "periodEnd");

