/**
 * gRPC at the wire, for tests: frames built by hand, calls made on a raw `node:http2` session (so a test can send
 * what no gRPC client would), and an engine wrapper that holds every check until released (calls in flight).
 */
import type { ClientHttp2Session } from "node:http2";
import type { Engine } from "../../src/engine/engine.js";

/** `message` behind the 5-byte gRPC prefix: compressed flag `flag`, big-endian length. */
export function grpcFrame(message: Uint8Array, flag = 0): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out[0] = flag;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** What came back from {@link rawGrpcCall}. */
export interface RawGrpcReply {
  /** `:status`. */
  httpStatus?: number;
  /** `content-type` of the answer. */
  contentType?: string;
  /** `grpc-status`, from the trailers or a trailers-only answer. */
  grpcStatus?: number;
  /** `grpc-message`, percent-decoded. */
  grpcMessage?: string;
  /** The response body (frames), as received. */
  body: Buffer;
  /** The stream's error, when it failed (reset, connection lost). */
  streamError?: string;
}

/** One call on `session`: POST `path` with `body` (and extra or replacing `headers`); resolves when it closed. */
export function rawGrpcCall(
  session: ClientHttp2Session,
  path: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<RawGrpcReply> {
  return new Promise((resolve) => {
    const reply: RawGrpcReply = { body: Buffer.alloc(0) };
    const chunks: Buffer[] = [];
    const take = (h: Record<string, unknown>): void => {
      if (h[":status"] !== undefined) reply.httpStatus = Number(h[":status"]);
      if (typeof h["content-type"] === "string") reply.contentType = h["content-type"];
      if (h["grpc-status"] !== undefined) reply.grpcStatus = Number(h["grpc-status"]);
      if (typeof h["grpc-message"] === "string") {
        try {
          reply.grpcMessage = decodeURIComponent(h["grpc-message"]);
        } catch {
          reply.grpcMessage = h["grpc-message"];
        }
      }
    };
    const req = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
      ...headers,
    });
    req.on("response", take);
    req.on("trailers", take);
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("error", (e: Error) => {
      reply.streamError = e.message;
    });
    req.on("close", () => {
      reply.body = Buffer.concat(chunks);
      resolve(reply);
    });
    req.end(body);
  });
}

/** Holds every `check` of the engines it wraps until {@link HeldChecks.release}. */
export interface HeldChecks {
  /** Wraps an engine (a harness's `wrapEngine`). */
  readonly wrap: (engine: Engine) => Engine;
  /** Lets every held check (and every later one) run. */
  release(): void;
  /** Checks that have started (and waited, until released). */
  readonly entered: number;
  /** Resolves when the first check has started. */
  readonly started: Promise<void>;
}

/** A {@link HeldChecks}: calls stay in flight until the test releases them. */
export function heldChecks(): HeldChecks {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let first!: () => void;
  const started = new Promise<void>((resolve) => {
    first = resolve;
  });
  let entered = 0;
  return {
    wrap: (engine) =>
      new Proxy(engine, {
        get(target, prop, receiver) {
          if (prop === "check") {
            return async (req: Parameters<Engine["check"]>[0]) => {
              entered++;
              first();
              await held;
              return target.check(req);
            };
          }
          const v = Reflect.get(target, prop, receiver);
          return typeof v === "function" ? v.bind(target) : v;
        },
      }),
    release: () => release(),
    get entered() {
      return entered;
    },
    started,
  };
}
