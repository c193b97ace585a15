-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "passwordAt" TIMESTAMP(3);

