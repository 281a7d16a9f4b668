/**
 * Adaptive batching for one Redis node: Nagle's rule for script calls, without a timer.
 *
 * Model: store calls queue in arrival order. Queued calls leave together as one script call (at most `maxBatch`
 * items; a larger single call leaves alone) when
 * - a whole batch is queued (`maxBatch` items): it leaves at once while fewer than {@link FULL_IN_FLIGHT} (or
 *   `maxInFlight`, if larger) script calls are in flight, since waiting could only delay it; past that many,
 *   the node is not keeping up (a stall, or a backlog it drains slower than calls arrive) and the batch waits
 *   for a slot like a partial one, so the backlog stays in this queue, where it can be shed (below), rather than
 *   in the socket, where every call of it will be applied;
 * - else at the end of the event-loop turn (`setImmediate`, after every callback and microtask of the turn) in
 *   which the node has a free slot: fewer than `maxInFlight` of this queue's script calls await their answer.
 *   A slot is freed when an answer arrives, so what queued meanwhile leaves in the same turn, together with the
 *   calls made while that answer was handled (its callers' continuations, and every other request a server
 *   handled in that turn).
 *
 * So batches size themselves to the load: while a call is in flight the next one fills up, one round trip's
 * worth of decisions at a time, and one event-loop turn's calls never split into several script calls while
 * a slot is free. Under light load a call leaves at the end of its own turn (no timer, no added wait beyond the
 * turn); under heavy load few, large script calls carry the decisions, which is what Redis and the client
 * handle cheapest — each script call costs the client a socket write, a wake-up and a reply to parse, which on a
 * loaded or virtualised machine weigh more than the decisions it carries.
 *
 * Order: calls leave in arrival order and every script call of a node goes over one connection, so Redis
 * applies them in arrival order; the answers are the ones separate, sequential calls would get.
 *
 * Stalls: a call unanswered for {@link STALL_MS} (Redis busy, a wedged connection, a reply that never comes) stops
 * holding its slot and is marked stalled; its answer, if it comes, still settles its callers. While a stalled call
 * is unanswered, the connection is open but silent: what is written to it now is applied when Redis runs again,
 * after the callers' timeouts have answered them (counted twice), so queued calls do not go on leaving as if it
 * were healthy. At most one call (a probe) leaves per stall period, and only while no other call holds a slot;
 * the rest stays queued, where the calls that time out meanwhile are shed (below). The first answer to a call
 * sent after the stalled ones (or to the last stalled one) ends the stall: Redis answers one connection's calls in
 * order, so the stalled ones have been answered too, or never will be. The check runs on one timer, armed only
 * while calls wait for a slot.
 *
 * Shedding: a queued call whose {@link CallTicket} is settled when its turn to leave comes (its caller's timeout
 * answered it meanwhile) is dropped — handed to `drop`, never sent. So after a stall (Redis busy, the client's own
 * loop held up by a long task or a collection) the backlog of calls nobody waits for any more costs neither Redis
 * time nor a second count of a request its failure policy already answered, and the live calls behind it leave at
 * once instead of queueing behind dead ones. A ticket is also marked `queued` while its call waits here, and
 * unmarked as the call leaves, so that the caller's timeout can tell a call Redis never saw (this process's own
 * backlog) from one Redis did not answer (`CallTicket.queued`).
 */
import type { CallTicket } from "../store.js";
import type { Group } from "./protocol.js";

/**
 * How long an unanswered script call holds its slot, in ms, before it counts as stalled; while one is stalled, one
 * probe call leaves per this period (see the module comment).
 */
export const STALL_MS = 100;

/**
 * Script calls in flight under which a whole batch leaves at once (with `maxBatch` 64: 512 decisions, twice the
 * most a closed loop of 256 callers keeps in flight).
 */
export const FULL_IN_FLIGHT = 8;

/** What a queue holds: a store call, by its group. */
export interface Batchable {
  /** The call's group (its item count is what `maxBatch` bounds). */
  readonly group: Group;
  /** Whether the caller still waits (see the module comment); undefined: always sent. */
  readonly ticket: CallTicket | undefined;
}

/**
 * Sends one script call holding `batch` (in order) and calls `answered` exactly once: when its reply or its
 * error arrives, or at once when nothing could be sent. Settling the calls in `batch` is the sender's job.
 */
export type BatchSender<T extends Batchable> = (batch: T[], answered: () => void) => void;

/** Options of {@link BatchQueue}. */
export interface BatchQueueOptions<T extends Batchable> {
  /** Most items per script call (a single call of more items goes alone). */
  readonly maxBatch: number;
  /** Script calls in flight before a partial batch waits for one to be answered. */
  readonly maxInFlight: number;
  /** Sends one script call. */
  readonly send: BatchSender<T>;
  /** Settles a call dropped unsent because its ticket was settled (see the module comment); must not throw. */
  readonly drop: (call: T) => void;
}

/** One node's queue of store calls; see the module comment. */
export class BatchQueue<T extends Batchable> {
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  /** Script calls in flight under which a whole batch leaves at once. */
  readonly #maxFullInFlight: number;
  readonly #send: BatchSender<T>;
  readonly #drop: (call: T) => void;
  /** Queued calls are `#queue[#head…]`. */
  #queue: T[] = [];
  #head = 0;
  /** Items of the queued calls. */
  #items = 0;
  /** Ids of the script calls holding a slot (in flight, not yet stalled), in sending order. */
  readonly #slots = new Set<number>();
  /** Ids of the script calls that stalled (gave up their slot) and are still unanswered, in sending order. */
  readonly #stalled = new Set<number>();
  /** Id of the last script call sent. */
  #lastId = 0;
  /** A flush is due at the end of this event-loop turn. */
  #scheduled = false;
  #stallTimer: ReturnType<typeof setTimeout> | undefined;

