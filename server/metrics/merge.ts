/**
 * Merges the Prometheus text renders of several registries into one exposition: each metric
 * family once (its `# HELP` and `# TYPE` from the first render that has it), followed by every
 * render's samples of it, families in order of first appearance. Concatenating renders would
 * not do: a second `# TYPE` line for a family is an error to Prometheus. The renders are
 * MetricsRegistry's (every family's HELP and TYPE before its samples); series of different
 * processes differ by their `process` label, so no sample is repeated.
 * @module
 */

interface FamilyLines {
  header: string[];
  samples: string[];
}

/** `# HELP name …` / `# TYPE name …`: the directive and the family name. */
const DIRECTIVE = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: |$)/;

export function mergeExpositions(texts: readonly string[]): string {
  const families = new Map<string, FamilyLines>();
  const familyNamed = (name: string): FamilyLines => {
    let f = families.get(name);
    if (f === undefined) {
      f = { header: [], samples: [] };
      families.set(name, f);
    }
    return f;
  };
  for (const text of texts) {
    let current: FamilyLines | undefined;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const d = DIRECTIVE.exec(line);
      if (d !== null) {
        current = familyNamed(d[2]!);
        if (!current.header.some((h) => h.startsWith(`# ${d[1]} `) || h === `# ${d[1]}`)) current.header.push(line);
        continue;
      }
      if (line.startsWith('#')) continue; // a comment
      // A sample before any HELP/TYPE (not MetricsRegistry's output): untyped, under its own name.
      (current ?? familyNamed(line.split(/[{ ]/, 1)[0]!)).samples.push(line);
    }
  }
  const out: string[] = [];
  for (const f of families.values()) out.push(...f.header, ...f.samples);
  return out.length === 0 ? '' : out.join('\n') + '\n';
}
