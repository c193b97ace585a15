-- CreateTable
CREATE TABLE "SecurityPolicy" (
    "id" TEXT NOT NULL DEFAULT 'security',
    "requireTwoFactor" BOOLEAN NOT NULL DEFAULT false,
    "tokensWithoutTwoFactor" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SecurityPolicy_pkey" PRIMARY KEY ("id")
);

