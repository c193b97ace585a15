-- Owners may require single sign-on for everybody but owners (decision 062).
ALTER TABLE "SecurityPolicy" ADD COLUMN "requireSso" BOOLEAN NOT NULL DEFAULT false;
