// npm run user:create -- --email a@b.c --password '...' [--name 'Ada'] [--role owner|admin|agent]
// Creates a staff user (an owner unless --role says otherwise; the first user is always
// the owner), or resets the password of an existing one (its role unchanged).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { exitOnConfigError } from "../app/utils/config-error";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (fs.existsSync(path.join(root, ".env"))) process.loadEnvFile(path.join(root, ".env"));

const { values } = parseArgs({
  options: {
    email: { type: "string" },
    password: { type: "string" },
    name: { type: "string" },
    role: { type: "string" },
  },
});
const ROLES = ["owner", "admin", "agent"] as const;
const role = ROLES.find((known) => known === (values.role ?? "owner"));
if (!values.email || !values.password || !role) {
  console.error(
    "usage: npm run user:create -- --email a@b.c --password 'at least 12 characters' [--name 'Ada'] [--role owner|admin|agent]",
  );
  process.exit(2);
}

const { createOrResetUser } = await import("../app/staff/user.server").catch(exitOnConfigError);
const { db } = await import("../app/storage/db.server");
try {
  const { user, created } = await createOrResetUser({
    email: values.email,
    password: values.password,
    name: values.name,
    role,
  });
  console.log(created ? `Created staff user ${user.email}.` : `Reset the password of ${user.email}.`);
} catch (error) {
  if (error instanceof ZodError) {
    console.error(error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("\n"));
    process.exitCode = 2;
  } else {
    throw error;
  }
} finally {
  await db.$disconnect();
}
