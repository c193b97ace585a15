// ad-hoc: app CPU per beacon at a fixed rate, for builds given as args
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import autocannon from "autocannon";

const root = "/work/main";
const SECRETS = { SESSION_SECRET: randomBytes(24).toString("hex"), SUPPORT_API_KEY: randomBytes(24).toString("hex"), INBOUND_SECRET: randomBytes(24).toString("hex"), ALLOW_INSECURE_HTTP: "true" };
const tmp = fs.mkdtempSync("/tmp/cpub-");
const template = path.join(tmp, "t.db");
execFileSync(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), "scripts/prisma.ts", "migrate", "deploy"], { cwd: root, env: { ...process.env, DATABASE_URL: `file:${template}` }, stdio: "ignore" });
const cpuOf = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" "); return (Number(f[11]) + Number(f[12])) * 10; }; // ms
async function start(build: string, i: number) {
  const db = path.join(tmp, `${i}.db`); fs.copyFileSync(template, db);
  const env = { ...process.env, ...SECRETS, NODE_ENV: "production", PORT: "0", HOST: "127.0.0.1", DATABASE_URL: `file:${db}`, ENV_FILE: "", TRUST_PROXY: "true", MAX_CONNECTIONS_PER_CLIENT: "1000", SUBMIT_RATE_LIMIT_PER_MINUTE: "0" };
  const child = spawn(process.execPath, [path.join(root, build, "node/server.js")], { env, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve) => { let out = ""; child.stdout!.on("data", (c) => { out += c; const m = out.match(/listening on (\S+)/); if (m) resolve(m[1]); }); });
  execFileSync(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), "scripts/user-create.ts", "--email", "b@example.com", "--password", "correct horse battery"], { cwd: root, env: { ...env }, stdio: "ignore" });
  const login = await fetch(`${url}/api/auth/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email: "b@example.com", password: "correct horse battery" }) });
  const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const form = await fetch(`${url}/api/forms`, { method: "POST", headers: { "Content-Type": "application/json", Cookie: cookie }, body: JSON.stringify({ name: "C", fields: [{ key: "email", label: "Email", type: "email", required: true }] }) });
  const formId = ((await form.json()) as { id: string }).id;
  return { child, url, formId };
}
let n = 0;
function beacons(url: string, rate: number, seconds: number) {
  return new Promise<autocannon.Result>((resolve, reject) => autocannon({ url, method: "POST", connections: 10, overallRate: rate, duration: seconds,
    headers: { "Content-Type": "text/plain;charset=UTF-8", Origin: "https://www.example.com", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36" },
    requests: [{ setupRequest(r: any) { const i = n++; r.headers = { ...r.headers, "X-Forwarded-For": `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }; r.body = JSON.stringify({ utm_source: `source-${i % 50}`, utm_campaign: "spring-launch", referrerHost: "news.example.com" }); return r; } }] } as any, (e: any, r: any) => (e ? reject(e) : resolve(r))));
}
const builds = process.argv.slice(2);
const apps = await Promise.all(builds.map((b, i) => start(b, i)));
for (const a of apps) await beacons(`${a.url}/api/forms/${a.formId}/views`, 1000, 3); // warm up
const per: Record<string, number[]> = {};
for (let round = 0; round < 6; round++) {
  for (let i = 0; i < apps.length; i++) {
    const a = apps[i];
    const before = cpuOf(a.child.pid!);
    const r = await beacons(`${a.url}/api/forms/${a.formId}/views`, 1000, 5);
    const used = cpuOf(a.child.pid!) - before;
    (per[builds[i]] ??= []).push((used / r.requests.total) * 1000);
    if (r.non2xx || r.errors) console.log("errors", r.non2xx, r.errors);
  }
}
for (const [b, xs] of Object.entries(per)) { const s = [...xs].sort((x, y) => x - y); console.log(b, "µs CPU per beacon: median", s[Math.floor(s.length / 2)].toFixed(0), "all", s.map((x) => x.toFixed(0)).join(" ")); }
for (const a of apps) a.child.kill("SIGTERM");
