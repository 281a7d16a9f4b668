#!/usr/bin/env node
// Build step: copies the Redis Lua scripts (the source of truth, read at run time by src/stores/redis/script.ts)
// next to the compiled modules, src/**/*.lua -> dist/**/*.lua.
import { copyFileSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const src = join(root, "src");
const dist = join(root, "dist");
let copied = 0;

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".lua")) {
      const target = join(dist, relative(src, path));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(path, target);
      copied++;
    }
  }
}
walk(src);
if (copied === 0) {
  console.error("copy-lua: no .lua files found under src/");
  process.exit(1);
}
