// A throw-away IMAP server for a test file: Debian's Dovecot (dovecot-imapd) with its own
// configuration in a temporary folder, on a free port, one passwd-file user whose mail is a
// Maildir in that folder, STARTTLS over a self-signed certificate (the service trusts it
// through NODE_EXTRA_CA_CERTS, as an operator would). Started with `dovecot -F -c <conf>`
// as a child process and killed after.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ImapFlow } from "imapflow";

export const DOVECOT = "/usr/sbin/dovecot";

export type Dovecot = {
  port: number;
  user: string;
  password: string;
  /** The self-signed certificate's PEM file (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** IMAP_URL for the service: imap:// on the port, upgraded with STARTTLS. */
  url: (mailbox?: string) => string;
  /** A client of the test's own, logged in (close it with logout()). */
  client: () => Promise<ImapFlow>;
  /** What Dovecot printed and logged so far. */
  log: () => string;
  stop: () => Promise<void>;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`dovecot exited with ${child.exitCode}:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`dovecot did not listen on ${port}:\n${output()}`);
}

export async function startDovecot(): Promise<Dovecot> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dovecot-"));
  const port = await freePort();
  const user = "support@example.test";
  const password = "imap-test-password";
  // Dovecot does not give mail to root: as root, the mail belongs to nobody.
  const isRoot = process.getuid?.() === 0;
  const uid = isRoot ? 65534 : process.getuid!();
  const gid = isRoot ? 65534 : process.getgid!();
  // Dovecot's own users (auth, mail) read the configuration's files in here.
  fs.chmodSync(dir, 0o755);
  const mailDir = path.join(dir, "mail");
  fs.mkdirSync(mailDir);
  if (isRoot) fs.chownSync(mailDir, uid, gid);
  const cert = path.join(dir, "cert.pem");
  const key = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost"],
      ...["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", cert],
    ],
    { stdio: "ignore" },
  );
  fs.writeFileSync(path.join(dir, "passwd"), `${user}:{PLAIN}${password}:${uid}:${gid}::${mailDir}\n`);
  const runAs = isRoot ? "" : os.userInfo().username;
  const conf = path.join(dir, "dovecot.conf");
  fs.writeFileSync(
    conf,
    [
      `base_dir = ${path.join(dir, "run")}`,
      `state_dir = ${path.join(dir, "state")}`,
      `instance_name = dovecot-test-${port}`,
      "protocols = imap",
      `listen = 127.0.0.1`,
      `log_path = ${path.join(dir, "dovecot.log")}`,
      "ssl = yes",
      `ssl_cert = <${cert}`,
      `ssl_key = <${key}`,
      "disable_plaintext_auth = yes",
      "auth_mechanisms = plain login",
      `mail_location = maildir:~/Maildir`,
      "first_valid_uid = 1",
      // A throw-away mailbox: no fsync per message.
      "mail_fsync = never",
      "mail_max_userip_connections = 100",
      ...(runAs
        ? [`default_internal_user = ${runAs}`, `default_login_user = ${runAs}`, `default_internal_group = ${runAs}`]
        : []),
      "passdb {",
      "  driver = passwd-file",
      `  args = scheme=PLAIN ${path.join(dir, "passwd")}`,
      "}",
      "userdb {",
      "  driver = passwd-file",
      `  args = ${path.join(dir, "passwd")}`,
      "}",
      "service imap-login {",
      "  inet_listener imap {",
      `    port = ${port}`,
      "  }",
      "  inet_listener imaps {",
      "    port = 0",
      "  }",
      "}",
      "service stats {",
      "  inet_listener http {",
      "    port = 0",
      "  }",
      "}",
      "namespace inbox {",
      "  inbox = yes",
      "  separator = /",
      "}",
      "",
    ].join("\n"),
  );
  let output = "";
  const child = spawn(DOVECOT, ["-F", "-c", conf], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const log = () =>
    output +
    (fs.existsSync(path.join(dir, "dovecot.log")) ? fs.readFileSync(path.join(dir, "dovecot.log"), "utf8") : "");
  await waitForPort(port, child, log);

  return {
    log,
    port,
    user,
    password,
    caFile: cert,
    url: (mailbox = "INBOX") =>
      `imap://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(mailbox)}`,
    async client() {
      const client = new ImapFlow({
        host: "127.0.0.1",
        port,
        secure: false,
        auth: { user, pass: password },
        tls: { ca: fs.readFileSync(cert) },
        logger: false,
        disableAutoIdle: true,
      });
      await client.connect();
      return client;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
