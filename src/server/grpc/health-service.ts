/**
 * The standard gRPC health service (`grpc.health.v1.Health`) of the Sluice server: one serving status for the
 * whole server (service name `""`) and for each served service, all switched together by
 * {@link HealthState.setServing} (the service composition turns it off while draining, as envoyproxy/ratelimit
 * does on SIGTERM, so load balancers stop sending before the server stops).
 *
 * - `Check` answers the current status; an unknown service name is `NOT_FOUND` (as the protocol specifies).
 * - `Watch` streams the current status at once, then each change, until the client cancels or the server closes
 *   ({@link HealthState.close} ends every stream). An unknown service is answered `SERVICE_UNKNOWN` and the stream
 *   stays open, as the protocol specifies. At most {@link MAX_HEALTH_WATCHERS} streams are open at a time (beyond,
 *   `RESOURCE_EXHAUSTED`), so idle watchers cannot grow memory without bound.
 *
 * Health calls bypass the in-flight gate: they are cheap, must keep answering while the server sheds load, and a
 * `Watch` stream lives for as long as its client wants (it must not hold a slot the gate drains on).
 */
import {
  type ServerUnaryCall,
  type ServerWritableStream,
  type StatusObject,
  type sendUnaryData,
  status,
} from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { grpc as grpcPb } from "./gen/protos.js";
import { grpcHealthV1, MalformedMessage } from "./service-definitions.js";

type HealthCheckRequest = grpcPb.health.v1.HealthCheckRequest;
type HealthCheckResponseProps = grpcPb.health.v1.HealthCheckResponse.$Properties;

/** Most `Watch` streams open at once. */
export const MAX_HEALTH_WATCHERS = 1024;

const ServingStatus = grpcHealthV1.HealthCheckResponse.ServingStatus;

/** A watcher: called with each new status of the service it watches. */
type Watcher = (servingStatus: number) => void;

/** The serving status of the server and of each of its services, with change notification. */
export class HealthState {
  readonly #statuses = new Map<string, number>();
  readonly #watchers = new Map<Watcher, { service: string; end: () => void }>();
  #closed = false;

  /** Creates the state for `""` and each name of `services`, all serving or all not. */
  constructor(services: readonly string[], serving: boolean) {
    const s = serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    this.#statuses.set("", s);
    for (const name of services) this.#statuses.set(name, s);
  }

  /** Sets every status to SERVING (true) or NOT_SERVING (false), notifying the watchers of each change. */
  setServing(serving: boolean): void {
    const s = serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    for (const [name, old] of this.#statuses) {
      if (old === s) continue;
      this.#statuses.set(name, s);
      for (const [watcher, w] of this.#watchers) if (w.service === name) watcher(s);
    }
  }

  /** The status of `service` (`""`: the server), or undefined when it is not served. */
  get(service: string): number | undefined {
    return this.#statuses.get(service);
  }

  /** Open `Watch` streams. */
  get watchers(): number {
    return this.#watchers.size;
  }

  /**
   * Registers `watcher` for changes of `service` and `end` for when the state closes; false when the state is
   * closed or {@link MAX_HEALTH_WATCHERS} are registered.
   */
  watch(service: string, watcher: Watcher, end: () => void): boolean {
    if (this.#closed || this.#watchers.size >= MAX_HEALTH_WATCHERS) return false;
    this.#watchers.set(watcher, { service, end });
    return true;
  }

  /** Unregisters `watcher`. */
  unwatch(watcher: Watcher): void {
    this.#watchers.delete(watcher);
  }

  /** Ends every `Watch` stream and refuses new ones (the server is closing). */
  close(): void {
    this.#closed = true;
    const ends = [...this.#watchers.values()];
    this.#watchers.clear();
    for (const w of ends) w.end();
  }
}

/** The handlers of `grpc.health.v1.Health` over `state`; they never throw. */
export function healthHandlers(
  state: HealthState,
  log: Logger,
): {
  Check: (
    call: ServerUnaryCall<HealthCheckRequest | MalformedMessage, HealthCheckResponseProps>,
    callback: sendUnaryData<HealthCheckResponseProps>,
  ) => void;
  Watch: (
    call: ServerWritableStream<HealthCheckRequest | MalformedMessage, HealthCheckResponseProps>,
  ) => void;
} {
  const malformed = (m: MalformedMessage): Partial<StatusObject> => ({
    code: status.INVALID_ARGUMENT,
    details: `request: not a valid grpc.health.v1.HealthCheckRequest (${m.reason})`,
  });
  return {
    Check(call, callback) {
      try {
        const req = call.request;
        if (req instanceof MalformedMessage) return callback(malformed(req));
        const s = state.get(req.service);
        if (s === undefined) {
          return callback({
            code: status.NOT_FOUND,
            details: `service: "${req.service}" is not served here`,
          });
        }
        callback(null, { status: s });
      } catch (error) {
        log.error({ err: error }, "grpc health Check failed");
        callback({ code: status.INTERNAL, details: "internal error" });
      }
    },
    Watch(call) {
      try {
        const req = call.request;
        if (req instanceof MalformedMessage) {
          call.emit("error", malformed(req));
          return;
        }
        const service = req.service;
        let last = -1;
        const send: Watcher = (s) => {
          if (s === last || call.cancelled || call.writableEnded) return;
          last = s;
          call.write({ status: s });
        };
        const end = (): void => {
          if (!call.writableEnded) call.end();
        };
        if (!state.watch(service, send, end)) {
          call.emit("error", {
            code: status.RESOURCE_EXHAUSTED,
            details: `too many health watchers (at most ${MAX_HEALTH_WATCHERS}) or the server is closing`,
          });
          return;
        }
        call.on("cancelled", () => state.unwatch(send));
        call.on("close", () => state.unwatch(send));
        call.on("error", () => state.unwatch(send));
        send(state.get(service) ?? ServingStatus.SERVICE_UNKNOWN);
      } catch (error) {
        log.error({ err: error }, "grpc health Watch failed");
        try {
          call.emit("error", { code: status.INTERNAL, details: "internal error" });
        } catch {
          // The stream is already gone.
        }
      }
    },
  };
}
