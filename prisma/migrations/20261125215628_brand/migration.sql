-- CreateTable
CREATE TABLE "Brand" (
    "id" TEXT NOT NULL PRIMARY KEY DEFAULT 'brand',
    "name" TEXT NOT NULL DEFAULT '',
    "accentColor" TEXT NOT NULL DEFAULT '#2356d6',
    "logo" BLOB,
    "logoType" TEXT,
    "logoHash" TEXT,
    "updatedAt" DATETIME NOT NULL
);

