// A raw HTTP/1.1 client connection for tests that need what an HTTP client library hides: pipelining several
// requests on one connection, reading each answer's `Connection` header, and seeing when the server closes it.
//
//   const c = await openRawConnection(port);
//   c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");   // pipelined
//   await c.waitForResponses(2);
//   const closed = await c.closed;                        // { byServer: true } once the server sent its FIN
//   parseResponses(c.text())                              // [{ status, headers, body }, …]
import net from "node:net";

/** One parsed answer. */
export interface RawResponse {
  readonly status: number;
  /** Header fields, names lower-cased (the last of repeated ones). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** How a raw connection ended. */
export interface RawClose {
  /** True when the server ended it (FIN or reset) before this side did. */
  readonly byServer: boolean;
  /** The socket error, if it ended with one (e.g. `ECONNRESET`). */
  readonly errorCode: string | undefined;
}

/** An open raw connection. */
export interface RawConnection {
  /** Writes `data` as is. */
  send(data: string): void;
  /** Everything received so far (latin1). */
  text(): string;
  /** Resolves once `n` complete answers were received; rejects if the connection closes first. */
  waitForResponses(n: number): Promise<RawResponse[]>;
  /** Resolves when the connection has closed. */
  readonly closed: Promise<RawClose>;
  /** Closes it from this side (idempotent). */
  destroy(): void;
}

/**
 * Parses the complete answers at the start of `text` (each with `Content-Length`, as every answer of the service
 * has); an incomplete one at the end is left out.
 */
export function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end < 0) return out;
    const lines = text.slice(at, end).split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    if (end + 4 + length > text.length) return out;
    out.push({ status, headers, body: text.slice(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
}

/** Connects to `host:port`; rejects when the connection is refused. */
export function openRawConnection(port: number, host = "127.0.0.1"): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    let received = "";
    let byServer = false;
    let errorCode: string | undefined;
    const waiters = new Set<() => void>();
    socket.on("data", (d: Buffer) => {
      received += d.toString("latin1");
      for (const w of waiters) w();
    });
    socket.on("end", () => {
      byServer = true;
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      errorCode = e.code;
      if (e.code !== "ECONNREFUSED") byServer = true;
    });
    const closed = new Promise<RawClose>((done) => {
      socket.on("close", () => {
        done({ byServer, errorCode });
        for (const w of waiters) w();
      });
    });
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve({
        send: (data) => socket.write(data),
        text: () => received,
        waitForResponses: (n) =>
          new Promise((done, fail) => {
            const check = (): void => {
              const responses = parseResponses(received);
              if (responses.length >= n) {
                waiters.delete(check);
                done(responses);
              } else if (socket.destroyed) {
                waiters.delete(check);
                fail(
                  new Error(`the connection closed after ${responses.length} of ${n} answers:\n${received}`),
                );
              }
            };
            waiters.add(check);
            check();
          }),
        closed,
        destroy: () => socket.destroy(),
      });
    });
  });
}

/** Whether a new connection to `host:port` is refused. */
export async function connectionRefused(port: number, host = "127.0.0.1"): Promise<boolean> {
  try {
    const c = await openRawConnection(port, host);
    c.destroy();
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ECONNREFUSED";
  }
}
