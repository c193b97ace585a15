-- AlterTable
ALTER TABLE "OutboxEmail" ADD COLUMN     "replyTo" TEXT;

-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "failingSince" TIMESTAMP(3),
ADD COLUMN     "lastSuccessAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "NotificationDigest" (
    "id" TEXT NOT NULL,
    "formId" TEXT NOT NULL,
    "periodEnd" TIMESTAMP(3) NOT NULL,
    "leadCount" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "NotificationDigest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "NotificationDigest_formId_periodEnd_key" ON "NotificationDigest"("formId", "periodEnd");

-- AddForeignKey
ALTER TABLE "NotificationDigest" ADD CONSTRAINT "NotificationDigest_formId_fkey" FOREIGN KEY ("formId") REFERENCES "Form"("id") ON DELETE CASCADE ON UPDATE CASCADE;

