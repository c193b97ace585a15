-- AlterTable
ALTER TABLE "Session" ADD COLUMN "passwordAt" DATETIME;

