// Runs the real `sluice serve` as a child process for end-to-end tests, from the built dist (ensureDistBuilt()).
//
//   const svc = await startServiceProcess(["--config", file]);   // ports 0: the OS picks; read from its logs
//   await fetch(`${svc.httpUrl}/v1/check`, ...);
//   svc.signal("SIGTERM"); const exit = await svc.exited;        // { code, signal }
//   await svc.stop();                                            // SIGKILL if still running (idempotent)
//
// The child runs under `setpriv --pdeathsig SIGKILL` where available and is registered with process-cleanup.ts,
// so it dies with the test process whatever happens. Its stdout is JSON log lines (parsed into `logs`), its
// stderr the human "ready" note.
import { type ChildProcess, spawn } from "node:child_process";
import type net from "node:net";
import { ROOT } from "./dist-build.js";
import { trackChild, untrackChild } from "./process-cleanup.js";
import { findExecutable } from "./redis-server.js";

/** One parsed log line of the service. */
export interface ServiceLogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** How the child ended. */
export interface ServiceExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running `sluice serve` child. */
export interface ServiceProcess {
  readonly pid: number;
  readonly httpPort: number;
  readonly grpcPort: number;
  /** The admin API's port (NaN with --no-admin). */
  readonly adminPort: number;
  /** http://127.0.0.1:PORT */
  readonly httpUrl: string;
  /** 127.0.0.1:PORT */
  readonly grpcAddress: string;
  /** Every JSON log line so far. */
  readonly logs: readonly ServiceLogLine[];
  /** stdout lines that were not JSON, and all of stderr. */
  output(): string;
  /** Resolves with the first log line (past or future) that `match` accepts. */
  waitForLog(match: (line: ServiceLogLine) => boolean, timeoutMs?: number): Promise<ServiceLogLine>;
  /** Sends `signal` to the child. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves when the child has exited. */
  readonly exited: Promise<ServiceExit>;
  /** SIGKILLs the child if it still runs and waits for it. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startServiceProcess}. */
export interface StartServiceOptions {
  /** Extra environment (merged over a copy of process.env without SLUICE_* variables). */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for the "ready" log line. @default 20 s */
  readonly startTimeoutMs?: number;
  /**
   * A command that runs the rest of the command line in its own setting, put first (before the death-signal
   * wrapper, so that the signal is set in the process that ends up being the service): e.g. read-only-mount.ts's
   * `unshare` into a private mount namespace. It must exec, not fork, so the child's pid is the service's.
   */
  readonly commandPrefix?: readonly string[];
}

let prefix: string[] | undefined;
function deathSignalPrefix(): string[] {
  if (prefix === undefined) {
    const setpriv = process.platform === "linux" ? findExecutable("setpriv") : undefined;
    prefix = setpriv ? [setpriv, "--pdeathsig", "SIGKILL", "--"] : [];
  }
  return prefix;
}

/**
 * Starts `node bin/sluice.js serve --host 127.0.0.1 --http-port 0 --grpc-port 0 --log-level info <args>` (later
 * flags win) and waits for its "ready" line; rejects with its output when it exits or stays silent first.
 */
export async function startServiceProcess(
  args: readonly string[],
  options: StartServiceOptions = {},
): Promise<ServiceProcess> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith("SLUICE_") && v !== undefined) env[k] = v;
  Object.assign(env, options.env ?? {});
  const [command, ...rest] = [
    ...(options.commandPrefix ?? []),
    ...deathSignalPrefix(),
    process.execPath,
    "bin/sluice.js",
    "serve",
    "--host",
    "127.0.0.1",
    "--http-port",
    "0",
    "--grpc-port",
    "0",
    "--admin-port",
    "0",
    "--log-level",
    "info",
    ...args,
  ];
  const child: ChildProcess = spawn(command, rest, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid === undefined) throw new Error("could not spawn sluice serve");
  const pid = child.pid;
  trackChild(pid);
  child.unref();
  (child.stdout as net.Socket | null)?.unref();
  (child.stderr as net.Socket | null)?.unref();

  const logs: ServiceLogLine[] = [];
  const other: string[] = [];
  const waiters = new Set<{ match: (l: ServiceLogLine) => boolean; resolve: (l: ServiceLogLine) => void }>();
  let partial = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    partial += chunk.toString("utf8");
    let nl = partial.indexOf("\n");
    while (nl >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      nl = partial.indexOf("\n");
      let parsed: ServiceLogLine | undefined;
      try {
        parsed = JSON.parse(line) as ServiceLogLine;
      } catch {
        other.push(line);
      }
      if (parsed === undefined) continue;
      logs.push(parsed);
      for (const w of waiters) {
        if (w.match(parsed)) {
          waiters.delete(w);
          w.resolve(parsed);
        }
      }
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => other.push(chunk.toString("utf8")));
  const exited = new Promise<ServiceExit>((resolve) => {
    child.once("exit", (code, signal) => {
      untrackChild(pid);
      resolve({ code, signal });
    });
  });
  const output = (): string =>
    [...logs.map((l) => JSON.stringify(l)), ...other].join("\n").split("\n").slice(-60).join("\n");

  const waitForLog = (match: (l: ServiceLogLine) => boolean, timeoutMs = 10_000): Promise<ServiceLogLine> => {
    const seen = logs.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const w = {
        match,
        resolve: (l: ServiceLogLine) => {
          clearTimeout(timer);
          resolve(l);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(w);
        reject(
          new Error(
            `sluice serve (pid ${pid}) did not log the awaited line within ${timeoutMs} ms:\n${output()}`,
          ),
        );
      }, timeoutMs);
      waiters.add(w);
      void exited.then((exit) => {
        if (!waiters.has(w)) return;
        waiters.delete(w);
        clearTimeout(timer);
        reject(new Error(`sluice serve (pid ${pid}) exited (${JSON.stringify(exit)}) first:\n${output()}`));
      });
    });
  };

  const stop = async (): Promise<void> => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
    await exited;
  };

  try {
    await waitForLog((l) => l.msg === "ready", options.startTimeoutMs ?? 20_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const httpPort = Number(logs.find((l) => l.endpoint === "http")?.port);
  const grpcPort = Number(logs.find((l) => l.endpoint === "grpc")?.port);
  const adminPort = Number(logs.find((l) => l.endpoint === "admin")?.port);
  return {
    pid,
    httpPort,
    grpcPort,
    adminPort,
    httpUrl: `http://127.0.0.1:${httpPort}`,
    grpcAddress: `127.0.0.1:${grpcPort}`,
    logs,
    output,
    waitForLog,
    signal: (signal) => {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    },
    exited,
    stop,
  };
}
