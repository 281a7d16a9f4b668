#!/usr/bin/env -S node --min-semi-space-size=16
// The `sluice` command: runs the compiled CLI (build it with `npm run build`).
//
// `--min-semi-space-size=16` (MB): V8 shrinks the young generation of a process that has been idle, and the first
// seconds of load after that run on a small one, promoting what is in flight. Measured on `sluice serve` at
// 33.5 k requests/s after 12 s idle: a 21 ms scavenge (--trace-gc) and a p99 of 11-15 ms in 2 of 6 runs; with the
// flag the longest GC pause under load was 1.2-4.1 ms over 5 runs. V8 reads it only at start (not from
// NODE_OPTIONS, nor v8.setFlagsFromString), hence the shebang; `node bin/sluice.js` needs it given by hand.
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv);
