/**
 * A small metrics registry rendering the Prometheus text exposition format 0.0.4: counters,
 * gauges and histograms with labels, `# HELP` / `# TYPE` lines, escaped label values and help
 * text. In-house because the node needs only this much; no dependency.
 *
 * Hot-path cost: one `inc`/`observe` is a label-key join and a Map lookup. Values that live
 * elsewhere (queue depth, tip height, memory) are read at scrape time by `collect` callbacks
 * rather than pushed on every change.
 * @module
 */

/** Label values by label name. */
export type Labels = Readonly<Record<string, string | number>>;

/** `text/plain; version=0.0.4`: what Prometheus expects from a text scrape. */
export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Joins label values into a map key; cannot occur in a value unescaped (values are strings). */
const KEY_SEPARATOR = '\u0000';

/** Label value escaping of the text format: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** HELP text escaping: backslash and line feed only. */
export function escapeHelp(help: string): string {
  return help.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

/** Sample values as the format spells them: Go float syntax, with NaN, +Inf and -Inf. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

interface MetricOptions {
  name: string;
  help: string;
  /** Label names every sample must carry (besides the registry's constant labels). @default none */
  labelNames?: readonly string[];
}

/** Runs at scrape time, before the metric is rendered: set gauges from their source here. */
type Collect<M> = (metric: M) => void | Promise<void>;

abstract class Metric {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];

  constructor(opts: MetricOptions, reserved: readonly string[]) {
    if (!METRIC_NAME.test(opts.name)) throw new RangeError(`metric name expected [a-zA-Z_:][a-zA-Z0-9_:]*, got ${JSON.stringify(opts.name)}`);
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = [...(opts.labelNames ?? [])];
    for (const l of this.labelNames) {
      if (!LABEL_NAME.test(l) || l.startsWith('__') || reserved.includes(l)) {
        throw new RangeError(`${opts.name}: label name ${JSON.stringify(l)} is not allowed`);
      }
    }
    if (new Set(this.labelNames).size !== this.labelNames.length) throw new RangeError(`${opts.name}: duplicate label names`);
  }

  /** The map key of one label set; throws when a declared label is missing or an extra one given. */
  protected keyOf(labels: Labels | undefined): string {
    const names = this.labelNames;
    if (names.length === 0) {
      if (labels !== undefined && Object.keys(labels).length > 0) throw new RangeError(`${this.name} takes no labels`);
      return '';
    }
    if (labels === undefined) throw new RangeError(`${this.name} expected labels ${names.join(', ')}`);
    let key = '';
    for (let i = 0; i < names.length; i++) {
      const v = labels[names[i]!];
      if (v === undefined) throw new RangeError(`${this.name} expected label ${names[i]}`);
      key += (i === 0 ? '' : KEY_SEPARATOR) + String(v);
    }
    if (Object.keys(labels).length !== names.length) throw new RangeError(`${this.name} expected exactly the labels ${names.join(', ')}`);
    return key;
  }

  /** `{a="x",b="y"}` for a label key (constant labels first); '' without labels. */
  protected labelText(constText: string, key: string, extra?: string): string {
    const parts: string[] = [];
    if (constText !== '') parts.push(constText);
    if (this.labelNames.length > 0) {
      const values = key.split(KEY_SEPARATOR);
      this.labelNames.forEach((n, i) => parts.push(`${n}="${escapeLabelValue(values[i]!)}"`));
    }
    if (extra !== undefined) parts.push(extra);
    return parts.length === 0 ? '' : `{${parts.join(',')}}`;
  }

  abstract collect(): Promise<void>;
  abstract samples(constText: string): string[];
}

export class Counter extends Metric {
  readonly type = 'counter' as const;
  private readonly values = new Map<string, number>();

  constructor(
    opts: MetricOptions,
    private readonly collectFn?: Collect<Counter>,
  ) {
    super(opts, []);
    if (this.labelNames.length === 0) this.values.set('', 0);
  }

