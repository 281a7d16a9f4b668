// `npm run bench -- NAME [options]`: runs bench/NAME.mjs (after `npm run build`).
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const names = readdirSync(dir)
  .filter((f) => f.endsWith(".mjs") && f !== "run.mjs")
  .map((f) => f.slice(0, -4));
const name = process.argv[2];
if (!name || !names.includes(name)) {
  console.error(`usage: npm run bench -- NAME   (one of: ${names.join(", ")})`);
  process.exit(2);
}
process.argv.splice(2, 1);
await import(pathToFileURL(`${dir}${name}.mjs`).href);
