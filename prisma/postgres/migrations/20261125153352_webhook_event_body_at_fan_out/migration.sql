-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "leadId" TEXT,
ALTER COLUMN "payload" DROP NOT NULL;

