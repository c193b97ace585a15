-- CreateTable
CREATE TABLE "FormFunnel" (
    "formId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "utmSource" TEXT NOT NULL DEFAULT '',
    "utmCampaign" TEXT NOT NULL DEFAULT '',
    "referrerHost" TEXT NOT NULL DEFAULT '',
    "stage" INTEGER NOT NULL,
    "visitors" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "stage"),
    CONSTRAINT "FormFunnel_formId_fkey" FOREIGN KEY ("formId") REFERENCES "Form" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

