// Runs one measurement in a fresh Node process (fresh JIT, no cross-talk between subjects), pinned to CPU 0
// with taskset when it exists, and returns the JSON it prints on its last stdout line.
import { execFileSync, spawnSync } from "node:child_process";

let taskset;
/** Whether `taskset` can pin a process here (checked once). */
export function hasTaskset() {
  if (taskset === undefined) {
    try {
      execFileSync("taskset", ["-c", "0", "true"]);
      taskset = true;
    } catch {
      taskset = false;
    }
  }
  return taskset;
}

/** Runs `node [nodeArgs] script ...args` pinned to CPU 0 and parses its last output line as JSON. */
export function runChild(script, args, nodeArgs = []) {
  const cmd = hasTaskset() ? "taskset" : process.execPath;
  const argv = hasTaskset()
    ? ["-c", "0", process.execPath, ...nodeArgs, script, ...args]
    : [...nodeArgs, script, ...args];
  const r = spawnSync(cmd, argv, { encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${script} ${args.join(" ")} failed (${r.status}):\n${r.stderr}`);
  const lines = r.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}
