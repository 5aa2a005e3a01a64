/**
 * Counts kept with plain numbers on the request path and handed to prom-client only when scraped. Its own
 * metric types check and hash the labels of every observation (some 2 µs a request for a counter and a
 * histogram); these cost an array index and an add. They give prom-client's JSON shape (`get()`), so the
 * registry writes them and AggregatorRegistry sums them across processes like its own.
 */
import type { Registry } from 'prom-client';

/** One sample, as prom-client's metrics give them (`metricName` for a histogram's _bucket, _sum and _count). */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** A metric as prom-client's `get()` gives it. */
export interface TallyValues {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

/** HTTP statuses are below 600: an array indexed by status, filled so that it stays packed. */
const STATUSES = 600;

export class StatusCounter<K extends string> {
  readonly type = 'counter' as const;
  readonly aggregator = 'sum' as const;
  private readonly counts = new Map<K, number[]>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly keyLabel: string,
  ) {}

  /** The counts of one key (one label value), indexed by status: kept by the caller, incremented in place. */
  of(key: K): number[] {
    let counts = this.counts.get(key);
    if (counts === undefined) this.counts.set(key, (counts = new Array<number>(STATUSES).fill(0)));
    return counts;
  }

  get(): TallyValues {
    const values: Sample[] = [];
    for (const [key, counts] of this.counts) {
      counts.forEach((n, status) => {
        if (n > 0) values.push({ labels: { [this.keyLabel]: key, status }, value: n });
      });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }
}

export interface HistogramSeries {
  /** Observations per bucket (not cumulative); the last one is past the largest bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class Histogram<K extends string> {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly series = new Map<K | '', HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    /** The label whose value tells series apart; none for a histogram of one series. */
    private readonly keyLabel?: string,
  ) {}

  of(key: K | '' = ''): HistogramSeries {
    let s = this.series.get(key);
    if (s === undefined) {
      s = { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    return s;
  }

  observe(s: HistogramSeries, value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  get(): TallyValues {
    const values: Sample[] = [];
    for (const [key, s] of this.series) {
      const labels = this.keyLabel === undefined ? {} : { [this.keyLabel]: key };
      let cumulative = 0;
      s.counts.forEach((n, i) => {
        cumulative += n;
        const le = i < this.bounds.length ? this.bounds[i]! : '+Inf';
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: s.count, metricName: `${this.name}_count` });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }
}

/** Registers a tally with prom-client's registry, which asks it for its name, type and values only. */
export function register(registry: Registry, metric: StatusCounter<string> | Histogram<string>): void {
  registry.registerMetric(metric as never);
}
