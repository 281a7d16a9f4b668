// Starts a real Redis Cluster (N masters, R replicas each) of redis-server processes on free loopback ports.
//
//   const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
//   const client = new Redis.Cluster(cluster.startupNodes);
//   const owner = await cluster.masterForKey("{user:1}:tokens");
//   await owner.kill("SIGKILL");
//   const promoted = await cluster.waitForFailover(owner);   // a replica took over, cluster_state:ok
//   await owner.restart();                                   // comes back as a replica of `promoted`
//   await cluster.waitUntilHealthy();
//   await cluster.stop();
import { execFile } from "node:child_process";
import { join } from "node:path";
import { LOOPBACK } from "./free-port.js";
import {
  makeTempDir,
  type RedisProcess,
  removeTempDir,
  requireExecutable,
  sleep,
  startRedis,
} from "./redis-server.js";
import { parseInfo, respCall, respText } from "./resp.js";

export const CLUSTER_SLOTS = 16_384;

/** SLUICE_REDIS_DEBUG=1 prints how long each phase of cluster startup and waits took. */
function debug(message: string): void {
  if (process.env.SLUICE_REDIS_DEBUG) console.error(`[sluice-redis ${new Date().toISOString()}] ${message}`);
}

export interface StartRedisClusterOptions {
  /** Default 3 (the minimum Redis Cluster accepts). */
  masters?: number;
  /** Default 1. */
  replicasPerMaster?: number;
  /** --cluster-node-timeout in ms. Default 2000: failure detection and failover take a few seconds. */
  nodeTimeoutMs?: number;
  /** Extra redis-server arguments for every node. */
  args?: readonly string[];
  /** Deadline for the whole cluster to form (all slots covered, replicas in sync). Default 30 s. */
  startTimeoutMs?: number;
}

export type ClusterRole = "master" | "replica";

export interface ClusterNode {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  /** Role as of the last topology refresh (startup, topology(), masters(), masterForKey(), waits). */
  readonly role: ClusterRole;
  /** Slot ranges this node owned at the last topology refresh ([] for replicas). */
  readonly slots: readonly (readonly [number, number])[];
  readonly running: boolean;
  /** The underlying server process. */
  readonly process: RedisProcess;
  /** Default SIGTERM; use SIGKILL to simulate a crash. Waits until the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts a killed node again on the same port, with its nodes.conf, so it rejoins the cluster. */
  start(): Promise<void>;
  /** kill (SIGKILL) if running, then start. */
  restart(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartupNode {
  host: string;
  port: number;
}

export interface TopologyEntry {
  id: string;
  port: number;
  role: ClusterRole;
  /** Port of this replica's master (undefined for masters or when the master is unknown). */
  masterPort: number | undefined;
  flags: string[];
  slots: [number, number][];
}

export interface RedisCluster {
  readonly nodes: readonly ClusterNode[];
  /** For `new Redis.Cluster(startupNodes)`. */
  readonly startupNodes: StartupNode[];
  /** Current masters that own slots and are running (refreshes roles). */
  masters(): Promise<ClusterNode[]>;
  /** Current replicas that are running (refreshes roles). */
  replicas(): Promise<ClusterNode[]>;
  /** The cluster as one running node sees it (refreshes roles and slots of `nodes`). */
  topology(): Promise<TopologyEntry[]>;
  /** The node with this port. */
  node(port: number): ClusterNode;
  /** The master that currently owns `key`'s slot. */
  masterForKey(key: string): Promise<ClusterNode>;
  /** Waits until a replica of the killed master `failed` has been promoted and the cluster is ok again. */
  waitForFailover(failed: ClusterNode, options?: WaitOptions): Promise<ClusterNode>;
  /** Waits until every running node agrees on the topology, cluster_state:ok, all replicas in sync. */
  waitUntilHealthy(options?: WaitOptions): Promise<void>;
  /**
   * Waits until every running replica has processed everything its master had written when this was
   * called. Replication is asynchronous: a write acknowledged just before its master dies can be lost in
   * the failover. Call this before killing a master when a test needs its writes to survive.
   */
  waitForReplication(options?: WaitOptions): Promise<void>;
  /** Kills every node and removes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

export interface WaitOptions {
  /** Default 20 s. */
  timeoutMs?: number;
  /** Poll interval. Default 50 ms. */
  intervalMs?: number;
}

class Node implements ClusterNode {
  role: ClusterRole = "master";
  slots: [number, number][] = [];
  constructor(readonly process: RedisProcess) {}
  get host() {
    return this.process.host;
  }
  get port() {
    return this.process.port;
  }
  get url() {
    return this.process.url;
  }
  get running() {
    return this.process.running;
  }
  kill(signal?: NodeJS.Signals) {
    return this.process.kill(signal);
  }
  start() {
    return this.process.start();
  }
  restart(signal?: NodeJS.Signals) {
    return this.process.restart(signal);
  }
}

/** Parses CLUSTER NODES output. */
export function parseClusterNodes(text: string): TopologyEntry[] {
  const raw = text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [id, address, flagText, masterId, , , , , ...slotFields] = line.split(" ");
      // address: ip:port@cport[,hostname]
      const port = Number(address.split("@")[0].split(":").pop());
      const flags = flagText.split(",");
      const slots: [number, number][] = [];
      for (const field of slotFields) {
        if (field.startsWith("[")) continue; // migrating / importing markers
        const [start, end] = field.split("-").map(Number);
        slots.push([start, end ?? start]);
      }
      return { id, port, flags, masterId, slots };
    });
  const portById = new Map(raw.map((entry) => [entry.id, entry.port]));
  return raw.map(({ id, port, flags, masterId, slots }) => ({
    id,
    port,
    flags,
    role: flags.includes("slave") ? "replica" : "master",
    masterPort: masterId && masterId !== "-" ? portById.get(masterId) : undefined,
    slots,
  }));
}

