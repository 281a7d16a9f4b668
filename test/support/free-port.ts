// Free loopback TCP ports for test servers.
//
// A port is "free" when we can listen on it ourselves. The kernel picks one (listen on port 0); every
// listener is held open until the whole batch is chosen, so one call never hands out the same port twice.
// There is still a window between closing our listener and redis-server binding the port, so callers that
// spawn servers retry with fresh ports when the bind fails (startRedis does).
import net from "node:net";

export const LOOPBACK = "127.0.0.1";

/** Redis Cluster listens on port + 10000 for its node-to-node bus. */
export const CLUSTER_BUS_OFFSET = 10_000;

/** Never hand these out, even if they happen to be free: 6379 belongs to the machine's own Redis. */
const NEVER = new Set([6379, 6379 + CLUSTER_BUS_OFFSET]);

/** Ports this process handed out recently, so two calls in one process do not race each other. */
const recentlyHandedOut = new Set<number>();

function rememberHandedOut(port: number): void {
  recentlyHandedOut.add(port);
  // Forget after a while: by then the server that asked for the port is listening on it (or gave up).
  setTimeout(() => recentlyHandedOut.delete(port), 30_000).unref();
}

function listen(port: number, host: string): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once("error", () => resolve(undefined));
    server.listen({ port, host, exclusive: true }, () => resolve(server));
  });
}

function close(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function portOf(server: net.Server): number {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("listener has no TCP address");
  return address.port;
}

/** True when nothing listens on `host:port` right now (we could bind it ourselves). */
export async function isPortFree(port: number, host: string = LOOPBACK): Promise<boolean> {
  const server = await listen(port, host);
  if (server === undefined) return false;
  await close(server);
  return true;
}

export interface FreePortOptions {
  /** Also require port + 10000 (the Redis Cluster bus port) to be free, and port + 10000 <= 65535. */
  clusterBus?: boolean;
  host?: string;
}

/** `count` distinct free ports on the loopback interface. */
export async function getFreePorts(count: number, options: FreePortOptions = {}): Promise<number[]> {
  const host = options.host ?? LOOPBACK;
  const held: net.Server[] = [];
  const ports: number[] = [];
  try {
    for (let attempts = 0; ports.length < count; attempts++) {
      if (attempts > count * 50) {
        throw new Error(
          `could not find ${count} free loopback port(s) on ${host} after ${attempts} attempts`,
        );
      }
      const server = await listen(0, host);
      if (server === undefined) continue;
      held.push(server);
      const port = portOf(server);
      if (NEVER.has(port) || recentlyHandedOut.has(port) || ports.includes(port)) continue;
      if (options.clusterBus) {
        const bus = port + CLUSTER_BUS_OFFSET;
        if (bus > 65_535 || NEVER.has(bus) || recentlyHandedOut.has(bus)) continue;
        const busServer = await listen(bus, host);
        if (busServer === undefined) continue;
        held.push(busServer);
      }
      ports.push(port);
    }
  } finally {
    await Promise.all(held.map(close));
  }
  for (const port of ports) {
    rememberHandedOut(port);
    if (options.clusterBus) rememberHandedOut(port + CLUSTER_BUS_OFFSET);
  }
  return ports;
}

/** One free loopback port. */
export async function getFreePort(options: FreePortOptions = {}): Promise<number> {
  const [port] = await getFreePorts(1, options);
  return port;
}
