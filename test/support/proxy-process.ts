// A reverse proxy (nginx, Caddy) run as one foreground child process for end-to-end tests: its files in a temp dir,
// listening on a free loopback port, killed (SIGKILL) with the test process. The proxy harnesses
// (service-nginx.ts, service-caddy.ts) write the configuration and the command line; this starts the process,
// waits until the port accepts connections, and stops it.
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { trackChild, untrackChild } from "./process-cleanup.js";
import { findExecutable, sleep } from "./redis-server.js";
import type { testDir } from "./service-clients.js";

/** A running proxy. */
export interface ProxyProcess {
  readonly port: number;
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** What the proxy printed, then its configuration. */
  output(): string;
  /** Kills the proxy (SIGKILL) and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** How to start one proxy. */
export interface ProxySpawn {
  /** The proxy's name, for errors ("nginx"). */
  readonly name: string;
  /** Its executable and arguments. */
  readonly command: readonly string[];
  /** The loopback port its configuration listens on. */
  readonly port: number;
  /** Its configuration's text, shown in `output()`. */
  readonly config: string;
  /** Its temp dir, removed on stop. */
  readonly files: ReturnType<typeof testDir>;
  /** Extra environment. */
  readonly env?: Readonly<Record<string, string>>;
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

/** Starts `spec.command` (under `setpriv --pdeathsig SIGKILL` where available) and waits up to 10 s for its port. */
export async function startProxyProcess(spec: ProxySpawn): Promise<ProxyProcess> {
  const setpriv = process.platform === "linux" ? findExecutable("setpriv") : undefined;
  const [command, ...args] = [...(setpriv ? [setpriv, "--pdeathsig", "SIGKILL", "--"] : []), ...spec.command];
  const child: ChildProcess = spawn(command, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...spec.env },
  });
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
  const output = (): string => `${out.join("")}\n--- ${spec.name} configuration ---\n${spec.config}`;
  const stop = async (): Promise<void> => {
    if (!exited) child.kill("SIGKILL");
    await exit;
    spec.files.remove();
  };
  const port = spec.port;
  for (let i = 0; i < 500 && !exited; i++) {
    if (await canConnect(port)) return { port, url: `http://127.0.0.1:${port}`, output, stop };
    await sleep(20);
  }
  const text = output();
  await stop();
  throw new Error(`${spec.name} did not start on port ${port}:\n${text}`);
}
