-- Files uploaded with leads (decision 064): metadata, and the bytes in 256 KiB chunks.
-- CreateTable
CREATE TABLE "LeadFile" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "leadId" TEXT,
    "field" TEXT NOT NULL,
    "filename" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "LeadFile_leadId_fkey" FOREIGN KEY ("leadId") REFERENCES "Lead" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "LeadFileChunk" (
    "fileId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BLOB NOT NULL,

    PRIMARY KEY ("fileId", "seq"),
    CONSTRAINT "LeadFileChunk_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "LeadFile" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "LeadFile_leadId_idx" ON "LeadFile"("leadId");

-- CreateIndex
CREATE INDEX "LeadFile_createdAt_idx" ON "LeadFile"("createdAt");
