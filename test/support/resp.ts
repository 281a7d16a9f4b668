// A tiny one-shot RESP2 client used by the harness itself to probe servers (PING, INFO, CLUSTER ...).
// It opens a connection, sends one command, reads one reply and closes: no reconnects, no queues, nothing
// that can hide a dead server the way a full client's retry logic would.
import net from "node:net";
import { LOOPBACK } from "./free-port.js";

export type RespValue = string | number | null | RespValue[];

/** An error reply (-ERR ...) from the server. */
export class RespReplyError extends Error {
  override name = "RespReplyError";
}

interface Parsed {
  value: RespValue | RespReplyError;
  end: number;
}

const CRLF = "\r\n";

/** Parses one reply starting at `offset`; undefined when the buffer does not hold all of it yet. */
function parse(buffer: Buffer, offset: number): Parsed | undefined {
  const lineEnd = buffer.indexOf(CRLF, offset);
  if (lineEnd === -1) return undefined;
  const type = String.fromCharCode(buffer[offset]);
  const line = buffer.toString("utf8", offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return { value: line, end: next };
    case "-":
      return { value: new RespReplyError(line), end: next };
    case ":":
      return { value: Number(line), end: next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString("utf8", next, next + length), end: next + length + 2 };
    }
    case "*": {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let position = next;
      for (let i = 0; i < length; i++) {
        const item = parse(buffer, position);
        if (item === undefined) return undefined;
        if (item.value instanceof RespReplyError) throw item.value;
        items.push(item.value);
        position = item.end;
      }
      return { value: items, end: position };
    }
    default:
      throw new Error(`unexpected RESP type byte ${JSON.stringify(type)}`);
  }
}

function encode(args: readonly string[]): string {
  let out = `*${args.length}${CRLF}`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}${CRLF}${arg}${CRLF}`;
  return out;
}

export interface RespCallOptions {
  host?: string;
  /** Whole-call deadline (connect + reply). Default 1000 ms. */
  timeoutMs?: number;
}

/** Sends one command to `host:port` and resolves with its reply; rejects on error replies and timeouts. */
export function respCall(
  port: number,
  args: readonly string[],
  options: RespCallOptions = {},
): Promise<RespValue> {
  const host = options.host ?? LOOPBACK;
  const timeoutMs = options.timeoutMs ?? 1000;
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    let settled = false;
    const socket = net.connect({ port, host });
    const finish = (error: Error | undefined, value?: RespValue) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value ?? null);
    };
    const timer = setTimeout(
      () => finish(new Error(`${args[0]} to ${host}:${port} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.setNoDelay(true);
    socket.once("connect", () => socket.write(encode(args)));
    socket.on("data", (chunk) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      try {
        const parsed = parse(buffer, 0);
        if (parsed === undefined) return;
        if (parsed.value instanceof RespReplyError) finish(parsed.value);
        else finish(undefined, parsed.value);
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.once("error", (error) => finish(error));
    socket.once("close", () => finish(new Error(`${host}:${port} closed the connection before replying`)));
  });
}

/** Like respCall but expects a string reply (status or bulk), e.g. PING, INFO, CLUSTER INFO/NODES. */
export async function respText(
  port: number,
  args: readonly string[],
  options?: RespCallOptions,
): Promise<string> {
  const reply = await respCall(port, args, options);
  if (typeof reply !== "string") throw new Error(`${args.join(" ")} returned ${JSON.stringify(reply)}`);
  return reply;
}

/** Parses "key:value" lines of INFO / CLUSTER INFO into a map. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#")) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}
