-- AlterTable
ALTER TABLE "OutboxEmail" ADD COLUMN     "listUnsubscribe" TEXT;

-- CreateTable
CREATE TABLE "AutoresponderQuota" (
    "email" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "AutoresponderQuota_pkey" PRIMARY KEY ("email","day")
);

-- CreateTable
CREATE TABLE "EmailSuppression" (
    "email" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EmailSuppression_pkey" PRIMARY KEY ("email")
);

