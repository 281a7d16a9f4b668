// Subjects measured in turns: one live process per subject (its own JIT and heap, no cross-talk), all pinned to
// CPU 0, which run one short slice at a time in rotation, so that each subject's slices are interleaved with every
// other's over the whole measurement.
//
// Why: this machine's CPU is shared with other tenants, and its speed changes in phases of a few seconds (seen
// here: one unchanged loop at 280 ns per call for seconds, then at 500–580 ns for seconds, inside one process).
// Subjects measured one after another for 2 s each fall into different phases, and their ratio moves by ±40 %
// between runs. Taken in 100 ms turns, every subject sees the same phases, and the ratio of their totals holds.
// A turn is timed by the child's own CPU time (user + system), so time spent descheduled does not count.
//
// Protocol (lines on stdin/stdout): the parent writes `warm MS` or `run MS`; the child runs that long (CPU time)
// and answers one JSON line `{ ops, ms, admitted }`.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { hasTaskset } from "./child.mjs";

/**
 * Serves turns in a child process: `subject` is `{ inputs, sync? , async? }` (one call per input, cycling; each
 * returns whether the call was admitted). Resolves when stdin closes.
 */
export async function serveTurns(subject) {
  const { inputs } = subject;
  const n = inputs.length;
  let i = 0;
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const run = async (ms) => {
    let ops = 0;
    let admitted = 0;
    const start = cpuMs();
    const end = start + ms;
    if (subject.sync) {
      const f = subject.sync;
      for (;;) {
        for (let j = 0; j < 256; j++) {
          if (f(inputs[i])) admitted++;
          i = i + 1 === n ? 0 : i + 1;
        }
        ops += 256;
        if (cpuMs() >= end) break;
      }
    } else {
      const f = subject.async;
      for (;;) {
        for (let j = 0; j < 256; j++) {
          if (await f(inputs[i])) admitted++;
          i = i + 1 === n ? 0 : i + 1;
        }
        ops += 256;
        if (cpuMs() >= end) break;
      }
    }
    return { ops, admitted, ms: cpuMs() - start };
  };
  process.stdout.write("ready\n");
  for await (const line of createInterface({ input: process.stdin })) {
    const [cmd, ms] = line.split(" ");
    if (cmd !== "warm" && cmd !== "run") throw new Error(`turns: unknown command ${line}`);
    process.stdout.write(`${JSON.stringify(await run(Number(ms)))}\n`);
  }
}

/** One child process of {@link runInTurns}: send a command, read its answer line. */
class TurnChild {
  constructor(script, args) {
    const argv = [process.execPath, script, ...args];
    this.proc = hasTaskset()
      ? spawn("taskset", ["-c", "0", ...argv], { stdio: ["pipe", "pipe", "inherit"] })
      : spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
    this.lines = createInterface({ input: this.proc.stdout })[Symbol.asyncIterator]();
    this.exited = new Promise((resolve) => this.proc.on("exit", (code) => resolve(code)));
  }

  async next() {
    const r = await Promise.race([this.lines.next(), this.exited.then((code) => ({ exited: true, code }))]);
    if (r.exited || r.done) {
      const code = r.exited ? r.code : await this.exited;
      throw new Error(
        `turns: child ${this.proc.pid} (${this.proc.spawnargs.slice(-2).join(" ")}) exited with code ${code}`,
      );
    }
    return r.value;
  }

  async command(cmd) {
    this.proc.stdin.write(`${cmd}\n`);
    return JSON.parse(await this.next());
  }
}

/**
 * Measures `names` in turns: one child per name (`node script ...argsOf(name)`, which calls {@link serveTurns}),
 * each warmed for `warmMs`, then `turns` rounds of one `sliceMs` slice per subject, the order rotated each round.
 * Returns per name `{ opsPerS, admittedFrac, slices }` with throughput = total calls / total CPU time of its slices.
 */
export async function runInTurns(script, names, argsOf, { sliceMs = 100, turns = 40, warmMs = 1000 } = {}) {
  const children = [];
  try {
    // Started one at a time: setting a subject up is CPU work that must not overlap another's turn.
    for (const name of names) {
      const c = new TurnChild(script, argsOf(name));
      children.push(c);
      if ((await c.next()) !== "ready") throw new Error(`turns: ${name} did not start`);
      await c.command(`warm ${warmMs}`);
    }
    const totals = names.map(() => ({ ops: 0, ms: 0, admitted: 0, slices: [] }));
    for (let t = 0; t < turns; t++) {
      for (let k = 0; k < names.length; k++) {
        const j = (k + t) % names.length;
        const r = await children[j].command(`run ${sliceMs}`);
        const tot = totals[j];
        tot.ops += r.ops;
        tot.ms += r.ms;
        tot.admitted += r.admitted;
        tot.slices.push((r.ops / r.ms) * 1000);
      }
    }
    return new Map(
      names.map((name, j) => {
        const tot = totals[j];
        return [
          name,
          { opsPerS: (tot.ops / tot.ms) * 1000, admittedFrac: tot.admitted / tot.ops, slices: tot.slices },
        ];
      }),
    );
  } finally {
    for (const c of children) c.proc.stdin.end();
    await Promise.all(children.map((c) => c.exited));
  }
}
