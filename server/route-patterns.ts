// The route pattern a path reaches (`/api/forms/:id`), ranked as Remix ranks its routes: the
// request histogram's label (http-metrics.ts) and the request log line's route
// (request-log.ts), so that neither holds an id, a token or a path as sent.
import type { ServerBuild } from "@remix-run/node";

type RoutePatterns = { patternOf: (pathname: string) => string | null };

/** A route's full path, as segments ("api", "forms", ":id"), its optional segments both ways. */
function pathsOf(build: ServerBuild, route: ServerBuild["routes"][string]): string[][] {
  const segments: string[] = [];
  for (let current: typeof route | undefined = route; current; current = build.routes[current.parentId ?? ""]) {
    if (current.path) segments.unshift(...current.path.split("/").filter(Boolean));
  }
  let paths: string[][] = [[]];
  for (const segment of segments) {
    const optional = segment.endsWith("?");
    const name = optional ? segment.slice(0, -1) : segment;
    paths = paths.flatMap((path) => (optional ? [path, [...path, name]] : [[...path, name]]));
  }
  return paths;
}

/** React Router's ranking (computeScore): static segments outrank params, params a splat. */
function scoreOf(segments: string[]): number {
  let score = segments.length + (segments.includes("*") ? -2 : 0);
  for (const segment of segments) {
    if (segment !== "*") score += segment.startsWith(":") ? 3 : 10;
  }
  return score;
}

function regexOf(segments: string[]): RegExp {
  let source = "^";
  for (const segment of segments) {
    if (segment === "*") source += "(?:/.*)?";
    else if (segment.startsWith(":")) source += "/[^/]+";
    else source += `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
  }
  // Remix matches without regard to case and takes a trailing slash.
  return new RegExp(`${source}/*$`, "i");
}

/**
 * The pattern a path reaches among a build's routes, ranked as Remix ranks them: a static
 * path (the submit endpoint) is one Map lookup; one with params is tried pattern by pattern.
 */
export function routePatterns(build: ServerBuild): RoutePatterns {
  let patterns = byBuild.get(build);
  if (!patterns) byBuild.set(build, (patterns = compile(build)));
  return patterns;
}

// One table per build, shared by the histogram and the log line (a development build is
// replaced as Vite reloads it, and its table goes with it).
const byBuild = new WeakMap<ServerBuild, RoutePatterns>();

function compile(build: ServerBuild): RoutePatterns {
  const exact = new Map<string, string>();
  const dynamic = new Map<string, { regex: RegExp; score: number }>();
  for (const route of Object.values(build.routes)) {
    if (!route) continue;
    for (const segments of pathsOf(build, route)) {
      const pattern = `/${segments.join("/")}`;
      if (!segments.some((segment) => segment.startsWith(":") || segment === "*")) exact.set(pattern, pattern);
      // Static ones too: another case, or a trailing slash, reaches them in Remix.
      dynamic.set(pattern, { regex: regexOf(segments), score: scoreOf(segments) });
    }
  }
  const ranked = [...dynamic].sort(([, a], [, b]) => b.score - a.score);
  return {
    patternOf(pathname) {
      const found = exact.get(pathname);
      if (found !== undefined) return found;
      for (const [pattern, { regex }] of ranked) if (regex.test(pathname)) return pattern;
      return null;
    },
  };
}
