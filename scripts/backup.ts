// npm run backup -- <file>
// Writes a consistent copy of the service's SQLite database while the service keeps serving:
// VACUUM INTO reads one snapshot (every transaction committed before it began, nothing
// after), and in WAL mode that read holds back no writer. The copy is written beside its
// destination, checked with PRAGMA integrity_check, and only then renamed into place, so a
// failed backup never leaves a file that looks like one (decision 050).
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { fail, notAWholeDatabase, serviceDatabaseFile } from "./sqlite-file";

const destination = process.argv[2];
if (!destination || destination.startsWith("-")) fail("usage: npm run backup -- <file>");
const target = path.resolve(destination);
const source = serviceDatabaseFile("backup");
if (!fs.existsSync(source)) fail(`There is no database at ${source} to back up.`);
if (fs.existsSync(target)) fail(`${target} exists already: choose a new file name.`);

const partial = `${target}.partial-${process.pid}`;
const started = Date.now();
const db = new Database(source, { fileMustExist: true, timeout: 10_000 });
try {
  db.prepare("VACUUM INTO ?").run(partial);
} catch (error) {
  fs.rmSync(partial, { force: true });
  fail(`The backup failed: ${(error as Error).message}`);
} finally {
  db.close();
}
const problem = notAWholeDatabase(partial);
if (problem) {
  fs.rmSync(partial, { force: true });
  fail(`The copy did not verify, so it was removed: ${problem}`);
}
fs.renameSync(partial, target);
const megabytes = (fs.statSync(target).size / 1e6).toFixed(1);
console.log(`Backed up ${source} to ${target} (${megabytes} MB, ${Date.now() - started} ms; integrity check ok).`);
