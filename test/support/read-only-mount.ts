// A read-only view of a writable directory, as a Kubernetes ConfigMap volume or a read-only root file system gives a
// container: the test writes (and edits) files in `source`; the process under test reads them at `path`, where
// nothing can be created (EROFS).
//
//   const ro = readOnlyMount(join(dir, "src"), join(dir, "ro"));
//   const svc = await startServiceProcess(["--config", join(ro.path, "rules.yaml")], { commandPrefix: ro.commandPrefix });
//   …
//   await svc.stop(); ro.unmount();             // before removing the dirs
//
// As root, a bind mount of `source` on `path` remounted read-only (`mount --bind`, `mount -o remount,bind,ro`),
// visible to every process, this one included; `commandPrefix` is empty. Otherwise, where unprivileged user
// namespaces are allowed, the same mount in a private mount namespace made by `unshare -rm` for the child alone:
// `commandPrefix` runs the child there (this process sees an empty directory at `path`). Neither possible: throws,
// saying what the test needs (a test on a read-only mount is never skipped). Registered with process-cleanup.ts.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { trackMount, untrackMount } from "./process-cleanup.js";
import { findExecutable } from "./redis-server.js";

/** A read-only view of a directory; see the module comment. */
export interface ReadOnlyMount {
  /** The writable directory. */
  readonly source: string;
  /** Where the process under test sees `source`, read-only. */
  readonly path: string;
  /** Whether this process sees the mount too (as root), or only children run with `commandPrefix`. */
  readonly global: boolean;
  /** Put before a child's command line to run it where `path` is the read-only view (empty when `global`). */
  readonly commandPrefix: readonly string[];
  /** Detaches the mount (as root); idempotent. Stop the processes using it first. */
  unmount(): void;
}

/** The shell script that mounts "$1" on "$2" read-only, then execs the rest of its arguments. */
const MOUNT_THEN_EXEC = 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2 && exec "$@"';

/** Makes `path` a read-only view of `source` (both are created when missing); see the module comment. */
export function readOnlyMount(source: string, path: string): ReadOnlyMount {
  mkdirSync(source, { recursive: true });
  mkdirSync(path, { recursive: true });
  const failures: string[] = [];
  if (process.getuid?.() === 0) {
    try {
      execFileSync("mount", ["--bind", source, path], { stdio: "pipe" });
      trackMount(path);
      execFileSync("mount", ["-o", "remount,bind,ro", path], { stdio: "pipe" });
      assertReadOnly(path);
      let mounted = true;
      return {
        source,
        path,
        global: true,
        commandPrefix: [],
        unmount(): void {
          if (!mounted) return;
          mounted = false;
          if (spawnSync("umount", [path], { stdio: "ignore" }).status !== 0) {
            execFileSync("umount", ["-l", path], { stdio: "pipe" });
          }
          untrackMount(path);
        },
      };
    } catch (error) {
      spawnSync("umount", ["-l", path], { stdio: "ignore" });
      untrackMount(path);
      failures.push(`as root, mount --bind / mount -o remount,bind,ro failed: ${(error as Error).message}`);
    }
  } else {
    failures.push(`not root (uid ${process.getuid?.()}), so no bind mount here`);
  }
  const unshare = findExecutable("unshare");
  if (unshare === undefined) {
    failures.push("no unshare(1) on the PATH (util-linux)");
  } else {
    const prefix = [unshare, "-rm", "sh", "-c", MOUNT_THEN_EXEC, "sh", source, path];
    // The probe: in the namespace, creating a file at `path` must fail (and the mount itself succeed).
    const probe = spawnSync(
      prefix[0],
      [...prefix.slice(1), "sh", "-c", `! touch "$0/.probe" 2>/dev/null`, path],
      {
        encoding: "utf8",
      },
    );
    if (probe.status === 0) {
      return { source, path, global: false, commandPrefix: prefix, unmount: () => undefined };
    }
    failures.push(
      `unshare -rm (a private mount namespace as an unprivileged user) failed: ${(probe.stderr || `exit ${probe.status}`).trim()}`,
    );
  }
  throw new Error(
    `this test needs a read-only mount of a directory, and cannot make one: run it as root (it uses mount --bind and ` +
      `mount -o remount,bind,ro), or where unprivileged user namespaces are allowed (unshare -rm; e.g. sysctl ` +
      `kernel.unprivileged_userns_clone=1, or user.max_user_namespaces > 0). Tried: ${failures.join("; ")}`,
  );
}

/** Throws unless creating a file in `path` fails with EROFS. */
function assertReadOnly(path: string): void {
  const probe = join(path, ".probe");
  try {
    writeFileSync(probe, "");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EROFS") return;
    throw error;
  }
  rmSync(probe, { force: true });
  throw new Error(`${path} is still writable after mount -o remount,bind,ro`);
}
