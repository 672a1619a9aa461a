/**
 * The command lines of this package's programs (the node, the miner, the bench runner, the load
 * generator): one help layout, one version, one strict parser. Every program answers `--help`
 * (or `-h`) and `--version` on stdout with exit code 0, and refuses an unknown flag with exit
 * code 2 and a message naming it, so a typo never runs with a default silently.
 *
 * The node parses its own flags (server/config.ts: flags fall back to environment variables);
 * it shares the help layout, the version and the typo hint. The others parse here, through
 * node:util `parseArgs` in strict mode.
 * @module
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

/** This package's version (package.json), as `--version` prints it. */
export const PACKAGE_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** One flag as `--help` shows it and the parser accepts it. */
export interface FlagSpec {
  /** Without the leading dashes: `duration-ms`. */
  name: string;
  /**
   * What the value looks like in help (`N`, `URL`, `testnet|mainnet`); absent: a boolean flag
   * that takes no value.
   */
  value?: string;
  /** Environment variable that sets it when the flag is absent (the node's options). */
  env?: string;
  /** The default as help shows it; absent: no default (shown as `(unset)`). */
  default?: string;
  /** Shown as required in help (the program checks it: a missing value is its own message). */
  required?: boolean;
  doc: string;
}

/** One program: what `--help` prints and what the parser accepts. */
export interface CommandSpec {
  /** Prefix of every message: `loadgen: unknown option --x`. */
  name: string;
  /** One line: `npm run miner -- --public-key KEY [options]`. */
  usage: string;
  /** What the program does, a few sentences. */
  summary: string;
  flags: readonly FlagSpec[];
  /** Arguments that are not flags are accepted (bench names); otherwise one is an error. */
  positionals?: boolean;
  /** Printed after the flags (examples, where more is documented). */
  notes?: string;
}

/** Flags every program has; never listed in a CommandSpec. */
export const COMMON_FLAGS: readonly FlagSpec[] = [
  { name: 'help', doc: 'Print this help and exit.' },
  { name: 'version', doc: 'Print the version and exit.' },
];

/** A command line the program cannot run: printed with its name and exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const HELP_WIDTH = 100;
const DOC_INDENT = '      ';

function wrap(text: string, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    if (line.length > 0 && indent.length + line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line.length > 0 ? `${line} ${word}` : word;
    }
  }
  if (line.length > 0) lines.push(indent + line);
  return lines.join('\n');
}

/** One flag's heading: `--port <N>  (env PORT, default 17001)`. */
function flagHeading(f: FlagSpec): string {
  const facts: string[] = [];
  if (f.env !== undefined) facts.push(`env ${f.env}`);
  if (f.required === true) facts.push('required');
  else if (f.value !== undefined || f.default !== undefined) facts.push(`default ${f.default ?? '(unset)'}`);
  const value = f.value === undefined ? '' : ` <${f.value}>`;
  return `  --${f.name}${value}${facts.length > 0 ? `  (${facts.join(', ')})` : ''}`;
}

/** The `--help` text of a program: title, usage, summary, every flag with its env and default. */
export function helpText(spec: CommandSpec): string {
  const parts = [
    `${spec.name} ${PACKAGE_VERSION}`,
    '',
    `Usage: ${spec.usage}`,
    '',
    wrap(spec.summary, ''),
    '',
    'Options:',
    ...[...spec.flags, ...COMMON_FLAGS].map((f) => `${flagHeading(f)}\n${wrap(f.doc, DOC_INDENT)}`),
  ];
  if (spec.notes !== undefined) parts.push('', wrap(spec.notes, ''));
  return `${parts.join('\n')}\n`;
}

/** Edit distance, for the typo hint; names are short. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** `unknown option --duraton-ms (did you mean --duration-ms?)`: the nearest known name within 2 edits. */
export function unknownFlagMessage(given: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of known) {
    const d = distance(given, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return `unknown option --${given}${best === undefined ? '' : ` (did you mean --${best}?)`}`;
}

export type ParsedCommandLine =
  | { kind: 'help' }
  | { kind: 'version' }
  | {
      kind: 'run';
      /** Every flag by name: its string value, true for a boolean flag given, else its default (or undefined). */
      values: Record<string, string | boolean | undefined>;
      positionals: string[];
    };

/**
 * Parses `argv` (without node and the script) strictly against `spec`. `--help`/`-h` and
 * `--version` win over everything else. Throws UsageError naming the first bad argument.
 */
export function parseCommandLine(spec: CommandSpec, argv: readonly string[]): ParsedCommandLine {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
  };
  for (const f of spec.flags) options[f.name] = { type: f.value === undefined ? 'boolean' : 'string' };
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: spec.positionals === true });
  } catch (err) {
    throw new UsageError(usageMessage(err, spec));
  }
  if (parsed.values['help'] === true) return { kind: 'help' };
  if (parsed.values['version'] === true) return { kind: 'version' };
  const values: Record<string, string | boolean | undefined> = {};
  for (const f of spec.flags) values[f.name] = parsed.values[f.name] ?? (f.value === undefined ? false : f.default);
  return { kind: 'run', values, positionals: parsed.positionals };
}

/** parseArgs's errors, said shortly and with the flag's name. */
function usageMessage(err: unknown, spec: CommandSpec): string {
  const e = err as { code?: string; message?: string };
  const quoted = /'([^']*)'/.exec(e.message ?? '')?.[1] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return unknownFlagMessage(quoted.replace(/^-+/, ''), [...spec.flags, ...COMMON_FLAGS].map((f) => f.name));
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(quoted)}; options look like --name value`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const flag = /^(--[\w-]+)/.exec(quoted)?.[1] ?? quoted;
      if (/does not take an argument/.test(e.message ?? '')) return `${flag} takes no value`;
      if (/ambiguous/.test(e.message ?? '')) return `${flag} needs a value (one starting with "-" goes as ${flag}=-…)`;
      return `${flag} needs a value`;
    }
    default:
      return e.message ?? String(err);
  }
}

/** The end of a program: the message on stderr with its name, and exit code 2. */
export function exitWithUsageError(name: string, message: string): never {
  process.stderr.write(`${name}: ${message}; see --help\n`);
  process.exit(2);
}

/**
 * For a program's entry point: parses `argv`; prints help or the version and exits 0, or
 * prints a usage error and exits 2; else returns the values.
 */
export function runCommandLine(spec: CommandSpec, argv: readonly string[] = process.argv.slice(2)): Extract<ParsedCommandLine, { kind: 'run' }> {
  let parsed: ParsedCommandLine;
  try {
    parsed = parseCommandLine(spec, argv);
  } catch (err) {
    if (err instanceof UsageError) exitWithUsageError(spec.name, err.message);
    throw err;
  }
  if (parsed.kind === 'help') {
    process.stdout.write(helpText(spec));
    process.exit(0);
  }
  if (parsed.kind === 'version') {
    process.stdout.write(`${PACKAGE_VERSION}\n`);
    process.exit(0);
  }
  return parsed;
}