  /** Creates an empty queue. */
  constructor(options: BatchQueueOptions<T>) {
    this.#maxBatch = options.maxBatch;
    this.#maxInFlight = options.maxInFlight;
    this.#maxFullInFlight = Math.max(options.maxInFlight, FULL_IN_FLIGHT);
    this.#send = options.send;
    this.#drop = options.drop;
  }

  /** Calls waiting to be sent. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /** Script calls holding a slot. */
  get inFlight(): number {
    return this.#slots.size;
  }

  /** Queues `call`; it leaves as the module comment says. */
  push(call: T): void {
    const ticket = call.ticket;
    if (ticket !== undefined) ticket.queued = true;
    this.#queue.push(call);
    this.#items += call.group.items.length;
    if (this.#stalled.size > 0) {
      // A silent connection: the call waits for the next probe (the stall timer).
      if (this.#stallTimer === undefined) this.#armStallTimer();
      return;
    }
    while (this.#items >= this.#maxBatch && this.#slots.size < this.#maxFullInFlight) this.#sendOne();
    if (this.#head === this.#queue.length) return;
    if (this.#slots.size < this.#maxInFlight) this.#schedule();
    else if (this.#stallTimer === undefined) this.#armStallTimer();
  }

  /** Sends everything queued now, whatever is in flight (closing). */
  flushAll(): void {
    while (this.#head < this.#queue.length) this.#sendOne();
  }

  /** Sends what is queued at the end of this event-loop turn (once per turn), if a slot is still free then. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#onTurnEnd);
  }

  readonly #onTurnEnd = (): void => {
    this.#scheduled = false;
    this.#pump();
  };

  /** Sends queued calls while a slot is free (whole batches while fewer than `#maxFullInFlight` are in flight). */
  #pump(): void {
    if (this.#stalled.size > 0) {
      if (this.#head < this.#queue.length && this.#stallTimer === undefined) this.#armStallTimer();
      return;
    }
    while (this.#items >= this.#maxBatch && this.#slots.size < this.#maxFullInFlight) this.#sendOne();
    while (this.#head < this.#queue.length && this.#slots.size < this.#maxInFlight) this.#sendOne();
    if (this.#head < this.#queue.length && this.#stallTimer === undefined) this.#armStallTimer();
  }

  /**
   * Sends the calls at the head of the queue, up to `maxBatch` items (at least one call), as one script call;
   * drops the settled ones among them (those do not count toward `maxBatch`). Sends nothing when all were dropped.
   * `limit`: most items, instead of `maxBatch` (a probe sends one call).
   */
  #sendOne(limit = this.#maxBatch): void {
    const queue = this.#queue;
    const start = this.#head;
    let end = start;
    let items = 0;
    let droppedItems = 0;
    // Set apart only once a call is dropped (the live calls before it copied then); until then the batch is the
    // slice [start, end).
    let dropped: T[] | undefined;
    let live: T[] | undefined;
    while (end < queue.length) {
      const call = queue[end];
      const n = call.group.items.length;
      if (call.ticket?.settled) {
        if (dropped === undefined) {
          dropped = [];
          live = queue.slice(start, end);
        }
        dropped.push(call);
        droppedItems += n;
        end++;
        continue;
      }
      if (items > 0 && items + n > limit) break;
      items += n;
      const ticket = call.ticket;
      if (ticket !== undefined) ticket.queued = false; // it leaves now
      live?.push(call);
      end++;
    }
    const batch = live ?? (start === 0 && end === queue.length ? queue : queue.slice(start, end));
    this.#items -= items + droppedItems;
    if (end === queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (end > 1024 && end * 2 > queue.length) {
      this.#queue = queue.slice(end);
      this.#head = 0;
    } else {
      this.#head = end;
    }
    if (dropped !== undefined) for (const call of dropped) this.#drop(call);
    if (batch.length === 0) return;
    const id = ++this.#lastId;
    this.#slots.add(id);
    let answered = false;
    this.#send(batch, () => {
      if (answered) return;
      answered = true;
      const held = this.#slots.delete(id);
      if (this.#stalled.size > 0) {
        // An answer: the connection speaks again. Stalled calls sent before this one are answered (or never will be).
        for (const stalled of this.#stalled) {
          if (stalled > id) break;
          this.#stalled.delete(stalled);
        }
        if (this.#stalled.size > 0) return;
      } else if (!held) return;
      if (this.#head < this.#queue.length) this.#schedule();
    });
  }

  #armStallTimer(): void {
    const sentBefore = this.#lastId;
    this.#stallTimer = setTimeout(() => {
      this.#stallTimer = undefined;
      // Every call sent before the timer was armed has now been in flight for at least STALL_MS: stalled.
      for (const id of this.#slots) {
        if (id > sentBefore) break;
        this.#slots.delete(id);
        this.#stalled.add(id);
      }
      if (this.#stalled.size === 0) {
        this.#pump();
        return;
      }
      // One probe per stall period, while no other call holds a slot: one call, as whatever it carries is applied
      // whenever Redis runs again, likely after its caller's timeout.
      if (this.#slots.size === 0 && this.#head < this.#queue.length) this.#sendOne(1);
      if (this.#head < this.#queue.length || this.#slots.size > 0) this.#armStallTimer();
    }, STALL_MS);
    this.#stallTimer.unref?.();
  }
}
