-- The IMAP intake (decision 070): the mailbox's lease and checkpoint, and the messages it
-- could not file.
CREATE TABLE "ImapMailbox" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT,
    "leaseExpiresAt" DATETIME,
    "uidValidity" BIGINT,
    "startUid" BIGINT NOT NULL DEFAULT 0,
    "lastUid" BIGINT NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL DEFAULT 'not connected',
    "stateDetail" TEXT,
    "stateAt" DATETIME,
    "lastFiledAt" DATETIME,
    "lastFiledTicket" TEXT,
    "lastFiledSubject" TEXT,
    "filedCount" INTEGER NOT NULL DEFAULT 0,
    "failedCount" INTEGER NOT NULL DEFAULT 0,
    "fetchRequestedAt" DATETIME,
    "lastPassAt" DATETIME
);

CREATE TABLE "ImapFailure" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "mailboxId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "uidValidity" BIGINT NOT NULL,
    "uid" BIGINT NOT NULL,
    "messageId" TEXT,
    "fromEmail" TEXT,
    "subject" TEXT,
    "size" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ImapFailure_mailboxId_fkey" FOREIGN KEY ("mailboxId") REFERENCES "ImapMailbox" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE UNIQUE INDEX "ImapFailure_mailboxId_key_key" ON "ImapFailure"("mailboxId", "key");
CREATE INDEX "ImapFailure_mailboxId_uidValidity_uid_idx" ON "ImapFailure"("mailboxId", "uidValidity", "uid");
CREATE INDEX "ImapFailure_mailboxId_createdAt_idx" ON "ImapFailure"("mailboxId", "createdAt");
