-- AlterTable
ALTER TABLE "OutboxEmail" ADD COLUMN "listUnsubscribe" TEXT;

-- CreateTable
CREATE TABLE "AutoresponderQuota" (
    "email" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("email", "day")
);

-- CreateTable
CREATE TABLE "EmailSuppression" (
    "email" TEXT NOT NULL PRIMARY KEY,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

