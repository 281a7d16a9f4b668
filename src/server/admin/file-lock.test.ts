import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readOnlyMount } from "../../../test/support/read-only-mount.js";
import { FileLockedError, FileNotWritableError } from "../../core/errors.js";
import { acquireFileLock } from "./file-lock.js";

describe("file lock", () => {
  let dir: string;
  let file: string;
  let child: ChildProcess | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "sluice-lock-"));
    file = join(dir, "rules.yaml");
  });
  afterEach(async () => {
    child?.kill("SIGKILL");
    child = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it("is exclusive until released, and the refusal names the file, the holder's pid and the lock file", async () => {
    const lock = await acquireFileLock(file, "edit it");
    expect(JSON.parse(await readFile(`${file}.lock`, "utf8"))).toMatchObject({
      pid: process.pid,
      host: hostname(),
    });
    const error = await acquireFileLock(file, "edit it").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileLockedError);
    expect(error).toMatchObject({
      code: "ERR_SLUICE_FILE_LOCKED",
      file,
      lockFile: `${file}.lock`,
      holderPid: process.pid,
    });
    expect((error as Error).message).toContain(`${file}: already in use by process ${process.pid}`);
    await lock.release();
    await lock.release(); // idempotent
    expect(await readdir(dir)).toEqual([]);
    const again = await acquireFileLock(file, "edit it");
    await again.release();
  });

  it("refuses a lock held by another live process, and one of another host", async () => {
    child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    const pid = child.pid as number;
    await writeFile(`${file}.lock`, JSON.stringify({ pid, host: hostname(), nonce: "other" }));
    await expect(acquireFileLock(file, "edit it")).rejects.toMatchObject({ holderPid: pid });
    const dead = spawnSync(process.execPath, ["-e", ""]).pid as number;
    await writeFile(`${file}.lock`, JSON.stringify({ pid: dead, host: "elsewhere", nonce: "other" }));
    await expect(acquireFileLock(file, "edit it")).rejects.toMatchObject({
      holderPid: dead,
      holderHost: "elsewhere",
    });
  });

  it("takes over the lock of a process that died, and never removes a lock that is not its own", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid as number; // a pid that has exited
    await writeFile(`${file}.lock`, JSON.stringify({ pid: dead, host: hostname(), nonce: "dead" }));
    const lock = await acquireFileLock(file, "edit it");
    expect(JSON.parse(await readFile(`${file}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
    expect(await readdir(dir)).toEqual(["rules.yaml.lock"]); // no temp or aside file left
    // Taken over behind its back (say, after a pause mistaken for death): its release leaves the new lock.
    await writeFile(`${file}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), nonce: "new" }));
    await lock.release();
    expect(JSON.parse(await readFile(`${file}.lock`, "utf8"))).toMatchObject({ nonce: "new" });
  });

  it("in a directory that cannot be written, throws FileNotWritableError naming the file, the directory and why", async () => {
    // As root, a read-only bind mount (EROFS: a ConfigMap volume's case); otherwise a directory without write
    // permission (EACCES), which root would ignore.
    const source = join(dir, "src");
    const view = join(dir, "ro");
    const root = process.getuid?.() === 0;
    await mkdir(source);
    await writeFile(join(source, "rules.yaml"), "version: 1\nrules: []\n");
    const mount = root ? readOnlyMount(source, view) : undefined;
    if (!root) {
      await mkdir(view);
      await writeFile(join(view, "rules.yaml"), "version: 1\nrules: []\n");
      await chmod(view, 0o555);
    }
    const errno = root ? "EROFS" : "EACCES";
    try {
      const locked = join(view, "rules.yaml");
      const error = await acquireFileLock(locked, "edit it through the admin API").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FileNotWritableError);
      expect(error).toMatchObject({
        code: "ERR_SLUICE_FILE_NOT_WRITABLE",
        file: locked,
        directory: view,
        errno,
      });
      expect((error as Error).message).toBe(
        `${locked}: cannot take its lock ${locked}.lock to edit it through the admin API: the directory ${view} ` +
          `cannot be written (${errno}: ${root ? "read-only file system" : "permission denied"})`,
      );
      expect(await readdir(view)).toEqual(["rules.yaml"]);
    } finally {
      mount?.unmount();
      if (!root) await chmod(view, 0o755);
    }
  });
});