function rangesText(slots: readonly (readonly [number, number])[]): string {
  return slots.map(([start, end]) => `${start}-${end}`).join(",");
}

function redisCli(args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "redis-cli",
      args,
      { timeout: timeoutMs, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (error) reject(new Error(`redis-cli ${args.join(" ")} failed: ${error.message}\n${output}`));
        else resolve(output);
      },
    );
  });
}

class Cluster implements RedisCluster {
  private stopped = false;
  constructor(
    readonly nodes: Node[],
    private readonly dir: string,
    private readonly expectedMasters: number,
  ) {}

  get startupNodes(): StartupNode[] {
    return this.nodes.map((node) => ({ host: node.host, port: node.port }));
  }

  node(port: number): ClusterNode {
    const found = this.nodes.find((node) => node.port === port);
    if (!found) throw new Error(`no cluster node on port ${port}`);
    return found;
  }

  private running(): Node[] {
    return this.nodes.filter((node) => node.running);
  }

  private applyTopology(entries: TopologyEntry[]): void {
    for (const entry of entries) {
      const node = this.nodes.find((candidate) => candidate.port === entry.port);
      if (!node) continue;
      node.role = entry.role;
      node.slots = entry.slots;
    }
  }

  async topology(): Promise<TopologyEntry[]> {
    let lastError: unknown;
    for (const node of this.running()) {
      try {
        const entries = parseClusterNodes(await respText(node.port, ["CLUSTER", "NODES"]));
        this.applyTopology(entries);
        return entries;
      } catch (error) {
        lastError = error;
      }
    }
    throw new Error(`no running cluster node answered CLUSTER NODES: ${(lastError as Error)?.message}`);
  }

  async masters(): Promise<ClusterNode[]> {
    const entries = await this.topology();
    return entries
      .filter((entry) => entry.role === "master" && entry.slots.length > 0 && !entry.flags.includes("fail"))
      .map((entry) => this.node(entry.port))
      .filter((node) => node.running);
  }

  async replicas(): Promise<ClusterNode[]> {
    const entries = await this.topology();
    return entries
      .filter((entry) => entry.role === "replica")
      .map((entry) => this.node(entry.port))
      .filter((node) => node.running);
  }