  inc(labels?: Labels, by = 1): void {
    if (!(by >= 0)) throw new RangeError(`${this.name}: a counter only goes up, got ${by}`);
    const key = this.keyOf(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  /**
   * Mirrors a total counted elsewhere (e.g. in a `collect` callback); a smaller total than the
   * current one is ignored, so the counter never goes down.
   */
  setTotal(labels: Labels | undefined, total: number): void {
    const key = this.keyOf(labels);
    if (total > (this.values.get(key) ?? 0)) this.values.set(key, total);
  }

  get(labels?: Labels): number {
    return this.values.get(this.keyOf(labels)) ?? 0;
  }

  async collect(): Promise<void> {
    await this.collectFn?.(this);
  }

  samples(constText: string): string[] {
    return [...this.values].map(([key, v]) => `${this.name}${this.labelText(constText, key)} ${formatValue(v)}`);
  }
}

export class Gauge extends Metric {
  readonly type = 'gauge' as const;
  private readonly values = new Map<string, number>();

  constructor(
    opts: MetricOptions,
    private readonly collectFn?: Collect<Gauge>,
  ) {
    super(opts, []);
  }

  set(labels: Labels | undefined, value: number): void {
    this.values.set(this.keyOf(labels), value);
  }

  inc(labels?: Labels, by = 1): void {
    const key = this.keyOf(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  get(labels?: Labels): number | undefined {
    return this.values.get(this.keyOf(labels));
  }

  /** Drops every label set (e.g. before a collect callback sets the current ones). */
  reset(): void {
    this.values.clear();
  }

  async collect(): Promise<void> {
    await this.collectFn?.(this);
  }

  samples(constText: string): string[] {
    return [...this.values].map(([key, v]) => `${this.name}${this.labelText(constText, key)} ${formatValue(v)}`);
  }
}

interface HistogramSeries {
  /** Per bucket, not cumulative (made cumulative when rendered). */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Metric {
  readonly type = 'histogram' as const;
  readonly buckets: readonly number[];
  private readonly series = new Map<string, HistogramSeries>();

  constructor(opts: MetricOptions & { buckets: readonly number[] }) {
    super(opts, ['le']);
    const b = opts.buckets;
    if (b.length === 0 || b.some((x, i) => !Number.isFinite(x) || (i > 0 && x <= b[i - 1]!))) {
      throw new RangeError(`${opts.name}: buckets expected finite upper bounds in increasing order, got ${JSON.stringify(b)}`);
    }
    this.buckets = [...b];
  }

  observe(labels: Labels | undefined, value: number): void {
    const key = this.keyOf(labels);
    let s = this.series.get(key);
    if (s === undefined) {
      s = { counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    // Linear scan: ~12 buckets, cheaper than a binary search's bookkeeping at this size.
    const b = this.buckets;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    if (i < b.length) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  /** Observations of one label set so far. */
  count(labels?: Labels): number {
    return this.series.get(this.keyOf(labels))?.count ?? 0;
  }

  async collect(): Promise<void> {}

  samples(constText: string): string[] {
    const out: string[] = [];
    for (const [key, s] of this.series) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        out.push(`${this.name}_bucket${this.labelText(constText, key, `le="${formatValue(le)}"`)} ${cumulative}`);
      });
      out.push(`${this.name}_bucket${this.labelText(constText, key, 'le="+Inf"')} ${s.count}`);
      out.push(`${this.name}_sum${this.labelText(constText, key)} ${formatValue(s.sum)}`);
      out.push(`${this.name}_count${this.labelText(constText, key)} ${s.count}`);
    }
    return out;
  }
}

export interface RegistryOptions {
  /** Labels added to every sample, e.g. `{process: '…'}`. @default none */
  constLabels?: Labels;
  /** A collect callback failed (its metric keeps its previous values). @default ignored */
  onCollectError?: (metric: string, err: unknown) => void;
}

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();
  private readonly constNames: readonly string[];
  private readonly constText: string;
  private readonly onCollectError: RegistryOptions['onCollectError'];

  constructor(opts: RegistryOptions = {}) {
    this.onCollectError = opts.onCollectError;
    const entries = Object.entries(opts.constLabels ?? {});
    for (const [n] of entries) {
      if (!LABEL_NAME.test(n) || n.startsWith('__') || n === 'le') throw new RangeError(`constant label name ${JSON.stringify(n)} is not allowed`);
    }
    this.constNames = entries.map(([n]) => n);
    this.constText = entries.map(([n, v]) => `${n}="${escapeLabelValue(String(v))}"`).join(',');
  }

  counter(opts: MetricOptions, collect?: Collect<Counter>): Counter {
    return this.add(new Counter(opts, collect));
  }

  gauge(opts: MetricOptions, collect?: Collect<Gauge>): Gauge {
    return this.add(new Gauge(opts, collect));
  }

  histogram(opts: MetricOptions & { buckets: readonly number[] }): Histogram {
    return this.add(new Histogram(opts));
  }

  private add<M extends Metric>(m: M): M {
    if (this.metrics.has(m.name)) throw new RangeError(`metric ${m.name} is already registered`);
    const clash = m.labelNames.find((l) => this.constNames.includes(l));
    if (clash !== undefined) throw new RangeError(`${m.name}: label ${clash} is a constant label of the registry`);
    this.metrics.set(m.name, m);
    return m;
  }

  /**
   * Runs every collect callback (a failing one leaves its metric as it was: one broken source
   * must not hide the rest), then renders all metrics in registration order.
   */
  async render(): Promise<string> {
    await Promise.all(
      [...this.metrics.values()].map(async (m) => {
        try {
          await m.collect();
        } catch (err) {
          this.onCollectError?.(m.name, err);
        }
      }),
    );
    const lines: string[] = [];
    for (const m of this.metrics.values()) {
      lines.push(`# HELP ${m.name} ${escapeHelp(m.help)}`, `# TYPE ${m.name} ${m.type}`, ...m.samples(this.constText));
    }
    return lines.join('\n') + '\n';
  }
}
