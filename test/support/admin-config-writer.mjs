// Child process of test/integration/admin-file-crash.test.ts: loads a fileConfigRepository (the module path is
// argv[2], a private build of src/server/admin/file-config-repository.ts) on the file argv[3] and rewrites it in a
// tight loop until killed. Generation g of the document has 40 + g % 40 rules, every one named `gen-g` with limit
// g + 1, so a torn or mixed file cannot pass for a consistent one. Prints "ready <version>" once loaded, then the
// version of every write that completed (the parent SIGKILLs it at a random moment).
import { pathToFileURL } from "node:url";

const [modulePath, file] = process.argv.slice(2);
const { fileConfigRepository } = await import(pathToFileURL(modulePath).href);
const repo = fileConfigRepository({ path: file, watch: false });
const first = await repo.load();
process.stdout.write(`ready ${first.version}\n`);

for (;;) {
  const next = await repo.update((draft, current) => {
    const gen = current.version; // generation g is written as version g + 1
    const count = 40 + (gen % 40);
    draft.rules = Array.from({ length: count }, (_, i) => ({
      id: `r${i}`,
      name: `gen-${gen}`,
      domain: "api",
      match: [{ key: "tenant", value: `t${i}` }],
      limits: [{ name: "per-minute", limit: gen + 1, period: "1m" }],
    }));
  });
  process.stdout.write(`${next.version}\n`);
}
