// npm run restore -- <file> [--force]
// Puts a backup made by `npm run backup` back as the service's SQLite database. The backup
// is checked first (integrity, and that it is this service's database); a database that a
// running service has open is not replaced unless --force says so (stop the service first:
// a process that keeps the old file open keeps writing to it, not to the restored one).
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { fail, inUse, notAWholeDatabase, serviceDatabaseFile } from "./sqlite-file";

const { values, positionals } = parseArgs({ options: { force: { type: "boolean" } }, allowPositionals: true });
if (positionals.length !== 1) fail("usage: npm run restore -- <file> [--force]");
const backup = path.resolve(positionals[0]);
const target = serviceDatabaseFile("restore");

const problem = notAWholeDatabase(backup);
if (problem) fail(`Not restored: ${problem}`);
if (!values.force && inUse(target)) {
  fail(`Not restored: ${target} is open in a running service. Stop it first, or pass --force.`);
}

// Copy beside the target, then rename: the target is either the old database or the whole
// backup, never half of one. The old WAL and shared-memory files belong to the old database.
fs.mkdirSync(path.dirname(target), { recursive: true });
const incoming = `${target}.restoring-${process.pid}`;
fs.copyFileSync(backup, incoming);
const handle = fs.openSync(incoming, "r");
fs.fsyncSync(handle);
fs.closeSync(handle);
for (const suffix of ["-wal", "-shm", "-journal"]) fs.rmSync(`${target}${suffix}`, { force: true });
fs.renameSync(incoming, target);
console.log(`Restored ${backup} to ${target}.`);
