/**
 * A lean gRPC server on `node:http2` (cleartext, prior knowledge), for the unary and server-streaming methods
 * Sluice serves. It runs the very handlers written for grpc-js (`(call, callback)` for unary methods, `(call)` for
 * server streaming) over the same service definitions, with one `stream` event, one read of the request and one
 * write of the answer per call: none of grpc-js's per-call interceptor chain, metadata objects, decoder streams
 * or filter stacks. Measured beside grpc-js by `npm run bench -- service` (DESIGN §8).
 *
 * **Wire behaviour** (the gRPC over HTTP/2 protocol, as grpc-js answers it):
 * - a `content-type` not starting with `application/grpc` is answered HTTP 415, nothing else;
 * - an unknown `:path` is `UNIMPLEMENTED` (`The server does not implement the method …`);
 * - `grpc-timeout` (`1–8 digits` + `H M S m u n`) sets the deadline: at it, an unanswered call is answered
 *   `DEADLINE_EXCEEDED` and counts as cancelled (its late answer is dropped); an unparsable value is `INTERNAL`;
 * - the request is one length-prefixed message: a declared length above `maxReceiveMessageBytes` is
 *   `RESOURCE_EXHAUSTED` before anything is decoded (the stream is answered and the rest of its body ignored);
 *   none (or a body ending inside its message) and a second one are `UNIMPLEMENTED`;
 * - a compressed message (flag 1) is inflated when `grpc-encoding` is `gzip` or `deflate`, bounded by the same
 *   maximum (beyond: `RESOURCE_EXHAUSTED`), taken as is when it is `identity` or absent (as grpc-js does); any
 *   other encoding is `UNIMPLEMENTED`; answers are never compressed (`grpc-encoding: identity`);
 * - answers: `:status 200`, `content-type: application/grpc+proto`, one message, trailers `grpc-status` and
 *   `grpc-message` (percent-encoded with `encodeURI`, as grpc-js); an error before any message is one
 *   trailers-only HEADERS frame;
 * - a client's RST_STREAM (or a closed connection) cancels the call: streaming handlers see `cancelled`;
 * - a call answered before its client finished sending (a refusal above, 415, a deadline, the receive timeout) is
 *   then reset with RST_STREAM(NO_ERROR), as RFC 9113 §8.1 allows after a complete response, once the answer has
 *   left (see {@link refuse}): the client keeps the status and stops sending, and the stream frees its slot at once
 *   instead of being read and discarded until its client gives up (which held a SIGTERM drain to its timeout).
 *
 * **Bounds.** A call's request message must be in within `receiveTimeoutMs` of its headers, else the call is
 * answered DEADLINE_EXCEEDED, its bytes are dropped and its stream reset (streams left unfinished cannot hold
 * memory); a `grpc-timeout` longer than a timer holds (~24.8 days) is no deadline; a `grpc-message` is clipped to
 * 1,024 characters (one may quote the request, and a header block over 64 KiB would reset the stream without a
 * status).
 *
 * **Receive budget.** The in-flight gate counts a call only once its message is in, so the calls still receiving
 * are bounded here, server-wide, in bytes: each is charged {@link RECEIVING_CALL_BYTES} for its stream, its header
 * block as HPACK sizes it (name + value + 32 per field) and, once its length prefix is in, 5 + the declared length
 * (what it may still send: `#data` refuses a byte more). A call that does not fit in what is left of
 * `maxReceiveBufferBytes` is answered `RESOURCE_EXHAUSTED` at its headers or its prefix; the charge is returned when
 * the message is in (the gate takes over), or the call is answered or closed. Without it, each connection could hold
 * `maxConcurrentStreams` unfinished 64 KiB messages, and a few connections grew the process without bound (a review
 * measured 388 → 1,168 MB in 6 s from 20 connections, still rising); with the default 64 MiB budget the same flood
 * took it from 95 to 258 MB, where it stayed, all but ~900 of its 20,000 streams refused.
 *
 * **Connections.** At most `maxConnections` per listening address (the objects of calls past the receive budget,
 * and sessions themselves, cost memory per connection; see "Idle connections" for what happens at the cap); at
 * most `maxConcurrentStreams` streams each (HTTP/2 SETTINGS); a keepalive PING every `keepaliveTimeMs`, the
 * connection destroyed when one is not acknowledged within `keepaliveTimeoutMs`; after `maxConnectionAgeMs` (±10 %
 * jitter, as grpc-js) a GOAWAY, then `maxConnectionAgeGraceMs` for the calls in flight before the connection is
 * destroyed. Transport timers run on the process's timers (`setTimeout`, unref'd): they bound sockets, not rate
 * limit decisions, which read the service's `Clock`.
 *
 * **Idle connections.** A connection is *idle* while it has no open stream (from its accept until its first
 * stream, and from its last stream's close until the next). A client answering keepalive PINGs could otherwise
 * hold an idle connection, and a slot of the connection cap, for `maxConnectionAgeMs` (24 h), and one that sends
 * nothing at all until its keepalive PING goes unanswered (80 s by default). Three bounds:
 * - handshake deadline: a connection whose client has not sent the HTTP/2 preface and its SETTINGS within
 *   `handshakeTimeoutMs` of its accept is destroyed (it never spoke HTTP/2: no GOAWAY), as the HTTP server's
 *   request timeout closes a connection that sends no request;
 * - idle limit (gRPC's MAX_CONNECTION_IDLE, grpc-js's `grpc.max_connection_idle_ms`): a connection idle for
 *   `maxConnectionIdleMs` gets a GOAWAY(NO_ERROR) and is closed; a gRPC client reconnects when it next calls;
 * - the cap evicts: at most `maxConnections` per listening address; a connection accepted at the cap closes the
 *   one of that address idle the longest (GOAWAY, as the idle limit), and is refused (destroyed as accepted) only
 *   when none is idle. So connections that open no stream cannot lock clients out, while connections with calls
 *   in flight (a health `Watch` included) are never closed for room.
 *
 * **Handlers.** A unary handler receives `{ request, cancelled, metadata (lazy), getPath() }` and a
 * callback `(error | null, response?)`; a server-streaming handler an `EventEmitter` with `request`,
 * `cancelled`, `writableEnded`, `write(message)`, `end()`, and `emit("error", status)` to end with a status,
 * emitting `cancelled` and `close`. That is the part of grpc-js's call objects Sluice's handlers use (the wire
 * tests run every handler over both servers).
 */
