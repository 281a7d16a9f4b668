// Benchmark output (DESIGN §8): a readable table on stdout, then one JSON line per result:
// {"bench":"memory","case":"gcra allowed","subject":"sluice","metric":"ops_per_s","value":1.2e7}
// Ratios are lines with "metric":"ratio" and "subject":"a/b".

/** Collects results and prints them as a table plus JSON lines. */
export class Report {
  constructor(bench) {
    this.bench = bench;
    this.rows = [];
  }

  add(caseName, subject, metric, value, extra = {}) {
    this.rows.push({ bench: this.bench, case: caseName, subject, metric, value, ...extra });
  }

  /**
   * Adds the ratio `a/b` of one metric. When both rows carry `replicas` (the values of several processes running the
   * same subject; the row's value is their mean), the ratio also gives the range of every replica of `a` against
   * every replica of `b` (`replica_ratio_min`, `replica_ratio_max`).
   */
  ratio(caseName, a, b, metric = "ops_per_s", target) {
    const ra = this.rows.find((r) => r.case === caseName && r.subject === a && r.metric === metric);
    const rb = this.rows.find((r) => r.case === caseName && r.subject === b && r.metric === metric);
    if (ra === undefined || rb === undefined) return;
    const extra = target === undefined ? {} : { target };
    if (ra.replicas !== undefined && rb.replicas !== undefined) {
      const pairs = ra.replicas.flatMap((x) => rb.replicas.map((y) => x / y));
      extra.replica_ratio_min = Math.min(...pairs);
      extra.replica_ratio_max = Math.max(...pairs);
    }
    this.add(caseName, `${a}/${b}`, "ratio", ra.value / rb.value, extra);
  }

  print() {
    const fmt = (r) => {
      if (r.metric === "ratio") {
        const range =
          r.replica_ratio_min === undefined
            ? ""
            : `  (replicas ${r.replica_ratio_min.toFixed(2)}–${r.replica_ratio_max.toFixed(2)})`;
        return `${r.value.toFixed(2)}×${range}${r.target !== undefined ? `  (target ${r.target})` : ""}`;
      }
      if (r.metric === "ops_per_s") return `${(r.value / 1e6).toFixed(2)} M/s`;
      if (r.metric === "bytes_per_key") return `${r.value.toFixed(1)} B`;
      if (r.metric.endsWith("_pct")) return `${r.value.toFixed(3)} %`;
      if (r.metric.endsWith("_us")) return `${r.value.toFixed(1)} µs`;
      return String(Number.isInteger(r.value) ? r.value : r.value.toFixed(3));
    };
    const cols = [
      ["case", (r) => r.case],
      ["subject", (r) => r.subject],
      ["metric", (r) => r.metric],
      ["value", fmt],
    ];
    const widths = cols.map(([h, f]) => Math.max(h.length, ...this.rows.map((r) => f(r).length)));
    const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
    console.log(line(cols.map(([h]) => h)));
    console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
    for (const r of this.rows) console.log(line(cols.map(([, f]) => f(r))));
    console.log("");
    for (const r of this.rows) console.log(JSON.stringify(r));
  }
}

/** The median of a list of numbers. */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
