/**
 * A Prometheus histogram with one label, counted in plain arrays and rendered by a prom-client registry.
 *
 * prom-client's own `Histogram.observe` validates and hashes its label object on every call (about a microsecond
 * here), which the data plane pays once per request. A {@link CountingHistogram} resolves a label value to its
 * series once ({@link CountingHistogram.series}) and then counts with a bucket search and three additions; the
 * registry reads it only when scraped, through the same `get` / `getForPromString` shape prom-client's histograms
 * give, so the exposition is identical (`<name>_bucket{le="…",<label>="…"}` cumulative, `+Inf`, `_sum`,
 * `_count`, series in order of first use).
 *
 * Invariants: buckets are ascending upper bounds in seconds (or whatever unit the caller observes in); a value is
 * counted in the first bucket whose bound is >= it, else only in `+Inf`; a non-finite value is ignored (nothing a
 * stopwatch returns).
 */
import type { Registry } from "prom-client";

/** One label value's series: observe values into it. */
export interface HistogramSeries {
  /** Counts one observation of `value` (ignored when not finite). */
  observe(value: number): void;
}

/** Options of {@link CountingHistogram}. */
export interface CountingHistogramOptions {
  /** The metric name (`_bucket`, `_sum` and `_count` are appended to it). */
  readonly name: string;
  /** The `# HELP` text. */
  readonly help: string;
  /** The one label's name. */
  readonly labelName: string;
  /** Ascending upper bounds of the buckets (`+Inf` is implicit). */
  readonly buckets: readonly number[];
  /** Registries to register into. */
  readonly registers: readonly Registry[];
}

/** One exported sample, in prom-client's metric-object shape. */
interface Sample {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
  exemplar?: null;
}

class Series implements HistogramSeries {
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly bounds: readonly number[],
    readonly labelValue: string,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

/** A one-label histogram counted in arrays (see the module comment); registered into `registers` at creation. */
export class CountingHistogram {
  /** The metric name. */
  readonly name: string;
  /** The help text. */
  readonly help: string;
  /** Always `histogram`. */
  readonly type = "histogram";
  /** How prom-client's cluster aggregator merges it. */
  readonly aggregator = "sum";
  readonly #labelName: string;
  readonly #bounds: readonly number[];
  #series = new Map<string, Series>();

  /** Creates the histogram and registers it; throws `TypeError` for unsorted or non-finite buckets. */
  constructor(options: CountingHistogramOptions) {
    const b = options.buckets;
    for (let i = 0; i < b.length; i++) {
      if (!Number.isFinite(b[i]) || (i > 0 && b[i] <= b[i - 1])) {
        throw new TypeError(`${options.name}: buckets must be finite and ascending`);
      }
    }
    this.name = options.name;
    this.help = options.help;
    this.#labelName = options.labelName;
    this.#bounds = [...b];
    for (const r of options.registers) r.registerMetric(this as never);
  }

  /** The series of `labelValue` (created on first use); keep it to observe without a lookup. */
  series(labelValue: string): HistogramSeries {
    let s = this.#series.get(labelValue);
    if (s === undefined) {
      s = new Series(this.#bounds, labelValue);
      this.#series.set(labelValue, s);
    }
    return s;
  }

  /** Forgets every series (prom-client's `Registry.resetMetrics`); series handed out before keep counting alone. */
  reset(): void {
    this.#series = new Map();
  }

  /** The samples with the label as a shared label, as prom-client's text exposition reads them. */
  async getForPromString(): Promise<{
    name: string;
    help: string;
    type: "histogram";
    values: Sample[];
    aggregator: "sum";
  }> {
    const values: Sample[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const s of this.#series.values()) {
      const shared = { [this.#labelName]: s.labelValue };
      let acc = 0;
      for (let i = 0; i < this.#bounds.length; i++) {
        acc += s.counts[i];
        values.push({
          labels: { le: this.#bounds[i] },
          sharedLabels: shared,
          value: acc,
          metricName: bucketName,
          exemplar: null,
        });
      }
      values.push(
        {
          labels: { le: "+Inf" },
          sharedLabels: shared,
          value: s.count,
          metricName: bucketName,
          exemplar: null,
        },
        { labels: {}, sharedLabels: shared, value: s.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: shared, value: s.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The samples with every label in `labels` (prom-client's `getMetricsAsJSON` shape). */
  async get(): Promise<{
    name: string;
    help: string;
    type: "histogram";
    values: Sample[];
    aggregator: "sum";
  }> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ labels, sharedLabels, ...rest }) => ({
      ...rest,
      labels: { ...labels, ...sharedLabels },
    }));
    return data;
  }
}
