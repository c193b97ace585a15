-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Ticket" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "number" INTEGER NOT NULL,
    "reference" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "subject" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "threadMessageId" TEXT NOT NULL,
    "lastMessageAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "assigneeId" TEXT,
    "spam" BOOLEAN NOT NULL DEFAULT false,
    "mergedIntoId" TEXT,
    "mergedAt" DATETIME,
    CONSTRAINT "Ticket_assigneeId_fkey" FOREIGN KEY ("assigneeId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Ticket_mergedIntoId_fkey" FOREIGN KEY ("mergedIntoId") REFERENCES "Ticket" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Ticket" ("assigneeId", "createdAt", "email", "id", "lastMessageAt", "name", "number", "reference", "spam", "status", "subject", "threadMessageId", "updatedAt") SELECT "assigneeId", "createdAt", "email", "id", "lastMessageAt", "name", "number", "reference", "spam", "status", "subject", "threadMessageId", "updatedAt" FROM "Ticket";
DROP TABLE "Ticket";
ALTER TABLE "new_Ticket" RENAME TO "Ticket";
CREATE UNIQUE INDEX "Ticket_number_key" ON "Ticket"("number");
CREATE UNIQUE INDEX "Ticket_reference_key" ON "Ticket"("reference");
CREATE INDEX "Ticket_status_lastMessageAt_id_idx" ON "Ticket"("status", "lastMessageAt", "id");
CREATE INDEX "Ticket_lastMessageAt_id_idx" ON "Ticket"("lastMessageAt", "id");
CREATE INDEX "Ticket_assigneeId_lastMessageAt_id_idx" ON "Ticket"("assigneeId", "lastMessageAt", "id");
CREATE INDEX "Ticket_email_idx" ON "Ticket"("email");
CREATE INDEX "Ticket_mergedIntoId_idx" ON "Ticket"("mergedIntoId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

