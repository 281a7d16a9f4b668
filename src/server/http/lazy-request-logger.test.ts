import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { LazyRequestLogger } from "./lazy-request-logger.js";

function capture(): { lines: Record<string, unknown>[]; log: pino.Logger } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, log: pino({ level: "warn" }, stream) };
}

describe("LazyRequestLogger", () => {
  it("builds the child only when something logs, with the request's bindings", () => {
    const { lines, log } = capture();
    let children = 0;
    const parent = Object.assign(Object.create(log), {
      child: (b: pino.Bindings, o?: pino.ChildLoggerOptions) => {
        children++;
        return log.child(b, o);
      },
    });
    const lazy = new LazyRequestLogger(parent, { reqId: "req-7" }, {});
    expect(children).toBe(0);
    expect(lazy.level).toBe("warn");
    lazy.info("not logged at warn");
    expect(children).toBe(1);
    lazy.warn({ x: 1 }, "logged");
    lazy.error("also");
    expect(children).toBe(1);
    expect(lines.map((l) => [l.msg, l.reqId, l.x])).toEqual([
      ["logged", "req-7", 1],
      ["also", "req-7", undefined],
    ]);
    lazy.child({ sub: true }).warn("from a child");
    expect(lines[2]).toMatchObject({ msg: "from a child", reqId: "req-7", sub: true });
  });
});
