// Starts real redis-server processes on free loopback ports for integration tests.
//
//   const redis = await startRedis();           // fresh server, empty, no persistence
//   new Redis(redis.url) ...
//   await redis.kill("SIGKILL");                // crash it (outage / fault tests)
//   await redis.start();                        // bring it back on the same port
//   await redis.restart();                      // kill (SIGKILL) + start, same port
//   await redis.stop();                         // kill and remove its temp dir (idempotent)
//   await startRedis({ dir, configFile: `${dir}/sentinel.conf`, args: ["--sentinel"] }); // a Sentinel
//
// Every server runs with `--bind 127.0.0.1 --save "" --appendonly no --dir <own temp dir>`, never on 6379.
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import type net from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { getFreePort, LOOPBACK } from "./free-port.js";
import { trackChild, trackDir, untrackChild, untrackDir } from "./process-cleanup.js";
import { parseInfo, respText } from "./resp.js";

export const INSTALL_HINT = "install it with apt-get install -y redis-server redis-tools";

const TEMP_PREFIX = "sluice-redis-";

export interface StartRedisOptions {
  /** Fixed port. Default: a free loopback port (retried with another one if the bind races). */
  port?: number;
  /** Extra redis-server arguments, appended after the defaults; a function receives the chosen port. */
  args?: readonly string[] | ((port: number) => readonly string[]);
  /** Working directory (--dir). Default: a fresh temp dir, removed by stop(). A given dir is left alone. */
  dir?: string;
  /** How long to wait for the server to answer PING. Default 10 s. */
  startTimeoutMs?: number;
  /** Choose a port whose cluster bus port (port + 10000) is free too. */
  clusterBus?: boolean;
  /** Binary to run. Default "redis-server" from PATH. */
  serverBin?: string;
  /**
   * A configuration file, passed first (redis-server reads it only there). A Sentinel needs one, writable: it
   * rewrites it with what it learns. Options given as arguments override the file's.
   */
  configFile?: string;
}

export interface RedisProcess {
  readonly host: string;
  readonly port: number;
  /** redis://127.0.0.1:PORT */
  readonly url: string;
  /** The server's --dir. */
  readonly dir: string;
  /** Pid of the running server, undefined while it is down. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Sends `signal` (default SIGTERM; SIGKILL for crash tests) and waits until the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same port with the same arguments; waits until it answers PING. */
  start(): Promise<void>;
  /** kill(signal, default SIGKILL) if running, then start() on the same port. */
  restart(signal?: NodeJS.Signals): Promise<void>;
  /** Kills the server (SIGKILL) and removes its temp dir. Idempotent. */
  stop(): Promise<void>;
  /** The last `lines` lines the server printed (its log goes to stdout). */
  logTail(lines?: number): string;
}

/** Full path of `bin` on PATH (or `bin` itself when it contains a slash), or undefined. */
export function findExecutable(bin: string): string | undefined {
  const candidates = bin.includes("/")
    ? [bin]
    : (process.env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, bin));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Throws the install hint when `bin` is not installed. */
export function requireExecutable(bin: string): string {
  const found = findExecutable(bin);
  if (found === undefined) {
    throw new Error(`${bin} was not found on PATH (the Redis integration tests need it): ${INSTALL_HINT}`);
  }
  return found;
}

// `setpriv --pdeathsig SIGKILL -- cmd` makes the kernel SIGKILL cmd when this process dies, however it dies.
// setpriv execs, so the server keeps setpriv's pid.
let pdeathsigPrefix: string[] | undefined;
function deathSignalPrefix(): string[] {
  if (pdeathsigPrefix === undefined) {
    const setpriv = process.platform === "linux" ? findExecutable("setpriv") : undefined;
    pdeathsigPrefix = setpriv ? [setpriv, "--pdeathsig", "SIGKILL", "--"] : [];
  }
  return pdeathsigPrefix;
}

