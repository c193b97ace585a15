// Times in the dashboard, shown in the staff user's time zone (set on /account; UTC until
// then). The zone comes from the dashboard layout's loader, so the server and the browser
// render the same text.
import { useRouteLoaderData } from "@remix-run/react";

type DashboardData = { timeZone?: string | null } | undefined;

export function useTimeZone(): string {
  const data = useRouteLoaderData("routes/_dashboard") as DashboardData;
  return data?.timeZone || "UTC";
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** "2026-11-22 14:05 CET": sortable digits, then the zone's short name. */
export function formatInZone(iso: string, timeZone: string, seconds = false): string {
  const key = `${timeZone}|${seconds}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      ...(seconds && { second: "2-digit" }),
      hourCycle: "h23",
      timeZoneName: "short",
    });
    formats.set(key, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(iso)).map((part) => [part.type, part.value]));
  const time = `${parts.hour}:${parts.minute}${seconds ? `:${parts.second}` : ""}`;
  return `${parts.year}-${parts.month}-${parts.day} ${time} ${parts.timeZoneName}`;
}

/** The one way the dashboard shows a time: `iso` (or a Date) in the staff user's zone. */
export function LocalTime({ iso, seconds = false }: { iso: string | Date; seconds?: boolean }) {
  const timeZone = useTimeZone();
  const text = typeof iso === "string" ? iso : iso.toISOString();
  return <time dateTime={text}>{formatInZone(text, timeZone, seconds)}</time>;
}
