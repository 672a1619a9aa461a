// Each program's command line, spawned as its npm script runs it: --help and --version print to
// stdout and exit 0 without doing anything else; an unknown flag exits 2 naming it (before, the
// node and miner refused --help, the bench runner took it for a bench name, and the load
// generator ran with a misspelt flag ignored).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPTIONS } from '../../server/config.js';
import { REPO_ROOT } from '../helpers/nodeProcess.js';

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { cwd: REPO_ROOT, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

const PROGRAMS: Array<{ name: string; script: string; typo: string[]; named: RegExp; helpShows: RegExp[] }> = [
  {
    name: 'social-node',
    script: 'server/main.ts',
    typo: ['--prot', '18001'],
    named: /unknown option --prot \(did you mean --port\?\)/,
    helpShows: OPTIONS.map((o) => new RegExp(`^  --${o.flag} .*\\(env ${o.env}, default `, 'm')),
  },
  {
    name: 'miner',
    script: 'miner/main.ts',
    typo: ['--thread', '2'],
    named: /unknown option --thread \(did you mean --threads\?\)/,
    helpShows: [/--public-key <Base58Check> {2}\(required\)/, /--node <ws-url> {2}\(default ws:\/\/127\.0\.0\.1:17001\)/, /--threads /],
  },
  {
    name: 'bench',
    script: 'bench/run.ts',
    typo: ['scale', '--sizes', '1000'],
    named: /unknown option --sizes; a bench's options go after a second --/,
    helpShows: [/Benches: .*chain\.bench\.ts/s, /scale\.bench\.ts \(only when named\)/],
  },
  {
    name: 'loadgen',
    script: 'bench/http/loadgen.ts',
    typo: ['--port', '1', '--duraton-ms', '100'],
    named: /unknown option --duraton-ms \(did you mean --duration-ms\?\)/,
    helpShows: [/--port <N> {2}\(required\)/, /--duration-ms <N> {2}\(default 3000\)/, /--requests-file /],
  },
];

for (const p of PROGRAMS) {
  describe(`${p.name} (${p.script})`, () => {
    it('--help prints usage and every option, and exits 0', async () => {
      const r = await run(p.script, ['--help']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.startsWith(`${p.name} ${VERSION}\n`), r.stdout.slice(0, 200));
      assert.match(r.stdout, /^Usage: /m);
      assert.match(r.stdout, /^ {2}--version$/m);
      for (const re of p.helpShows) assert.match(r.stdout, re);
    });

    it('--version prints the package version and exits 0', async () => {
      const r = await run(p.script, ['--version']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${VERSION}\n`);
    });

    it('an unknown flag exits 2 naming it, and runs nothing', async () => {
      const r = await run(p.script, p.typo);
      assert.equal(r.code, 2, `exit code; stderr: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^${p.name}: `));
      assert.match(r.stderr, p.named);
      assert.equal(r.stdout, '', 'nothing ran');
    });
  });
}
