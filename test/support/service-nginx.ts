// A private nginx for end-to-end tests: no daemon, one process (`master_process off`), every path (pid, logs,
// temp dirs) in its own temp dir via `-p`, `error_log stderr`, listening on a free loopback port. The test writes
// the `http { server { … } }` part; this harness wraps it, starts nginx, waits until it answers, and kills it.
//
//   const nginx = await startNginx((port) => `server { listen 127.0.0.1:${port}; location / { return 204; } }`);
//   await fetch(`${nginx.url}/`);
//   await nginx.stop();
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { getFreePort } from "./free-port.js";
import { trackChild, untrackChild } from "./process-cleanup.js";
import { findExecutable, sleep } from "./redis-server.js";
import { testDir } from "./service-clients.js";

export const NGINX_INSTALL_HINT =
  "nginx was not found (the forward-auth test runs it): run scripts/ensure-deps.sh as root, or " +
  "sudo apt-get update && sudo apt-get install -y nginx";

/** A running private nginx. */
export interface NginxProcess {
  readonly port: number;
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** What nginx printed (its error log goes to stderr). */
  output(): string;
  /** Kills nginx (SIGKILL) and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** The nginx binary: on PATH, else /usr/sbin/nginx (often missing from a non-root PATH); throws the hint. */
export function nginxBinary(): string {
  const bin = findExecutable("nginx") ?? findExecutable("/usr/sbin/nginx");
  if (bin === undefined) throw new Error(NGINX_INSTALL_HINT);
  return bin;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Starts nginx with `server(port)` as the body of its `http` block (plus the harness's temp paths) and waits until
 * the port accepts connections.
 */
export async function startNginx(server: (port: number) => string): Promise<NginxProcess> {
  const bin = nginxBinary();
  const files = testDir("nginx");
  const dir = files.dir;
  for (const sub of ["logs", "tmp"]) mkdirSync(join(dir, sub), { recursive: true });
  const port = await getFreePort();
  const conf = `# written by test/support/service-nginx.ts
daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, "nginx.pid")};
error_log stderr notice;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${join(dir, "tmp", "body")};
  proxy_temp_path ${join(dir, "tmp", "proxy")};
  fastcgi_temp_path ${join(dir, "tmp", "fastcgi")};
  uwsgi_temp_path ${join(dir, "tmp", "uwsgi")};
  scgi_temp_path ${join(dir, "tmp", "scgi")};
${server(port)}
}
`;
  const confPath = join(dir, "nginx.conf");
  writeFileSync(confPath, conf);
  const setpriv = process.platform === "linux" ? findExecutable("setpriv") : undefined;
  const [command, ...args] = [
    ...(setpriv ? [setpriv, "--pdeathsig", "SIGKILL", "--"] : []),
    bin,
    "-p",
    dir,
    "-c",
    confPath,
    "-e",
    "stderr",
  ];
  const child: ChildProcess = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const out: string[] = [];
  child.stdout?.on("data", (c: Buffer) => out.push(c.toString()));
  child.stderr?.on("data", (c: Buffer) => out.push(c.toString()));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      if (child.pid !== undefined) untrackChild(child.pid);
      resolve();
    }),
  );
  if (child.pid !== undefined) trackChild(child.pid);
  const output = (): string => `${out.join("")}\n--- nginx.conf ---\n${conf}`;
  const stop = async (): Promise<void> => {
    if (!exited) child.kill("SIGKILL");
    await exit;
    files.remove();
  };
  for (let i = 0; i < 500 && !exited; i++) {
    if (await canConnect(port)) {
      return { port, url: `http://127.0.0.1:${port}`, output, stop };
    }
    await sleep(20);
  }
  const text = output();
  await stop();
  throw new Error(`nginx did not start on port ${port}:\n${text}`);
}
