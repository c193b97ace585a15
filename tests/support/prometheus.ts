// A strict reader of Prometheus's text exposition format (version 0.0.4), for tests of
// GET /metrics: it fails on any line a Prometheus server would refuse (a malformed name,
// label or value, a sample without its TYPE, a repeated series, a histogram whose buckets
// are not cumulative or whose +Inf bucket is not its count), and answers what a query would.
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES: Record<string, string[]> = {
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["_sum", "_count", ""],
};

export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; type: string; help: string; samples: Sample[] };

/** A sample's value as Prometheus reads it (Go's ParseFloat: NaN and Inf in any case). */
function parseValue(text: string, line: string): number {
  if (/^nan$/i.test(text)) return NaN;
  if (/^[-+]?inf(inity)?$/i.test(text)) return text.startsWith("-") ? -Infinity : Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`not a number: ${line}`);
  return Number(text);
}

/** `{a="1",b="x\"y"}` → its labels; the index after the closing brace. */
function parseLabels(line: string, start: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  while (line[i] !== "}") {
    const eq = line.indexOf("=", i);
    const name = line.slice(i, eq);
    if (eq < 0 || !LABEL.test(name) || line[eq + 1] !== '"') throw new Error(`bad label: ${line}`);
    if (name in labels) throw new Error(`label repeated: ${line}`);
    let value = "";
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j++) {
      if (line[j] === "\\") {
        const next = line[++j];
        if (next === "n") value += "\n";
        else if (next === "\\" || next === '"') value += next;
        else throw new Error(`bad escape in a label value: ${line}`);
      } else value += line[j];
    }
    if (j >= line.length) throw new Error(`unterminated label value: ${line}`);
    labels[name] = value;
    i = j + 1;
    if (line[i] === ",") i++;
    else if (line[i] !== "}") throw new Error(`bad label list: ${line}`);
  }
  return { labels, end: i + 1 };
}

function familyOf(families: Map<string, Family>, name: string, line: string): Family {
  for (const [base, family] of families) {
    if (name === base && family.type !== "histogram") return family;
    if ((SUFFIXES[family.type] ?? []).some((suffix) => suffix && name === base + suffix)) return family;
  }
  throw new Error(`a sample without its TYPE line: ${line}`);
}

function checkHistogram(family: Family) {
  const series = new Map<string, Sample[]>();
  for (const sample of family.samples) {
    const { le: _le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    series.set(key, [...(series.get(key) ?? []), sample]);
  }
  for (const samples of series.values()) {
    const buckets = samples.filter((sample) => sample.name.endsWith("_bucket"));
    const count = samples.find((sample) => sample.name.endsWith("_count"));
    const inf = buckets.find((bucket) => bucket.labels.le === "+Inf");
    if (!inf || !count || inf.value !== count.value) throw new Error(`${family.name}: +Inf bucket is not the count`);
    for (let i = 1; i < buckets.length; i++) {
      if (buckets[i].value < buckets[i - 1].value) throw new Error(`${family.name}: buckets not cumulative`);
    }
  }
}

/** Parses a whole exposition; throws on the first line Prometheus would refuse. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a line feed");
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!NAME.test(name)) throw new Error(`bad metric name: ${line}`);
      const family = families.get(name) ?? { name, type: "untyped", help: "", samples: [] };
      if (kind === "TYPE") {
        if (!TYPES.has(rest)) throw new Error(`bad type: ${line}`);
        if (family.samples.length > 0) throw new Error(`TYPE after samples: ${line}`);
        family.type = rest;
      } else family.help = rest;
      families.set(name, family);
      continue;
    }
    if (line.startsWith("#")) continue;
    const nameEnd = line.search(/[{ ]/);
    const name = line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`bad sample name: ${line}`);
    const { labels, end } = line[nameEnd] === "{" ? parseLabels(line, nameEnd) : { labels: {}, end: nameEnd };
    const parts = line.slice(end).trim().split(/ +/);
    if (line[end] !== " " || parts.length < 1 || parts.length > 2) throw new Error(`bad sample: ${line}`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new Error(`series repeated: ${line}`);
    seen.add(key);
    familyOf(families, name, line).samples.push({ name, labels, value: parseValue(parts[0], line) });
  }
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return families;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none). */
export function sumOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      if (Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) total += sample.value;
    }
  }
  return total;
}

/** Every label value of every sample: to show that no raw path or id became one. */
export function labelValues(families: Map<string, Family>): string[] {
  return [...families.values()].flatMap((family) => family.samples.flatMap((sample) => Object.values(sample.labels)));
}
