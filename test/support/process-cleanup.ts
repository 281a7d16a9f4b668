// Last-resort cleanup of everything the harness spawned or created, for when a test (or the whole run) ends
// without calling stop(): on process exit and on SIGINT/SIGTERM/SIGHUP, every registered child is SIGKILLed,
// every registered mount detached (`umount -l`, before the dirs, which may hold it) and every registered temp dir
// removed, synchronously. Besides this, children are spawned under
// `setpriv --pdeathsig SIGKILL` where available, so the kernel kills them even if this process is SIGKILLed.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";

const children = new Set<number>();
const mounts = new Set<string>();
const dirs = new Set<string>();
let installed = false;

function cleanupNow(): void {
  for (const pid of children) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  children.clear();
  for (const mount of mounts) spawnSync("umount", ["-l", mount], { stdio: "ignore" });
  mounts.clear();
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
  dirs.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  cleanupNow();
  // If we were the only listener, our listener suppressed Node's default "die on signal": restore it.
  if (process.listenerCount(signal) === 1) {
    process.removeListener(signal, onSignal);
    process.kill(process.pid, signal);
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once("exit", cleanupNow);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, onSignal);
}

export function trackChild(pid: number): void {
  install();
  children.add(pid);
}

export function untrackChild(pid: number): void {
  children.delete(pid);
}

export function trackMount(path: string): void {
  install();
  mounts.add(path);
}

export function untrackMount(path: string): void {
  mounts.delete(path);
}

export function trackDir(dir: string): void {
  install();
  dirs.add(dir);
}

export function untrackDir(dir: string): void {
  dirs.delete(dir);
}
