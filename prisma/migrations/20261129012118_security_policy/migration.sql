-- CreateTable
CREATE TABLE "SecurityPolicy" (
    "id" TEXT NOT NULL PRIMARY KEY DEFAULT 'security',
    "requireTwoFactor" BOOLEAN NOT NULL DEFAULT false,
    "tokensWithoutTwoFactor" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" DATETIME NOT NULL
);