  async masterForKey(key: string): Promise<ClusterNode> {
    const [first] = this.running();
    if (!first) throw new Error("no cluster node is running");
    const slot = await respCall(first.port, ["CLUSTER", "KEYSLOT", key]);
    if (typeof slot !== "number") throw new Error(`CLUSTER KEYSLOT returned ${JSON.stringify(slot)}`);
    const entries = await this.topology();
    const owner = entries.find(
      (entry) =>
        entry.role === "master" &&
        !entry.flags.includes("fail") &&
        entry.slots.some(([start, end]) => start <= slot && slot <= end),
    );
    if (!owner) throw new Error(`no master owns slot ${slot} (key ${JSON.stringify(key)})`);
    return this.node(owner.port);
  }

  /** Why the cluster is not healthy yet, or undefined when it is. */
  private async problem(): Promise<string | undefined> {
    const running = this.running();
    if (running.length === 0) return "no node is running";
    const runningPorts = new Set(running.map((node) => node.port));
    let reference: string | undefined;
    for (const node of running) {
      const info = parseInfo(await respText(node.port, ["CLUSTER", "INFO"]));
      if (info.get("cluster_state") !== "ok")
        return `${node.port}: cluster_state:${info.get("cluster_state")}`;
      if (info.get("cluster_slots_ok") !== String(CLUSTER_SLOTS)) {
        return `${node.port}: cluster_slots_ok:${info.get("cluster_slots_ok")}`;
      }
      const entries = parseClusterNodes(await respText(node.port, ["CLUSTER", "NODES"]));
      const view: string[] = [];
      let mastersWithSlots = 0;
      for (const entry of entries) {
        if (entry.flags.some((flag) => flag === "handshake" || flag === "noaddr")) {
          return `${node.port} still shakes hands with ${entry.port}`;
        }
        if (!runningPorts.has(entry.port)) {
          if (!entry.flags.includes("fail"))
            return `${node.port} has not yet flagged dead ${entry.port} as fail`;
          if (entry.slots.length > 0) return `${node.port} still assigns slots to dead ${entry.port}`;
          continue;
        }
        if (entry.flags.includes("fail") || entry.flags.includes("fail?")) {
          return `${node.port} sees running ${entry.port} as ${entry.flags.join(",")}`;
        }
        if (entry.role === "master" && entry.slots.length > 0) mastersWithSlots++;
        view.push(`${entry.port}:${entry.role}:${entry.masterPort ?? "-"}:${rangesText(entry.slots)}`);
      }
      if (mastersWithSlots !== this.expectedMasters) {
        return `${node.port} sees ${mastersWithSlots} masters with slots, expected ${this.expectedMasters}`;
      }
      const signature = view.sort().join(" ");
      if (reference === undefined) reference = signature;
      else if (signature !== reference) return `nodes disagree on the topology: ${reference} vs ${signature}`;
      const replication = parseInfo(await respText(node.port, ["INFO", "replication"]));
      if (replication.get("role") === "slave" && replication.get("master_link_status") !== "up") {
        return `replica ${node.port}: master_link_status:${replication.get("master_link_status")}`;
      }
    }
    return undefined;
  }

  async waitUntilHealthy(options: WaitOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 20_000;
    const deadline = Date.now() + timeoutMs;
    let last = "not checked yet";
    for (;;) {
      try {
        const problem = await this.problem();
        if (problem !== last) debug(`wait: ${problem ?? "healthy"}`);
        if (problem === undefined) {
          await this.topology();
          return;
        }
        last = problem;
      } catch (error) {
        last = (error as Error).message;
      }
      if (Date.now() >= deadline) {
        const ports = this.nodes.map((node) => `${node.port}${node.running ? "" : " (down)"}`).join(", ");
        throw new Error(
          `Redis cluster (${ports}) not healthy after ${timeoutMs} ms: ${last}. ` +
            `Log of ${this.nodes[0].port}:\n${this.nodes[0].process.logTail(15)}`,
        );
      }
      await sleep(options.intervalMs ?? 50);
    }
  }

