// A private Caddy for end-to-end tests: `caddy run` in the foreground with a Caddyfile the test writes, the admin
// endpoint off, no automatic HTTPS, its data and config dirs (HOME, XDG_*) in its own temp dir, listening on a
// free loopback port. The test writes the site block's directives; this harness wraps them, starts Caddy, waits
// until it answers, and kills it.
//
//   const caddy = await startCaddy((port) => `respond "hi" 200`);
//   await fetch(`${caddy.url}/`);
//   await caddy.stop();
import { join } from "node:path";
import { getFreePort } from "./free-port.js";
import { type ProxyProcess, startProxyProcess } from "./proxy-process.js";
import { findExecutable } from "./redis-server.js";
import { testDir } from "./service-clients.js";

export const CADDY_INSTALL_HINT =
  "caddy was not found (the Caddy forward_auth test runs it): run scripts/ensure-deps.sh as root, or " +
  "sudo apt-get update && sudo apt-get install -y caddy";

/** A running private Caddy (its log goes to stderr, shown by `output()`). */
export type CaddyProcess = ProxyProcess;

/** Starts Caddy with one site on 127.0.0.1 whose directives are `site(port)`, and waits until the port accepts connections. */
export async function startCaddy(site: (port: number) => string): Promise<CaddyProcess> {
  const bin = findExecutable("caddy");
  if (bin === undefined) throw new Error(CADDY_INSTALL_HINT);
  const files = testDir("caddy");
  const dir = files.dir;
  const port = await getFreePort();
  const config = `# written by test/support/service-caddy.ts
{
	admin off
	auto_https off
	storage file_system ${join(dir, "data")}
}
http://127.0.0.1:${port} {
	bind 127.0.0.1
${site(port)}
}
`;
  const path = files.write("Caddyfile", config);
  return startProxyProcess({
    name: "caddy",
    command: [bin, "run", "--config", path, "--adapter", "caddyfile"],
    port,
    config,
    files,
    env: { HOME: dir, XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
  });
}
