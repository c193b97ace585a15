-- CreateTable
CREATE TABLE "VisitorDraft" (
    "key" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "VisitorDraft_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "SettledAttempt" (
    "key" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SettledAttempt_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "VisitorDraft_expiresAt_idx" ON "VisitorDraft"("expiresAt");

-- CreateIndex
CREATE INDEX "SettledAttempt_expiresAt_idx" ON "SettledAttempt"("expiresAt");