  async waitForReplication(options: WaitOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const deadline = Date.now() + timeoutMs;
    const entries = await this.topology();
    const targets = new Map<number, number>(); // replica port -> master offset to reach
    for (const entry of entries) {
      if (entry.role !== "replica" || entry.masterPort === undefined) continue;
      const replica = this.node(entry.port);
      const master = this.node(entry.masterPort);
      if (!replica.running || !master.running) continue;
      const info = parseInfo(await respText(master.port, ["INFO", "replication"]));
      targets.set(replica.port, Number(info.get("master_repl_offset")));
    }
    for (const [port, target] of targets) {
      let offset = -1;
      for (;;) {
        const info = parseInfo(await respText(port, ["INFO", "replication"]));
        offset = Number(info.get("slave_repl_offset"));
        if (offset >= target) break;
        if (Date.now() >= deadline) {
          throw new Error(`replica ${port} reached offset ${offset}, not ${target}, within ${timeoutMs} ms`);
        }
        await sleep(options.intervalMs ?? 10);
      }
    }
  }

  async waitForFailover(failed: ClusterNode, options: WaitOptions = {}): Promise<ClusterNode> {
    if (failed.running)
      throw new Error(`waitForFailover: node ${failed.port} is still running; kill it first`);
    const slots = failed.slots;
    if (failed.role !== "master" || slots.length === 0) {
      throw new Error(
        `waitForFailover: node ${failed.port} was not a master owning slots at the last refresh`,
      );
    }
    await this.waitUntilHealthy({ timeoutMs: 20_000, ...options });
    const [slot] = slots[0];
    const entries = await this.topology();
    const owner = entries.find(
      (entry) => entry.role === "master" && entry.slots.some(([start, end]) => start <= slot && slot <= end),
    );
    if (!owner || owner.port === failed.port) throw new Error(`slot ${slot} was not taken over`);
    return this.node(owner.port);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(this.nodes.map((node) => node.process.stop()));
    removeTempDir(this.dir);
  }
}

/** Starts masters * (1 + replicasPerMaster) cluster nodes, joins them with redis-cli --cluster create, waits. */
export async function startRedisCluster(options: StartRedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 2000;
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  if (masters < 3) throw new Error("Redis Cluster needs at least 3 masters");
  requireExecutable("redis-server");
  requireExecutable("redis-cli");
  const began = Date.now();
  const deadline = began + startTimeoutMs;
  const dir = makeTempDir("cluster");
  const total = masters * (1 + replicasPerMaster);
  const started = await Promise.allSettled(
    Array.from({ length: total }, (_, index) =>
      startRedis({
        clusterBus: true,
        dir: join(dir, `node-${index}`),
        startTimeoutMs: Math.min(10_000, startTimeoutMs),
        args: (port) => [
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          join(dir, `nodes-${port}.conf`),
          "--cluster-node-timeout",
          String(nodeTimeoutMs),
          // A master waits repl-diskless-sync-delay (5 s by default) for more replicas before a full sync:
          // that alone would make every startup and every rejoin 5 s slower.
          "--repl-diskless-sync-delay",
          "0",
          ...(options.args ?? []),
        ],
      }),
    ),
  );
  const processes = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const cluster = new Cluster(
    processes.map((process) => new Node(process)),
    dir,
    masters,
  );
  try {
    const failure = started.find((result) => result.status === "rejected");
    if (failure) throw failure.reason;
    debug(`cluster: ${total} nodes up after ${Date.now() - began} ms`);
    await redisCli(
      [
        "--cluster",
        "create",
        ...processes.map((process) => `${LOOPBACK}:${process.port}`),
        "--cluster-replicas",
        String(replicasPerMaster),
        "--cluster-yes",
      ],
      Math.max(1000, deadline - Date.now()),
    );
    debug(`cluster: redis-cli --cluster create done after ${Date.now() - began} ms`);
    await cluster.waitUntilHealthy({ timeoutMs: Math.max(1000, deadline - Date.now()), intervalMs: 25 });
    debug(`cluster: healthy after ${Date.now() - began} ms`);
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/** The master that currently owns `key`'s slot (CLUSTER KEYSLOT + CLUSTER NODES). */
export function masterForKey(cluster: RedisCluster, key: string): Promise<ClusterNode> {
  return cluster.masterForKey(key);
}

/** Waits until a replica of the killed master `failed` was promoted and cluster_state is ok everywhere. */
export function waitForFailover(
  cluster: RedisCluster,
  failed: ClusterNode,
  options?: WaitOptions,
): Promise<ClusterNode> {
  return cluster.waitForFailover(failed, options);
}
