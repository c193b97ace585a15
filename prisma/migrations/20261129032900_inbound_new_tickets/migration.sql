-- Tickets by email (decision 063): a ticket opened by an email flagged as spam by the
-- provider's or the receiving server's verdict. Added in place: instant on any table size.
ALTER TABLE "Ticket" ADD COLUMN "spam" BOOLEAN NOT NULL DEFAULT false;