import { EventEmitter } from "node:events";
import {
  constants,
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import type { AddressInfo } from "node:net";
import { gunzipSync, inflateSync } from "node:zlib";
import { Metadata, type StatusObject, status } from "@grpc/grpc-js";
import { monotonicClock } from "../../core/clock.js";
import { clipDetails } from "./grpc-call.js";

/** What {@link H2GrpcServer} needs of a method definition (grpc-js's `MethodDefinition`). */
export interface H2MethodDefinition {
  /** `/package.Service/Method`. */
  readonly path: string;
  /** Always false here: client streaming is not served. */
  readonly requestStream: boolean;
  /** Whether the server answers with a stream of messages. */
  readonly responseStream: boolean;
  /** Decodes a request (never throws; see service-definitions.ts). */
  readonly requestDeserialize: (bytes: Buffer) => unknown;
  /** Encodes a response. */
  readonly responseSerialize: (message: never) => Buffer;
}

/** A status a handler answers with. */
type HandlerStatus = Partial<StatusObject> | null;

/** A unary handler, grpc-js shaped. */
type UnaryHandler = (call: never, callback: (error: HandlerStatus, response?: unknown) => void) => void;
/** A server-streaming handler, grpc-js shaped. */
type StreamHandler = (call: never) => void;

/** How a unary handler is called here. */
type UnaryCallShape = (call: Call, callback: (error: HandlerStatus, response?: unknown) => void) => void;

/** Options of {@link H2GrpcServer}. */
export interface H2GrpcServerOptions {
  /** Largest request message accepted (after inflation), bytes. */
  readonly maxReceiveMessageBytes: number;
  /** Keepalive ping interval, ms (0: none). */
  readonly keepaliveTimeMs: number;
  /** How long a ping may go unacknowledged, ms. */
  readonly keepaliveTimeoutMs: number;
  /** Connection age before a GOAWAY, ms. */
  readonly maxConnectionAgeMs: number;
  /** Grace after that GOAWAY before the connection is destroyed, ms. */
  readonly maxConnectionAgeGraceMs: number;
  /** Most concurrent streams per connection. */
  readonly maxConcurrentStreams: number;
  /**
   * Longest wait for a call's request message once its headers are in, ms (`Infinity`: none). Past it the call is
   * answered DEADLINE_EXCEEDED and what it sent is dropped, so streams that never finish their message cannot hold
   * memory: HTTP's `requestTimeoutMs` for gRPC.
   */
  readonly receiveTimeoutMs: number;
  /**
   * Most bytes the calls still receiving their request may be charged together, server-wide (see the module's
   * "Receive budget"); beyond it a call is refused `RESOURCE_EXHAUSTED`. Must exceed `maxReceiveMessageBytes` by a
   * header block and {@link RECEIVING_CALL_BYTES}, or the largest message could never be received.
   */
  readonly maxReceiveBufferBytes: number;
  /**
   * Most open connections per listening address: one accepted beyond it closes the address's longest-idle
   * connection, or is destroyed when none is idle (see the module's "Idle connections").
   */
  readonly maxConnections: number;
  /**
   * Longest a connection may stay with no open stream before it gets a GOAWAY and is closed, ms (gRPC's
   * MAX_CONNECTION_IDLE; 0, or more than a timer holds (~24.8 days): never).
   */
  readonly maxConnectionIdleMs: number;
  /**
   * Longest wait, from a connection's accept, for its client's HTTP/2 preface and SETTINGS, ms; past it the
   * connection is destroyed (`Infinity`: no deadline).
   */
  readonly handshakeTimeoutMs: number;
}

/** What the server tracks of one listening address. */
interface Listener {
  /** Its open connections (one closed for room leaves at once). */
  readonly sessions: Set<ServerHttp2Session>;
  /**
   * Its connections with no open stream, the longest idle first: a connection enters at its accept and whenever
   * its last stream closes, and leaves when a stream opens or it closes (a Set iterates in insertion order).
   */
  readonly idle: Set<ServerHttp2Session>;
}

/** What the server tracks of one connection. */
interface SessionState {
  /** The listening address that accepted it. */
  readonly listener: Listener;
  /** Its streams opened and not yet closed; 0: it is idle. */
  streams: number;
  /** Fires `maxConnectionIdleMs` after it last turned idle (re-armed then); undefined: no idle limit. */
  idleTimer: NodeJS.Timeout | undefined;
  /** Its transport timers (keepalive, handshake, idle, age), cleared when it closes. */
  readonly timers: NodeJS.Timeout[];
}

/** A registered method. */
interface Route {
  readonly def: H2MethodDefinition;
  readonly unary: UnaryHandler | undefined;
  readonly stream: StreamHandler | undefined;
  /** `Received no request message for … method <path>` and its second-message twin. */
  readonly noMessage: string;
  readonly secondMessage: string;
}

const GRPC_TIMEOUT = /^(\d{1,8})\s*([HMSmun])$/;

/**
 * What a call still receiving its request is charged for its stream and call objects, bytes, beyond its headers and
 * message: measured on Node 20 with 5,000 streams held open, ~2 KiB of heap and ~8 KiB of resident memory each.
 */
export const RECEIVING_CALL_BYTES = 8192;

/** HPACK's size of a header field beyond its name and value (RFC 7541 §4.1), bytes. */
const HEADER_FIELD_OVERHEAD_BYTES = 32;

/** The longest delay a Node timer takes (2³¹ − 1 ms, ~24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const TIMEOUT_UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 0.001,
  n: 0.000001,
};

/** Response headers of every answer that carries a message (grpc-js's defaults). */
const RESPONSE_HEADERS = Object.freeze({
  [constants.HTTP2_HEADER_STATUS]: 200,
  [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
  "grpc-accept-encoding": "identity,deflate,gzip",
  "grpc-encoding": "identity",
});

const OK_TRAILERS = Object.freeze({ "grpc-status": "0", "grpc-message": "OK" });

/** Headers of a trailers-only (error) answer, before its `grpc-status` and `grpc-message`. */
const ERROR_HEADERS = Object.freeze({
  [constants.HTTP2_HEADER_STATUS]: 200,
  [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
});

const RESPOND_WITH_TRAILERS = Object.freeze({ waitForTrailers: true });
const END_STREAM = Object.freeze({ endStream: true });

/** Ignores an error event (every stream and session gets it: an unhandled one would end the process). */
function ignore(): void {}

/** `'wantTrailers'` listener of a successful unary answer (`this`: the stream). */
function sendOkTrailers(this: ServerHttp2Stream): void {
  try {
    this.sendTrailers(OK_TRAILERS);
  } catch {
    // The stream closed meanwhile: nothing to send.
  }
}

/**
 * How long {@link resetOnceSent} waits for an early answer to leave before resetting its stream regardless:
 * {@link ANSWER_SENT_POLLS} looks, {@link ANSWER_SENT_POLL_MS} ms apart (5 s). An answer still unsent then sits
 * behind writes its client does not read; the stream is reset anyway, so it cannot hold its slot for longer.
 */
const ANSWER_SENT_POLLS = 500;
/** Time between two looks of {@link resetOnceSent}, ms. */
const ANSWER_SENT_POLL_MS = 10;

/**
 * Answers `stream` with one HEADERS frame that ends it (`headers`: a trailers-only status, or a bare HTTP status).
 * When its client may still be sending, the stream is then reset with RST_STREAM(NO_ERROR) by
 * {@link resetOnceSent}, once that frame has left; until then what arrives is read and dropped.
 */
function refuse(stream: ServerHttp2Stream, headers: Record<string, string | number>): void {
  try {
    if (!stream.destroyed && !stream.closed) stream.respond(headers, END_STREAM);
  } catch {
    // The stream closed between the check and the write.
  }
  if (stream.readableEnded || stream.endAfterHeaders || stream.destroyed || stream.closed) return;
  stream.resume();
  setImmediate(resetOnceSent, stream, 0);
}

/**
 * Resets `stream`, answered while its client was still sending, with RST_STREAM(NO_ERROR) once its answer (a
 * HEADERS frame with END_STREAM) has left: RFC 9113 §8.1 allows it after a complete response, the client stops
 * sending, and the stream closes now, freeing its concurrency slot and no longer holding a graceful shutdown.
 *
 * Why wait, and for what: `respond()` only queues the answer in nghttp2, which node:http2 serializes on a later
 * turn of the event loop (in a native immediate, or after the write in progress). A RST_STREAM submitted while the
 * answer is still queued can go out without it, nghttp2 dropping the queued HEADERS of a stream it is closing:
 * Node 22.23 does so for a reset in the same turn as the answer (the client saw the reset and no status; Node 20
 * and 24 flush the answer first), and nothing in node:http2's API orders the two. The stream's `state.localClose`
 * turns 1 once nghttp2 has serialized the frame carrying END_STREAM, here the answer; a reset submitted after that
 * is written after it, on every version. So: a first look on the next `setImmediate` (as node:http2's own graceful
 * close of a server stream does; the answer is out by then unless a write was in progress), then one every
 * {@link ANSWER_SENT_POLL_MS} ms, at most {@link ANSWER_SENT_POLLS} times.
 */
function resetOnceSent(stream: ServerHttp2Stream, polls: number): void {
  if (stream.destroyed || stream.closed) return;
  const state = stream.state;
  if (state.remoteClose === 1) return; // the client finished sending: the stream closes by itself
  if (state.localClose !== 1 && polls < ANSWER_SENT_POLLS) {
    setTimeout(resetOnceSent, ANSWER_SENT_POLL_MS, stream, polls + 1).unref();
    return;
  }
  try {
    stream.close(constants.NGHTTP2_NO_ERROR);
  } catch {
    // Already closing: nothing to reset.
  }
}

/** The trailers of gRPC status `code` with `details`. */
function statusTrailers(code: number, details: string): Record<string, string> {
  // Clipped: details may quote the request (a path, a header, a service name), and a header block over 64 KiB
  // would reset the stream without any status.
  return { "grpc-status": String(code), "grpc-message": encodeURI(clipDetails(details)) };
}

/** The trailers-only answer of gRPC status `code` with `details`. */
function statusHeaders(code: number, details: string): Record<string, string | number> {
  return { ...ERROR_HEADERS, ...statusTrailers(code, details) };
}

/** Ends `stream`, whose headers are sent, with `trailers` (nothing when it closed meanwhile). */
function endWithTrailers(stream: ServerHttp2Stream, trailers: Record<string, string>): void {
  if (stream.destroyed || stream.closed) return;
  try {
    stream.once("wantTrailers", () => {
      try {
        stream.sendTrailers(trailers);
      } catch {
        // The stream closed meanwhile: nothing to send.
      }
    });
    stream.end();
  } catch {
    // The stream closed between the check and the write.
  }
}

/** The 5-byte gRPC prefix followed by `message`, in one buffer. */
function framed(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

/** The deadline of `grpc-timeout` value `value` from now, ms of timeout; NaN when it does not parse. */
function timeoutMsOf(value: string): number {
  const m = GRPC_TIMEOUT.exec(value);
  if (m === null) return Number.NaN;
  return Number(m[1]) * (TIMEOUT_UNIT_MS[m[2]] as number);
}

/**
 * One call: one stream. Collects the request message, runs the handler, answers once. Every answer goes through
 * `#answer`, `end` or {@link Call.fail}, which do nothing once the call is done.
 */
class Call extends EventEmitter {
  /** The decoded request (set before the handler runs). */
  request: unknown = undefined;
  /** True once the client cancelled, the deadline passed, or the connection closed before the answer. */
  cancelled = false;
  /** True once the call is answered (or cancelled). */
  done = false;
  /** Streaming: whether `end()` or an error ended it. */
  writableEnded = false;
  #headersSent = false;
  #chunks: Buffer[] | undefined = undefined;
  #first: Buffer | undefined = undefined;
  #length = 0;
  #metadata: Metadata | undefined = undefined;
  /** The request message's declared length, once its prefix is in (-1 before). */
  #declared = -1;
  /** Bytes of the server's receive budget this call holds (0 once its message is in, or it is done). */
  #charged: number;
  #timer: NodeJS.Timeout | undefined = undefined;
  readonly #server: H2GrpcServer;
  readonly #stream: ServerHttp2Stream;
  readonly #headers: IncomingHttpHeaders;
  readonly #route: Route;
  readonly #callback: (error: HandlerStatus, response?: unknown) => void;

  constructor(
    server: H2GrpcServer,
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    route: Route,
    charged: number,
  ) {
    super();
    this.#server = server;
    this.#charged = charged;
    this.#stream = stream;
    this.#headers = headers;
    this.#route = route;
    this.#callback = (error, response) => {
      if (error !== null && error !== undefined) this.fail(error);
      else this.#answer(response);
    };
  }

  /** The request's metadata (built on first use, then kept). */
  get metadata(): Metadata {
    this.#metadata ??= Metadata.fromHttp2Headers(this.#headers);
    return this.#metadata;
  }

  /** The method's path. */
  getPath(): string {
    return this.#route.def.path;
  }

  /** Starts the call: deadline, then reading the body. */
  start(): void {
    const stream = this.#stream;
    const timeout = this.#headers["grpc-timeout"];
    if (timeout !== undefined) {
      const ms = timeoutMsOf(String(timeout));
      if (Number.isNaN(ms)) {
        this.fail({ code: status.INTERNAL, details: `Invalid grpc-timeout value "${timeout}"` });
        return;
      }
      // A deadline past what a timer can hold (clients send ~30 days, or the largest value, for "none") is none.
      if (ms <= MAX_TIMER_MS) {
        this.#timer = setTimeout(() => this.#expire(), ms);
        this.#timer.unref();
      }
    }
    this.#server.receiving(this);
    stream.on("data", (chunk: Buffer) => this.#data(chunk));
    stream.on("end", () => this.#end());
    stream.on("close", () => this.#closed());
  }

  #data(chunk: Buffer): void {
    if (this.done) return;
    if (this.#first === undefined) this.#first = chunk;
    else {
      this.#chunks ??= [this.#first];
      this.#chunks.push(chunk);
    }
    this.#length += chunk.length;
    // The declared length is checked as soon as the prefix is in: a message too big is refused unread.
    if (this.#length < 5) return;
    if (this.#declared === -1) {
      const head = this.#chunks === undefined ? this.#first : Buffer.concat(this.#chunks, 5);
      this.#declared = head.readUInt32BE(1);
      const max = this.#server.options.maxReceiveMessageBytes;
      if (this.#declared > max) {
        this.fail({
          code: status.RESOURCE_EXHAUSTED,
          details: `Received message larger than max (${this.#declared} vs ${max})`,
        });
        return;
      }
      // Charged for what it declared, before holding it: the budget bounds what may still arrive.
      if (!this.#server.charge(5 + this.#declared)) {
        this.fail(this.#server.overBudget());
        return;
      }
      this.#charged += 5 + this.#declared;
    }
    if (this.#length > 5 + this.#declared) {
      // Bytes beyond the one message: a second one. Refused now, so a body is never held beyond one message.
      this.fail({ code: status.UNIMPLEMENTED, details: this.#route.secondMessage });
    }
  }

  #end(): void {
    if (this.done) return;
    this.#stopReceiving();
    const route = this.#route;
    const body =
      this.#chunks !== undefined
        ? Buffer.concat(this.#chunks, this.#length)
        : (this.#first ?? Buffer.alloc(0));
    this.#chunks = undefined;
    this.#first = undefined;
    // `#data` refused anything past one message; an empty body, or one ending inside its message, carried none
    // (grpc-js answers the same).
    if (this.#declared === -1 || body.length < 5 + this.#declared) {
      this.fail({ code: status.UNIMPLEMENTED, details: route.noMessage });
      return;
    }
    let message = body.subarray(5);
    if (body[0] !== 0) {
      const inflated = this.#inflate(message);
      if (inflated === undefined) return;
      message = inflated;
    }
    this.request = route.def.requestDeserialize(message);
    try {
      if (route.unary !== undefined) (route.unary as unknown as UnaryCallShape)(this, this.#callback);
      else (route.stream as unknown as (c: Call) => void)(this);
    } catch {
      this.fail({ code: status.INTERNAL, details: "internal error" });
    }
  }

  /**
   * The compressed message inflated, or undefined (the call answered) when it cannot be. Flagged compressed with no
   * `grpc-encoding` (or `identity`), the bytes are taken as they are, as grpc-js takes them.
   */
  #inflate(message: Buffer): Buffer | undefined {
    const encoding = String(this.#headers["grpc-encoding"] ?? "identity");
    const max = this.#server.options.maxReceiveMessageBytes;
    if (encoding === "identity") return message;
    if (encoding !== "gzip" && encoding !== "deflate") {
      this.fail({
        code: status.UNIMPLEMENTED,
        details: `Received message compressed with unsupported encoding "${encoding}"`,
      });
      return undefined;
    }
    try {
      const options = { maxOutputLength: max };
      return encoding === "gzip" ? gunzipSync(message, options) : inflateSync(message, options);
    } catch (error) {
      const tooBig = (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
      this.fail(
        tooBig
          ? {
              code: status.RESOURCE_EXHAUSTED,
              details: `Received message that decompresses to a size larger than ${max}`,
            }
          : { code: status.INTERNAL, details: `Failed to decompress the message (${encoding})` },
      );
      return undefined;
    }
  }

  #expire(): void {
    this.#timer = undefined;
    if (this.done) return;
    this.fail({ code: status.DEADLINE_EXCEEDED, details: "Deadline exceeded" });
    this.#cancel();
  }

  /** The request message did not arrive within the server's `receiveTimeoutMs`: answered, its bytes dropped. */
  receiveTimedOut(timeoutMs: number): void {
    if (this.done) return;
    this.fail({
      code: status.DEADLINE_EXCEEDED,
      details: `Received no complete request message within ${timeoutMs} ms`,
    });
    this.#cancel();
  }

  #closed(): void {
    this.#stopReceiving();
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (!this.done) {
      this.done = true;
      this.#cancel();
    }
    this.writableEnded = true;
    this.emit("close");
  }

  /** The call no longer waits for its message: off the receive timeout's list, its budget charge returned. */
  #stopReceiving(): void {
    this.#server.received(this);
    if (this.#charged !== 0) {
      this.#server.discharge(this.#charged);
      this.#charged = 0;
    }
  }

  #cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.emit("cancelled");
  }

  /** Unary answer: one message and OK trailers. */
  #answer(response: unknown): void {
    if (this.done) return;
    let frame: Buffer;
    try {
      frame = framed(this.#route.def.responseSerialize(response as never));
    } catch {
      this.fail({ code: status.INTERNAL, details: "Failed to serialize the response" });
      return;
    }
    this.#settle();
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return;
    try {
      stream.respond(RESPONSE_HEADERS, RESPOND_WITH_TRAILERS);
      stream.once("wantTrailers", sendOkTrailers);
      stream.end(frame);
    } catch {
      // The stream closed between the check and the write.
    }
  }

  /** Answers with an error status: trailers-only when nothing was sent yet, else as trailers. */
  fail(error: Partial<StatusObject>): void {
    if (this.done) return;
    this.#settle();
    this.writableEnded = true;
    const code = error.code ?? status.UNKNOWN;
    const details = error.details ?? "";
    if (this.#headersSent) endWithTrailers(this.#stream, statusTrailers(code, details));
    else refuse(this.#stream, statusHeaders(code, details));
  }

  #settle(): void {
    this.done = true;
    this.#stopReceiving();
    this.#first = undefined;
    this.#chunks = undefined;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  // ------------------------------------------------------------------ server streaming (health Watch)

  /** Streaming: sends one message (headers first). */
  write(message: unknown): boolean {
    if (this.done || this.writableEnded) return false;
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return false;
    try {
      const frame = framed(this.#route.def.responseSerialize(message as never));
      if (!this.#headersSent) {
        stream.respond(RESPONSE_HEADERS, RESPOND_WITH_TRAILERS);
        this.#headersSent = true;
      }
      return stream.write(frame);
    } catch {
      return false;
    }
  }

  /** Streaming: ends with OK. */
  end(): void {
    if (this.done) return;
    this.writableEnded = true;
    if (!this.#headersSent) {
      this.fail({ code: status.OK, details: "OK" });
      return;
    }
    this.#settle();
    endWithTrailers(this.#stream, OK_TRAILERS);
  }

  /** `emit("error", status)` ends a streaming call with that status (grpc-js's convention). */
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === "error") {
      this.fail((args[0] ?? {}) as Partial<StatusObject>);
      return true;
    }
    return super.emit(event, ...args);
  }
}

/**
 * The lean gRPC server (see the module comment): `addService`, then `listen`; `tryShutdown` / `forceShutdown` as
 * grpc-js's.
 */
export class H2GrpcServer {
  /** The options in use. */
  readonly options: H2GrpcServerOptions;
  readonly #routes = new Map<string, Route>();
  /** Every open connection, across listening addresses. */
  readonly #sessions = new Map<ServerHttp2Session, SessionState>();
  /** One HTTP/2 server per bound address (grpc-js, too, may listen on several). */
  readonly #listeners: Http2Server[] = [];
  /** Calls whose request message is not in yet, by when their headers came (monotonic ms; oldest first). */
  readonly #receiving = new Map<Call, number>();
  /** Sweeps `#receiving` for calls past `receiveTimeoutMs`, while it holds any. */
  #sweeper: NodeJS.Timeout | undefined = undefined;
  /** Bytes charged to calls still receiving (see the module's "Receive budget"); 0 ≤ it ≤ maxReceiveBufferBytes. */
  #charged = 0;

  /** A server with no services, not listening. */
  constructor(options: H2GrpcServerOptions) {
    this.options = options;
  }

  /** Serves `implementation`'s handlers for the methods of `definition` (same keys). */
  addService(
    definition: Readonly<Record<string, H2MethodDefinition>>,
    implementation: Readonly<Record<string, (...args: never[]) => void>>,
  ): void {
    for (const [name, def] of Object.entries(definition)) {
      const handler = implementation[name];
      if (handler === undefined) continue;
      if (def.requestStream) throw new Error(`${def.path}: client streaming is not supported`);
      const kind = def.responseStream ? "server streaming" : "unary";
      this.#routes.set(def.path, {
        def,
        unary: def.responseStream ? undefined : (handler as unknown as UnaryHandler),
        stream: def.responseStream ? (handler as unknown as StreamHandler) : undefined,
        noMessage: `Received no request message for ${kind} method ${def.path}`,
        secondMessage: `Received a second request message for ${kind} method ${def.path}`,
      });
    }
  }

  /** Bytes of the receive budget held by calls still receiving their request (never above the budget). */
  get receiveBufferBytes(): number {
    return this.#charged;
  }

  /** Charges `bytes` to the receive budget: false, and nothing charged, when they do not fit in what is left. */
  charge(bytes: number): boolean {
    if (this.#charged + bytes > this.options.maxReceiveBufferBytes) return false;
    this.#charged += bytes;
    return true;
  }

  /** Returns `bytes` charged by {@link H2GrpcServer.charge} (never below 0: a double return cannot open room). */
  discharge(bytes: number): void {
    this.#charged = Math.max(0, this.#charged - bytes);
  }

  /** The status of a call refused for the receive budget. */
  overBudget(): Partial<StatusObject> {
    return {
      code: status.RESOURCE_EXHAUSTED,
      details: `the server is at its limit of request bytes being received (${this.options.maxReceiveBufferBytes}); retry later`,
    };
  }

  /** Notes that `call` waits for its request message (see `receiveTimeoutMs`). */
  receiving(call: Call): void {
    const timeoutMs = this.options.receiveTimeoutMs;
    if (!(timeoutMs < Number.POSITIVE_INFINITY)) return;
    this.#receiving.set(call, monotonicClock.nowMs());
    if (this.#sweeper === undefined) {
      // A sweep every tenth of the timeout (at least 10 ms, at most 1 s): a call is cut 0–10 % past it.
      const everyMs = Math.min(1000, Math.max(10, timeoutMs / 10));
      this.#sweeper = setInterval(() => this.#sweep(), everyMs);
      this.#sweeper.unref();
    }
  }

  /** Notes that `call` no longer waits for its request message (in, refused, or the stream closed). */
  received(call: Call): void {
    this.#receiving.delete(call);
  }

  #sweep(): void {
    const timeoutMs = this.options.receiveTimeoutMs;
    const cutoffMs = monotonicClock.nowMs() - timeoutMs;
    for (const [call, sinceMs] of this.#receiving) {
      if (sinceMs > cutoffMs) break; // insertion order: the rest came later
      this.#receiving.delete(call);
      call.receiveTimedOut(timeoutMs);
    }
    if (this.#receiving.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  /** Binds `host:port` (0: any free port) and resolves with the bound port; may be called for several addresses. */
  listen(host: string, port: number): Promise<number> {
    const server = createServer({ settings: { maxConcurrentStreams: this.options.maxConcurrentStreams } });
    // The connection cap is enforced per session (`#admit`), not by `net.Server.maxConnections`, which refuses the
    // newcomer before it can make room by closing an idle connection.
    const listener: Listener = { sessions: new Set(), idle: new Set() };
    server.on("session", (session) => this.#session(session, listener));
    server.on("sessionError", ignore);
    // Node passes the header fields as received as a fourth argument (@types/node declares three).
    const onStream = (
      stream: ServerHttp2Stream,
      headers: IncomingHttpHeaders,
      _flags: number,
      rawHeaders: readonly string[],
    ): void => this.#stream(stream, headers, rawHeaders);
    server.on("stream", onStream as (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void);
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      server.once("error", onError);
      server.listen(port, host, () => {
        server.off("error", onError);
        server.on("error", ignore);
        this.#listeners.push(server);
        resolve((server.address() as AddressInfo).port);
      });
    });
  }

  /** Stops accepting, sends every connection a GOAWAY, and calls `callback` once they all closed. */
  tryShutdown(callback: () => void): void {
    const listeners = this.#listeners.splice(0);
    let pending = this.#sessions.size + listeners.length + 1;
    const one = (): void => {
      if (--pending === 0) callback();
    };
    for (const session of this.#sessions.keys()) {
      if (session.closed || session.destroyed) one();
      else {
        session.once("close", one);
        session.close();
      }
    }
    for (const server of listeners) server.close(() => one());
    one();
  }

  /** Destroys every connection at once. */
  forceShutdown(): void {
    for (const session of this.#sessions.keys()) session.destroy();
    for (const server of this.#listeners.splice(0)) server.close();
  }

  /**
   * Takes connection `session`, just accepted on `listener`: admits it (see `#admit`), then arms
   * its keepalive, handshake deadline, idle limit and age, and counts its streams.
   */
  #session(session: ServerHttp2Session, listener: Listener): void {
    session.on("error", ignore);
    if (!this.#admit(listener)) {
      session.destroy(); // at the cap with no idle connection: refused as accepted
      return;
    }
    const o = this.options;
    const state: SessionState = { listener, streams: 0, idleTimer: undefined, timers: [] };
    const timers = state.timers;
    this.#sessions.set(session, state);
    listener.sessions.add(session);
    listener.idle.add(session);
    if (o.handshakeTimeoutMs < MAX_TIMER_MS) {
      // The client's first SETTINGS follows its preface (RFC 9113 §3.4): once in, the handshake is done.
      const handshake = setTimeout(() => session.destroy(), Math.max(1, o.handshakeTimeoutMs));
      handshake.unref();
      timers.push(handshake);
      session.once("remoteSettings", () => clearTimeout(handshake));
    }
    if (o.maxConnectionIdleMs > 0 && o.maxConnectionIdleMs <= MAX_TIMER_MS) {
      // One timer, re-armed (`refresh`) each time the connection turns idle: when it fires with no stream open,
      // the connection has been idle for the whole limit.
      state.idleTimer = setTimeout(() => {
        if (state.streams === 0) this.#closeIdle(session, state);
      }, o.maxConnectionIdleMs);
      state.idleTimer.unref();
      timers.push(state.idleTimer);
    }
    // Prepended, so a stream is counted before the server's `stream` listener answers it.
    session.prependListener("stream", (stream: ServerHttp2Stream) => {
      if (state.streams++ === 0) listener.idle.delete(session);
      stream.once("close", () => {
        if (--state.streams > 0 || session.closed || session.destroyed) return;
        listener.idle.add(session);
        state.idleTimer?.refresh();
      });
    });
    if (o.keepaliveTimeMs > 0 && o.keepaliveTimeMs < 2 ** 31) {
      const ping = setInterval(() => {
        if (session.destroyed || session.closed) return;
        const timeout = setTimeout(() => session.destroy(), o.keepaliveTimeoutMs);
        timeout.unref();
        try {
          const sent = session.ping(() => clearTimeout(timeout));
          if (!sent) clearTimeout(timeout);
        } catch {
          clearTimeout(timeout);
          session.destroy();
        }
      }, o.keepaliveTimeMs);
      ping.unref();
      timers.push(ping);
    }
    if (o.maxConnectionAgeMs > 0 && o.maxConnectionAgeMs < 2 ** 31) {
      const jitter = (Math.random() * 2 - 1) * (o.maxConnectionAgeMs / 10);
      const age = setTimeout(
        () => {
          try {
            session.goaway(constants.NGHTTP2_NO_ERROR);
            session.close();
          } catch {
            session.destroy();
            return;
          }
          const grace = setTimeout(() => session.destroy(), o.maxConnectionAgeGraceMs);
          grace.unref();
          timers.push(grace);
        },
        Math.min(2 ** 31 - 1, o.maxConnectionAgeMs + jitter),
      );
      age.unref();
      timers.push(age);
    }
    session.once("close", () => {
      this.#sessions.delete(session);
      listener.sessions.delete(session);
      listener.idle.delete(session);
      for (const t of timers) clearTimeout(t);
    });
  }

  /**
   * Whether `listener` has room for one more connection: below `maxConnections`, or at it with an idle connection,
   * which is then closed (`#closeIdle`, the longest idle first) to make that room.
   */
  #admit(listener: Listener): boolean {
    if (listener.sessions.size < this.options.maxConnections) return true;
    for (const session of listener.idle) {
      const state = this.#sessions.get(session);
      if (state === undefined || session.closed || session.destroyed) {
        listener.idle.delete(session); // closing already: its `close` is on its way
        continue;
      }
      this.#closeIdle(session, state);
      return true;
    }
    return false;
  }

  /**
   * Closes idle connection `session` with a GOAWAY(NO_ERROR) (`close()` sends it, and destroys a connection with
   * no stream open at once); it leaves its address's count now, so its room is free before its `close` event.
   */
  #closeIdle(session: ServerHttp2Session, state: SessionState): void {
    state.listener.sessions.delete(session);
    state.listener.idle.delete(session);
    if (session.closed || session.destroyed) return;
    try {
      session.close();
    } catch {
      session.destroy();
    }
  }

  #stream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: readonly string[]): void {
    stream.on("error", ignore);
    const contentType = headers[constants.HTTP2_HEADER_CONTENT_TYPE];
    if (typeof contentType !== "string" || !contentType.startsWith("application/grpc")) {
      refuse(stream, { [constants.HTTP2_HEADER_STATUS]: 415 });
      return;
    }
    const path = String(headers[constants.HTTP2_HEADER_PATH] ?? "");
    const route = this.#routes.get(path);
    if (route === undefined) {
      refuse(stream, statusHeaders(status.UNIMPLEMENTED, `The server does not implement the method ${path}`));
      return;
    }
    // Its stream and headers are charged before it reads a byte: streams that never send their message hold these.
    let bytes = RECEIVING_CALL_BYTES;
    for (const field of rawHeaders) bytes += field.length;
    bytes += (rawHeaders.length / 2) * HEADER_FIELD_OVERHEAD_BYTES;
    if (!this.charge(bytes)) {
      const refusal = this.overBudget();
      refuse(stream, statusHeaders(refusal.code as number, refusal.details as string));
      return;
    }
    new Call(this, stream, headers, route, bytes).start();
  }
}
