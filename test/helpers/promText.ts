/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests of GET /metrics:
 * it throws on any line a Prometheus server would refuse (bad names, bad escapes, samples
 * before their TYPE, a TYPE given twice, non-cumulative histogram buckets).
 */

export interface Sample {
  /** The sample's own name (e.g. `x_bucket` for a histogram `x`). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string | undefined;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const HELP_RE = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE_RE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_RE = new RegExp(`^(${NAME})(\\{.*\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL_PAIR_RE = new RegExp(`^(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`);

function parseValue(s: string, line: string): number {
  if (s === 'NaN') return NaN;
  if (s === '+Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) throw new Error(`bad sample value ${JSON.stringify(s)} in ${JSON.stringify(line)}`);
  return Number(s);
}

function unescapeLabel(s: string): string {
  return s.replace(/\\([\\"n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text.slice(1, -1);
  while (rest.length > 0) {
    const m = LABEL_PAIR_RE.exec(rest);
    if (!m) throw new Error(`bad label set in ${JSON.stringify(line)}`);
    if (m[1]! in labels) throw new Error(`label ${m[1]} twice in ${JSON.stringify(line)}`);
    labels[m[1]!] = unescapeLabel(m[2]!);
    rest = rest.slice(m[0].length);
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (rest.length > 0) throw new Error(`bad label separator in ${JSON.stringify(line)}`);
  }
  return labels;
}

/** The family a sample name belongs to (histogram/summary suffixes stripped when declared so). */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct) return direct;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const f = families.get(name.slice(0, -suffix.length));
    if (f && (f.type === 'histogram' || (f.type === 'summary' && suffix !== '_bucket'))) return f;
  }
  return undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a line feed');
  const families = new Map<string, Family>();
  const helps = new Map<string, string>();
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      const m = HELP_RE.exec(line);
      if (!m) throw new Error(`bad HELP line ${JSON.stringify(line)}`);
      if (helps.has(m[1]!)) throw new Error(`HELP for ${m[1]} twice`);
      if (/\\[^\\n]/.test(m[2]!.replace(/\\\\/g, ''))) throw new Error(`bad escape in HELP ${JSON.stringify(line)}`);
      helps.set(m[1]!, m[2]!.replace(/\\([\\n])/g, (_, c: string) => (c === 'n' ? '\n' : '\\')));
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const m = TYPE_RE.exec(line);
      if (!m) throw new Error(`bad TYPE line ${JSON.stringify(line)}`);
      if (families.has(m[1]!)) throw new Error(`TYPE for ${m[1]} twice, or after its samples`);
      families.set(m[1]!, { name: m[1]!, help: helps.get(m[1]!), type: m[2] as Family['type'], samples: [] });
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE_RE.exec(line);
    if (!m) throw new Error(`bad sample line ${JSON.stringify(line)}`);
    const sample: Sample = { name: m[1]!, labels: m[2] ? parseLabels(m[2], line) : {}, value: parseValue(m[3]!, line) };
    let family = familyOf(sample.name, families);
    if (!family) {
      family = { name: sample.name, help: helps.get(sample.name), type: 'untyped', samples: [] };
      families.set(sample.name, family);
    }
    family.samples.push(sample);
  }
  for (const f of families.values()) {
    if (f.help === undefined) f.help = helps.get(f.name);
    if (f.type === 'histogram') checkHistogram(f);
  }
  return families;
}

/** Buckets cumulative and ordered by le, +Inf present and equal to _count, per label set. */
function checkHistogram(f: Family): void {
  const series = new Map<string, Sample[]>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    if (s.name === `${f.name}_bucket` && le === undefined) throw new Error(`${f.name}_bucket without le`);
    const key = JSON.stringify(Object.entries(rest).sort());
    series.set(key, [...(series.get(key) ?? []), s]);
  }
  for (const samples of series.values()) {
    const buckets = samples.filter((s) => s.name === `${f.name}_bucket`);
    const count = samples.find((s) => s.name === `${f.name}_count`);
    if (!count || !samples.some((s) => s.name === `${f.name}_sum`)) throw new Error(`${f.name}: series without _sum or _count`);
    let prevLe = -Infinity;
    let prev = 0;
    for (const b of buckets) {
      const le = parseValue(b.labels['le']!, b.name);
      if (le <= prevLe || b.value < prev) throw new Error(`${f.name}: buckets not ordered or not cumulative`);
      prevLe = le;
      prev = b.value;
    }
    if (prevLe !== Infinity || prev !== count.value) throw new Error(`${f.name}: last bucket must be le="+Inf" equal to _count`);
  }
}

/** The value of the one sample of `name` whose labels include `labels`; undefined if none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = familyOf(name, families);
  const found = family?.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ?? [];
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
