-- CreateTable
CREATE TABLE "Person" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "firstSeenAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PersonAddress" (
    "email" TEXT NOT NULL PRIMARY KEY,
    "personId" TEXT NOT NULL,
    CONSTRAINT "PersonAddress_personId_fkey" FOREIGN KEY ("personId") REFERENCES "Person" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Person_email_key" ON "Person"("email");

-- CreateIndex
CREATE INDEX "Person_firstSeenAt_id_idx" ON "Person"("firstSeenAt", "id");

-- CreateIndex
CREATE INDEX "PersonAddress_personId_idx" ON "PersonAddress"("personId");

