/**
 * The graceful drain of the service's HTTP/1.1 server (the SIGTERM path), the counterpart of the gRPC side's
 * GOAWAY: the server stops taking connections, and each open one is told it is the last exchange and closed once
 * its answers are out, instead of being cut under requests it was still owed an answer for.
 *
 * **Model.** {@link HttpDrain.start} (once; later calls return the same promise):
 * - the listening socket closes (new connections are refused) and connections with no request in progress close
 *   at once (`server.close()`, which runs Node's `closeIdleConnections`);
 * - every response whose headers are written from then on carries `Connection: close` (RFC 9112 §9.6) and its
 *   connection closes once it is sent, except one with a later request already received on its connection
 *   (pipelined): that one keeps the connection for the later answers, the last of which carries the close. So a
 *   request arriving on a connection still open during the drain (pipelined behind a request in flight, or whose
 *   bytes were still arriving) is answered by its route (`/v1/check` and `/v1/auth`: 503 from the draining
 *   in-flight gate; `/readyz`: 503 not ready), never dropped unanswered; only requests sent behind a response that
 *   said `close` go unanswered, as RFC 9112 §9.3.2 has clients expect;
 * - a connection left idle after a response whose headers went out before the drain (with `keep-alive`: a
 *   request pipelined before SIGTERM, answered after) closes as soon as that response is sent (a request whose
 *   header bytes were still arriving on it then is cut, as on any idle keep-alive connection a server closes);
 * - it resolves true once every connection has closed, or false when `timeoutMs` passed first, after destroying
 *   the connections still open (their requests get no answer). Node stops its request-timeout sweep on
 *   `server.close()`, so a connection stalled mid-request is held until then, not answered 408.
 *
 * **Cost outside a drain:** one property write per request (its connection's latest request, which Node's parser
 * holds anyway) and one flag test per response's headers (a `ServerResponse` subclass given to `createServer`).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import {
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  type Server,
  ServerResponse,
} from "node:http";
import type { Socket } from "node:net";
import { type Scheduler, systemScheduler } from "../../core/clock.js";

/** Where a connection keeps the latest request received on it. */
const LATEST_REQUEST = Symbol("sluice.latestRequest");

/** A connection with its latest request; `_httpMessage` is Node's response being written on it, if any. */
type MarkedSocket = Socket & { [LATEST_REQUEST]?: IncomingMessage; _httpMessage?: unknown };

/** Node's diagnostics channel for each finished response of any `node:http` server (before Node handles it). */
const RESPONSE_FINISH_CHANNEL = "http.server.response.finish";

/** The drain of one HTTP server; see the module comment. */
export class HttpDrain {
  #draining = false;
  #drained: Promise<boolean> | undefined;
  /**
   * The response class for `createServer`'s `ServerResponse` option: while draining, a response that is the latest
   * on its connection sends `Connection: close` (Node then ends the connection after it).
   */
  readonly ServerResponse: typeof ServerResponse<IncomingMessage>;

  constructor() {
    const drain = this;
    this.ServerResponse = class DrainAwareResponse extends ServerResponse {
      override writeHead(
        statusCode: number,
        reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
        headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
      ): this {
        if (drain.#draining && (this.req.socket as MarkedSocket | null)?.[LATEST_REQUEST] === this.req) {
          this.shouldKeepAlive = false;
        }
        // Node's writeHead takes headers in the place of the reason phrase too.
        return super.writeHead(statusCode, reasonOrHeaders as string | undefined, headers);
      }
    };
  }

  /** Whether {@link HttpDrain.start} was called. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Notes `req` as the latest request of its connection; the server's request listener calls it for each one. */
  static noteRequest(req: IncomingMessage): void {
    const socket = req.socket as MarkedSocket | null;
    if (socket !== null) socket[LATEST_REQUEST] = req;
  }

  /**
   * Drains `server` (whose responses are {@link HttpDrain.ServerResponse}s): see the module comment. Resolves true
   * once every connection closed, false when `timeoutMs` (ms, on `scheduler`) passed first and the remaining
   * connections were destroyed. The same promise on every call.
   */
  start(server: Server, timeoutMs: number, scheduler: Scheduler = systemScheduler): Promise<boolean> {
    this.#drained ??= new Promise<boolean>((resolve) => {
      this.#draining = true;
      const stop = new AbortController();
      let timedOut = false;
      // A response finished: if nothing is queued behind it on its connection (Node assigns the next one in the
      // same turn) and the connection is not already closing (a `close` answer), nothing more is owed on it.
      const closeIfIdle = (socket: MarkedSocket): void => {
        if (socket.destroyed || socket.writableEnded || socket._httpMessage != null) return;
        socket.destroy();
      };
      const onFinish = (message: unknown): void => {
        const m = message as { server?: unknown; socket?: MarkedSocket };
        if (m.server === server && m.socket !== undefined) setImmediate(closeIfIdle, m.socket);
      };
      subscribe(RESPONSE_FINISH_CHANNEL, onFinish);
      server.close(() => {
        // Every connection closed (or the server was not listening).
        unsubscribe(RESPONSE_FINISH_CHANNEL, onFinish);
        stop.abort();
        resolve(!timedOut);
      });
      scheduler.sleep(Math.max(0, timeoutMs), stop.signal).then(
        () => {
          timedOut = true;
          server.closeAllConnections();
        },
        () => undefined,
      );
    });
    return this.#drained;
  }
}
