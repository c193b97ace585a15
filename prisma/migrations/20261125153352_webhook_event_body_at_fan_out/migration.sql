-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_WebhookEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "type" TEXT NOT NULL,
    "payload" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "fanOutTo" TEXT,
    "fanOutAt" DATETIME,
    "leadId" TEXT
);
INSERT INTO "new_WebhookEvent" ("createdAt", "fanOutAt", "fanOutTo", "id", "payload", "type") SELECT "createdAt", "fanOutAt", "fanOutTo", "id", "payload", "type" FROM "WebhookEvent";
DROP TABLE "WebhookEvent";
ALTER TABLE "new_WebhookEvent" RENAME TO "WebhookEvent";
CREATE INDEX "WebhookEvent_fanOutAt_idx" ON "WebhookEvent"("fanOutAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

