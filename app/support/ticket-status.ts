// The statuses of a support request, shared by the server and the dashboard's components
// (which cannot import support.server.ts).
export const TICKET_STATUSES = ["open", "pending", "closed"] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
