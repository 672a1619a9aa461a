// The command-line parser every program shares (server/cli.ts) and the node's help and
// actions (server/config.ts). The programs themselves are spawned in test/e2e/cli.e2e.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { helpText, PACKAGE_VERSION, parseCommandLine, unknownFlagMessage, UsageError, type CommandSpec } from '../../server/cli.js';
import { ConfigError, loadConfig, nodeHelpText, OPTIONS, requestedAction } from '../../server/config.js';
import { REPO_ROOT } from '../helpers/nodeProcess.js';

const SPEC: CommandSpec = {
  name: 'tool',
  usage: 'tool --port N [names...]',
  summary: 'A tool.',
  flags: [
    { name: 'port', value: 'N', required: true, doc: 'The port.' },
    { name: 'duration-ms', value: 'N', default: '3000', doc: 'How long.' },
    { name: 'verbose', doc: 'Say more.' },
  ],
};

const usageError = (re: RegExp) => (e: unknown) => e instanceof UsageError && re.test(e.message);

describe('parseCommandLine', () => {
  it('answers values with defaults, booleans false when absent, and positionals when allowed', () => {
    assert.deepEqual(parseCommandLine(SPEC, ['--port', '80']), {
      kind: 'run',
      values: { port: '80', 'duration-ms': '3000', verbose: false },
      positionals: [],
    });
    assert.deepEqual(parseCommandLine(SPEC, ['--port=80', '--duration-ms', '5', '--verbose']), {
      kind: 'run',
      values: { port: '80', 'duration-ms': '5', verbose: true },
      positionals: [],
    });
    assert.deepEqual(parseCommandLine({ ...SPEC, positionals: true }, ['a', '--port', '1', 'b']), {
      kind: 'run',
      values: { port: '1', 'duration-ms': '3000', verbose: false },
      positionals: ['a', 'b'],
    });
  });

  it('refuses an unknown flag naming it, with the nearest known name', () => {
    assert.throws(() => parseCommandLine(SPEC, ['--port', '1', '--duraton-ms', '100']), usageError(/^unknown option --duraton-ms \(did you mean --duration-ms\?\)$/));
    assert.throws(() => parseCommandLine(SPEC, ['--colour']), usageError(/^unknown option --colour$/));
    assert.throws(() => parseCommandLine(SPEC, ['-x']), usageError(/^unknown option --x$/));
    assert.throws(() => parseCommandLine(SPEC, ['--hlep']), usageError(/did you mean --help\?/));
  });

  it('refuses a missing value, a value on a boolean, and positionals it does not take', () => {
    assert.throws(() => parseCommandLine(SPEC, ['--port']), usageError(/^--port needs a value$/));
    assert.throws(() => parseCommandLine(SPEC, ['--port', '--verbose']), usageError(/^--port needs a value/));
    assert.throws(() => parseCommandLine(SPEC, ['--verbose=yes']), usageError(/^--verbose takes no value$/));
    assert.throws(() => parseCommandLine(SPEC, ['stray']), usageError(/^unexpected argument "stray"/));
  });

  it('puts --help, -h and --version before everything else, even a bad flag', () => {
    assert.deepEqual(parseCommandLine(SPEC, ['--help']), { kind: 'help' });
    assert.deepEqual(parseCommandLine(SPEC, ['-h']), { kind: 'help' });
    assert.deepEqual(parseCommandLine(SPEC, ['--port', '1', '--version']), { kind: 'version' });
  });
});

describe('helpText', () => {
  it('lists every flag with its value, default or required, and --help and --version', () => {
    const text = helpText(SPEC);
    assert.match(text, /^tool \d+\.\d+\.\d+\n/);
    assert.match(text, /Usage: tool --port N/);
    assert.match(text, /^ {2}--port <N> {2}\(required\)\n {6}The port\.$/m);
    assert.match(text, /^ {2}--duration-ms <N> {2}\(default 3000\)$/m);
    assert.match(text, /^ {2}--verbose\n {6}Say more\.$/m);
    assert.match(text, /^ {2}--help$/m);
    assert.match(text, /^ {2}--version$/m);
  });

  it('wraps documentation at 100 columns', () => {
    const long = helpText({ ...SPEC, flags: [{ name: 'x', doc: 'word '.repeat(80) }] });
    for (const line of long.split('\n')) assert.ok(line.length <= 100, line);
  });
});

describe('unknownFlagMessage', () => {
  it('suggests a name within two edits only', () => {
    assert.equal(unknownFlagMessage('prot', ['port', 'host']), 'unknown option --prot (did you mean --port?)');
    assert.equal(unknownFlagMessage('database', ['port', 'host']), 'unknown option --database');
  });
});

describe('PACKAGE_VERSION', () => {
  it('is package.json\'s version', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(PACKAGE_VERSION, pkg.version);
  });
});

describe('the node command line', () => {
  it('--help lists every option with its env var and default, from the option table', () => {
    const text = nodeHelpText();
    const lines = text.split('\n');
    for (const o of OPTIONS) {
      const heading = lines.find((l) => l.startsWith(`  --${o.flag} `));
      assert.ok(heading, `--help lists --${o.flag}`);
      assert.ok(heading.includes(`env ${o.env}`), `--${o.flag} names ${o.env}: ${heading}`);
      const d = o.default;
      const shown = d === undefined ? '(unset)' : Array.isArray(d) ? (d.length === 0 ? '(empty)' : d.join(',')) : d === '' ? '(empty)' : String(d);
      assert.ok(heading.includes(`default ${shown})`), `--${o.flag} shows its default ${shown}: ${heading}`);
    }
    assert.match(text, /^ {2}--help$/m);
    assert.match(text, /^ {2}--version$/m);
  });

  it('requestedAction finds --help, -h and --version where a flag may stand, never as a value', () => {
    assert.equal(requestedAction([]), null);
    assert.equal(requestedAction(['--port', '1', '--help']), 'help');
    assert.equal(requestedAction(['-h']), 'help');
    assert.equal(requestedAction(['--version', '--bogus']), 'version');
    assert.equal(requestedAction(['--support-email', '-h']), null, '-h is the value of --support-email');
    assert.equal(requestedAction(['--metrics', '-h']), 'help', 'a boolean flag takes no value');
  });

  it('loadConfig names an unknown flag and suggests the nearest option', () => {
    assert.throws(() => loadConfig(['--prot', '1'], {}), (e: unknown) => e instanceof ConfigError && e.message === 'unknown option --prot (did you mean --port?)');
    assert.throws(() => loadConfig(['--halp'], {}), (e: unknown) => e instanceof ConfigError && /did you mean --help\?/.test(e.message));
  });
});
