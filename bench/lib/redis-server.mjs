// A private redis-server for a benchmark: a free loopback port, no persistence, its own temp dir, pinned to
// one CPU with taskset when it exists, and killed when the benchmark ends (normally, on error, or on a
// signal; `setpriv --pdeathsig` also makes the kernel kill it if this process dies without cleaning up).
import { execFileSync, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

/** Full path of `bin` on PATH, or undefined. */
export function which(bin) {
  for (const dir of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, bin), constants.X_OK);
      return join(dir, bin);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A fresh temp dir `sluice-bench-<label>-<pid>-XXXXXX`; first removes such dirs whose owning process is gone
 * (a run killed with SIGKILL cannot clean up after itself).
 */
export function benchTempDir(label) {
  for (const entry of readdirSync(tmpdir())) {
    const m = /^sluice-bench-[a-z-]+-(\d+)-/.exec(entry);
    if (!m || Number(m[1]) === process.pid) continue;
    try {
      process.kill(Number(m[1]), 0);
    } catch (e) {
      if (e.code === "ESRCH") rmSync(join(tmpdir(), entry), { recursive: true, force: true });
    }
  }
  return mkdtempSync(join(tmpdir(), `sluice-bench-${label}-${process.pid}-`));
}

/** `[taskset, -c, cpu]` when taskset exists, else `[]`. */
export function pinPrefix(cpu) {
  return which("taskset") ? ["taskset", "-c", String(cpu)] : [];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** utime + stime of `pid` in seconds (from /proc/<pid>/stat), or NaN when unreadable. */
export function procCpuSeconds(pid, clkTck = 100) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the ")" that ends the command name: state is field 3, utime 14, stime 15.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / clkTck;
  } catch {
    return Number.NaN;
  }
}

/**
 * Seconds `pid` (default: this process) has spent waiting on a run queue — runnable, but another process had
 * its CPU — from /proc/<pid>/schedstat; NaN when unreadable. Over a measured phase it says how much of the
 * time other load took from the process, which is where latency spikes on a shared machine come from.
 */
export function runQueueWaitSeconds(pid = "self") {
  try {
    const [, waitNs] = readFileSync(`/proc/${pid}/schedstat`, "utf8").trim().split(/\s+/).map(Number);
    return waitNs / 1e9;
  } catch {
    return Number.NaN;
  }
}

/**
 * Context switches of `pid`'s main thread (default: this process) from /proc/<pid>/status: `voluntary` (it
 * blocked: each is a sleep, so the next run is a wake-up) and `involuntary` (preempted while runnable); NaN when
 * unreadable.
 */
export function contextSwitches(pid = "self") {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN);
    return { voluntary: field("voluntary_ctxt_switches"), involuntary: field("nonvoluntary_ctxt_switches") };
  } catch {
    return { voluntary: Number.NaN, involuntary: Number.NaN };
  }
}

/** Clock ticks per second for /proc/<pid>/stat. */
export function clockTicks() {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/**
 * Starts redis-server (`--save "" --appendonly no`) on a free loopback port, pinned to `cpu`.
 * Returns { port, pid, cli(...args) → string, stop() }.
 */
export async function startRedisServer({ cpu = 1, extraArgs = [] } = {}) {
  const server = which("redis-server");
  if (!server) throw new Error("redis-server not found: apt-get install -y redis-server redis-tools");
  const setpriv = process.platform === "linux" ? which("setpriv") : undefined;
  const prefix = [...(setpriv ? [setpriv, "--pdeathsig", "SIGKILL", "--"] : []), ...pinPrefix(cpu)];
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    if (port === 6379) continue;
    const dir = benchTempDir("redis");
    const args = [
      ...["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      ...["--dir", dir, "--daemonize", "no", "--logfile", join(dir, "redis.log")],
      ...extraArgs,
    ];
    const [cmd, ...rest] = [...prefix, server];
    const child = spawn(cmd, [...rest, ...args], { stdio: "ignore" });
    let exited = false;
    child.once("exit", () => {
      exited = true;
    });
    const cli = (...a) =>
      execFileSync("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...a], {
        encoding: "utf8",
        timeout: 10_000,
        stdio: ["ignore", "pipe", "pipe"],
      }).trim();
    const stop = () => {
      if (!exited) {
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
      process.off("exit", stop);
    };
    process.on("exit", stop);
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
      process.once(sig, () => {
        stop();
        process.exit(128 + (sig === "SIGINT" ? 2 : sig === "SIGTERM" ? 15 : 1));
      });
    }
    const deadline = Date.now() + 10_000;
    let ready = false;
    while (!exited && Date.now() < deadline) {
      try {
        const info = cli("INFO", "server");
        const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
        if (pid !== child.pid)
          throw new Error(`port ${port} answered by pid ${pid}, not ours (${child.pid})`);
        ready = true;
        break;
      } catch {
        await sleep(20);
      }
    }
    if (ready) return { port, pid: child.pid, cli, stop, pinned: prefix.includes("taskset") };
    let log = "";
    try {
      log = readFileSync(join(dir, "redis.log"), "utf8").split("\n").slice(-10).join("\n");
    } catch {
      // no log
    }
    stop();
    if (attempt >= 5) throw new Error(`redis-server did not start on port ${port}:\n${log}`);
  }
}
