-- CreateTable
CREATE TABLE "Brand" (
    "id" TEXT NOT NULL DEFAULT 'brand',
    "name" TEXT NOT NULL DEFAULT '',
    "accentColor" TEXT NOT NULL DEFAULT '#2356d6',
    "logo" BYTEA,
    "logoType" TEXT,
    "logoHash" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Brand_pkey" PRIMARY KEY ("id")
);

