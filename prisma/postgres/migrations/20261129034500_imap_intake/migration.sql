-- The IMAP intake (decision 070): the mailbox's lease and checkpoint, and the messages it
-- could not file.
CREATE TABLE "ImapMailbox" (
    "id" TEXT NOT NULL,
    "holder" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "uidValidity" BIGINT,
    "startUid" BIGINT NOT NULL DEFAULT 0,
    "lastUid" BIGINT NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL DEFAULT 'not connected',
    "stateDetail" TEXT,
    "stateAt" TIMESTAMP(3),
    "lastFiledAt" TIMESTAMP(3),
    "lastFiledTicket" TEXT,
    "lastFiledSubject" TEXT,
    "filedCount" INTEGER NOT NULL DEFAULT 0,
    "failedCount" INTEGER NOT NULL DEFAULT 0,
    "fetchRequestedAt" TIMESTAMP(3),
    "lastPassAt" TIMESTAMP(3),

    CONSTRAINT "ImapMailbox_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "ImapFailure" (
    "id" TEXT NOT NULL,
    "mailboxId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "uidValidity" BIGINT NOT NULL,
    "uid" BIGINT NOT NULL,
    "messageId" TEXT,
    "fromEmail" TEXT,
    "subject" TEXT,
    "size" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImapFailure_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "ImapFailure_mailboxId_key_key" ON "ImapFailure"("mailboxId", "key");
CREATE INDEX "ImapFailure_mailboxId_uidValidity_uid_idx" ON "ImapFailure"("mailboxId", "uidValidity", "uid");
CREATE INDEX "ImapFailure_mailboxId_createdAt_idx" ON "ImapFailure"("mailboxId", "createdAt");

ALTER TABLE "ImapFailure" ADD CONSTRAINT "ImapFailure_mailboxId_fkey" FOREIGN KEY ("mailboxId") REFERENCES "ImapMailbox"("id") ON DELETE CASCADE ON UPDATE CASCADE;
