#!/usr/bin/env node
// Fails when wall-clock reads appear outside the clock module. Time enters Sluice only through `Clock`.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const allowed = new Set(["src/core/clock.ts"]);
const banned = /\b(Date\.now|performance\.now)\s*\(|new Date\(\s*\)/;
const offenders = [];

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.(ts|mts|js|mjs)$/.test(name)) {
      const rel = relative(root, path);
      if (allowed.has(rel)) continue;
      readFileSync(path, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (banned.test(line) && !line.includes("clock-lint: allow"))
            offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
  }
}
walk(join(root, "src"));
if (offenders.length > 0) {
  console.error(
    `ERR_SLUICE_CLOCK: read time through Clock.nowMs(), not the wall clock:\n${offenders.join("\n")}`,
  );
  process.exit(1);
}
