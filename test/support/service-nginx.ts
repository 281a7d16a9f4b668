// A private nginx for end-to-end tests: no daemon, one process (`master_process off`), every path (pid, logs,
// temp dirs) in its own temp dir via `-p`, `error_log stderr`, listening on a free loopback port. The test writes
// the `http { server { … } }` part; this harness wraps it, starts nginx, waits until it answers, and kills it.
//
//   const nginx = await startNginx((port) => `server { listen 127.0.0.1:${port}; location / { return 204; } }`);
//   await fetch(`${nginx.url}/`);
//   await nginx.stop();
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePort } from "./free-port.js";
import { type ProxyProcess, startProxyProcess } from "./proxy-process.js";
import { findExecutable } from "./redis-server.js";
import { testDir } from "./service-clients.js";

export const NGINX_INSTALL_HINT =
  "nginx was not found (the forward-auth test runs it): run scripts/ensure-deps.sh as root, or " +
  "sudo apt-get update && sudo apt-get install -y nginx";

/** A running private nginx (its error log goes to stderr, shown by `output()`). */
export type NginxProcess = ProxyProcess;

/** The nginx binary: on PATH, else /usr/sbin/nginx (often missing from a non-root PATH); throws the hint. */
export function nginxBinary(): string {
  const bin = findExecutable("nginx") ?? findExecutable("/usr/sbin/nginx");
  if (bin === undefined) throw new Error(NGINX_INSTALL_HINT);
  return bin;
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
  return startProxyProcess({
    name: "nginx",
    command: [bin, "-p", dir, "-c", confPath, "-e", "stderr"],
    port,
    config: conf,
    files,
  });
}
