-- CreateTable
CREATE TABLE "VisitorDraft" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "scope" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "SettledAttempt" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "VisitorDraft_expiresAt_idx" ON "VisitorDraft"("expiresAt");

-- CreateIndex
CREATE INDEX "SettledAttempt_expiresAt_idx" ON "SettledAttempt"("expiresAt");

