-- Erasing a person's data and per-form retention (decision 069) drop the webhook events of the
-- leads they delete, found by leadId.
CREATE INDEX "WebhookEvent_leadId_idx" ON "WebhookEvent"("leadId");
