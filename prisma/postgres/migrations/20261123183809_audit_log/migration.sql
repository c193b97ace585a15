-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actorId" TEXT,
    "actorEmail" TEXT,
    "target" TEXT,
    "ipHash" TEXT,
    "details" TEXT NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuditEntry_createdAt_id_idx" ON "AuditEntry"("createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditEntry_action_createdAt_id_idx" ON "AuditEntry"("action", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditEntry_actorId_createdAt_id_idx" ON "AuditEntry"("actorId", "createdAt", "id");

