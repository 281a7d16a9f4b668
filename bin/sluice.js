#!/usr/bin/env node
// The `sluice` command: runs the compiled CLI (build it with `npm run build`).
//
// Recommended for `sluice serve`: `node --min-semi-space-size=16 bin/sluice.js serve …` (as `npm start` and the
// service bench run it). V8 shrinks an idle process's young generation, and the first seconds of load after a lull
// then run on a small one, promoting what is in flight. Measured on `sluice serve` at 33.5 k requests/s after 12 s
// idle: a 21 ms scavenge (--trace-gc), and a p99 of 11-15 ms in 2 of 6 runs; with the flag the longest GC pause
// under load was 1.2-4.1 ms over 5 runs. V8 reads the flag only at start: NODE_OPTIONS refuses it and
// v8.setFlagsFromString leaves the shrink in place. It is not in the shebang: `env -S` is not everywhere (GNU
// coreutils before 8.30 lack it, and BusyBox's env is not GNU's), and where it is missing the command would not
// start at all.
import { main } from "../dist/cli/main.js";

// A reader that went away (`sluice serve --help | head -5`) ends the command as a shell's SIGPIPE would (exit 141),
// not with an unhandled 'error' event and its stack trace. Other stream errors stay errors.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(141);
  });
}

process.exitCode = await main(process.argv);
