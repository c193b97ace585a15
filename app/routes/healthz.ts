import { pingDatabase } from "~/storage/transactions.server";
import { log } from "~/utils/log.server";

// 200 when the database answers; 503 otherwise (for load balancers and monitors).
export async function loader() {
  try {
    await pingDatabase();
    return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    log.error("healthz: database check failed", error);
    return Response.json({ status: "unavailable" }, { status: 503, headers: { "Cache-Control": "no-store" } });
  }
}