let reaped = false;
/** Removes temp dirs left by earlier runs whose owning process is gone (e.g. a SIGKILLed vitest). */
function reapStaleTempDirs(): void {
  if (reaped) return;
  reaped = true;
  let entries: string[];
  try {
    entries = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const entry of entries) {
    const match = /^sluice-redis-(\d+)-/.exec(entry);
    if (!match) continue;
    const owner = Number(match[1]);
    if (owner === process.pid || isAlive(owner)) continue;
    rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A fresh temp dir under os.tmpdir(), removed on process exit unless untracked earlier. */
export function makeTempDir(label: string): string {
  reapStaleTempDirs();
  const dir = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${process.pid}-${label}-`));
  trackDir(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  untrackDir(dir);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class BindConflict extends Error {}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

class RedisServerProcess implements RedisProcess {
  readonly host = LOOPBACK;
  private child: ChildProcess | undefined;
  private exited: Promise<Exit> | undefined;
  private log: string[] = [];
  private partialLine = "";
  private stopped = false;

  constructor(
    public port: number,
    readonly dir: string,
    private readonly ownsDir: boolean,
    private readonly serverBin: string,
    private readonly extraArgs: StartRedisOptions["args"],
    private readonly startTimeoutMs: number,
    private readonly configFile: string | undefined,
  ) {}

  get url(): string {
    return `redis://${this.host}:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  logTail(lines = 30): string {
    const all = this.partialLine ? [...this.log, this.partialLine] : this.log;
    return all.slice(-lines).join("\n");
  }

  private record(chunk: Buffer): void {
    const parts = (this.partialLine + chunk.toString("utf8")).split("\n");
    this.partialLine = parts.pop() ?? "";
    this.log.push(...parts);
    if (this.log.length > 500) this.log.splice(0, this.log.length - 500);
  }

  private args(): string[] {
    const extra = typeof this.extraArgs === "function" ? this.extraArgs(this.port) : (this.extraArgs ?? []);
    return [
      ...(this.configFile === undefined ? [] : [this.configFile]),
      "--port",
      String(this.port),
      "--bind",
      this.host,
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      this.dir,
      "--daemonize",
      "no",
      ...extra,
    ];
  }

  async start(): Promise<void> {
    if (this.stopped) throw new Error(`redis-server ${this.url} was stopped; start a new one`);
    if (this.child) throw new Error(`redis-server ${this.url} is already running (pid ${this.child.pid})`);
    const [command, ...prefix] = [...deathSignalPrefix(), this.serverBin];
    const child = spawn(command, [...prefix, ...this.args()], {
      cwd: this.dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.log.push(`--- ${new Date().toISOString()} harness: starting ${this.serverBin} on ${this.url} ---`);
    const exited = new Promise<Exit>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", (error) => {
        this.log.push(`harness: spawn failed: ${error.message}`);
        resolve({ code: null, signal: null });
      });
    });
    child.stdout?.on("data", (chunk: Buffer) => this.record(chunk));
    child.stderr?.on("data", (chunk: Buffer) => this.record(chunk));
    // Don't let a forgotten server keep the test process alive; the exit hook kills it.
    child.unref();
    (child.stdout as net.Socket | null)?.unref();
    (child.stderr as net.Socket | null)?.unref();
    if (child.pid !== undefined) trackChild(child.pid);
    this.child = child;
    this.exited = exited.then((exit) => {
      if (child.pid !== undefined) untrackChild(child.pid);
      if (this.child === child) this.child = undefined;
      return exit;
    });
    try {
      await this.waitUntilReady(child);
    } catch (error) {
      await this.kill("SIGKILL");
      throw error;
    }
  }

  private async waitUntilReady(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + this.startTimeoutMs;
    let lastProblem = "no answer yet";
    let exit: Exit | undefined;
    void this.exited?.then((value) => {
      exit = value;
    });
    while (Date.now() < deadline) {
      if (exit !== undefined || this.child !== child) {
        const tail = this.logTail();
        const how = exit?.signal ? `was killed by ${exit.signal}` : `exited with code ${exit?.code}`;
        const message = `redis-server on ${this.host}:${this.port} ${how} before answering PING. Last lines of its log:\n${tail}`;
        if (/Address already in use/i.test(tail)) throw new BindConflict(message);
        throw new Error(message);
      }
      try {
        const pong = await respText(this.port, ["PING"], { timeoutMs: 500 });
        if (pong !== "PONG") throw new Error(`PING answered ${JSON.stringify(pong)}`);
        // Make sure it is *our* server answering, not another one that won a race for the port.
        const info = parseInfo(await respText(this.port, ["INFO", "server"], { timeoutMs: 1000 }));
        const pid = Number(info.get("process_id"));
        if (pid !== child.pid) {
          throw new BindConflict(
            `port ${this.port} is answered by another redis-server (pid ${pid}), not ours (pid ${child.pid})`,
          );
        }
        return;
      } catch (error) {
        if (error instanceof BindConflict) throw error;
        lastProblem = (error as Error).message;
      }
      await sleep(15);
    }
    throw new Error(
      `redis-server on ${this.host}:${this.port} did not answer PING within ${this.startTimeoutMs} ms ` +
        `(last problem: ${lastProblem}). Last lines of its log:\n${this.logTail()}`,
    );
  }

  async kill(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const child = this.child;
    const exited = this.exited;
    if (!child || !exited) return;
    try {
      child.kill(signal);
    } catch {
      // already exiting
    }
    if (signal !== "SIGKILL") {
      // A graceful shutdown can wait on replicas (shutdown-timeout): don't let a test hang on it.
      const timedOut = await Promise.race([exited.then(() => false), sleep(5000).then(() => true)]);
      if (timedOut) child.kill("SIGKILL");
    }
    await exited;
  }

  async restart(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    await this.kill(signal);
    await this.start();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.kill("SIGKILL");
    if (this.ownsDir) removeTempDir(this.dir);
  }
}

/** Starts a fresh redis-server on a free loopback port and waits until it answers PING. */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisProcess> {
  const serverBin = requireExecutable(options.serverBin ?? "redis-server");
  const ownsDir = options.dir === undefined;
  const dir = options.dir ?? makeTempDir("server");
  if (!ownsDir) mkdirSync(dir, { recursive: true });
  const attempts = options.port === undefined ? 5 : 1;
  try {
    for (let attempt = 1; ; attempt++) {
      const port = options.port ?? (await getFreePort({ clusterBus: options.clusterBus }));
      const server = new RedisServerProcess(
        port,
        dir,
        ownsDir,
        serverBin,
        options.args,
        options.startTimeoutMs ?? 10_000,
        options.configFile,
      );
      try {
        await server.start();
        return server;
      } catch (error) {
        // Another process grabbed the port between our probe and the server's bind: try another port.
        if (error instanceof BindConflict && attempt < attempts) continue;
        throw error;
      }
    }
  } catch (error) {
    if (ownsDir) removeTempDir(dir);
    throw error;
  }
}
