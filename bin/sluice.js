#!/usr/bin/env node
// The `sluice` command: runs the compiled CLI (build it with `npm run build`).
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv);
