/**
 * Entry point: `npm start -- [options]`. Reads the config, then either runs one server process
 * or supervises `--processes N` of them on the same port. `--help` prints every option (from
 * config.ts's table), `--version` the package version.
 */
import { CHILD_ENV, supervise, type ChildMessage } from './cluster/supervisor.js';
import { PACKAGE_VERSION } from './cli.js';
import { ConfigError, loadConfig, nodeHelpText, redactConfig, requestedAction, type Config } from './config.js';
import { createLogger } from './log.js';
import { startNode, StartupError, type RunningNode } from './node.js';

function fail(message: string, code = 2): never {
  process.stderr.write(`social-node: ${message}\n`);
  process.exit(code);
}

function tell(m: ChildMessage): void {
  process.send?.(m);
}

async function runServerProcess(config: Config): Promise<void> {
  const isChild = process.env[CHILD_ENV] !== undefined;
  const log = createLogger(config.logLevel, isChild ? { slot: Number(process.env[CHILD_ENV]) } : {});
  if (!isChild) log.info({ config: redactConfig(config) }, 'starting');
  // A stray rejection in background work is logged, not fatal; a thrown exception may have
  // left state half-updated, so the process exits (a supervisor restarts it).
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception; exiting');
    process.exit(1);
  });

  // Signal handlers go in before the node starts: a SIGTERM that arrives between the
  // "listening" line and a handler installed later would take the default action and kill the
  // process mid-write. One that arrives while starting shuts the node down once it is up.
  // A second signal while starting exits at once (a start that waits on an unreachable store).
  let node: RunningNode | undefined;
  let pendingSignal: string | null = null;
  let shuttingDown = false;
  const shutdown = (signal: string): void => {
    if (node === undefined) {
      if (pendingSignal !== null) fail(`${signal} while starting; exiting now`, 1);
      pendingSignal = signal;
      log.info({ signal }, 'shutting down once started (send it again to exit now)');
      return;
    }
    if (shuttingDown) return;
    shuttingDown = true;
    log.info({ signal }, 'shutting down');
    node.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  try {
    node = await startNode(config, log);
  } catch (err) {
    const message = (err as Error).message;
    tell({ type: 'startup-failed', message });
    log.fatal({ reason: message }, 'cannot start');
    fail(message, err instanceof StartupError ? err.exitCode : 1);
  }
  tell({ type: 'ready', port: node.port, processId: node.processId });
  if (pendingSignal !== null) shutdown(pendingSignal);
  process.once('disconnect', () => shutdown('supervisor disconnected'));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const action = requestedAction(argv);
  if (action !== null) {
    process.stdout.write(action === 'help' ? nodeHelpText() : `${PACKAGE_VERSION}\n`);
    process.exit(0);
  }
  let config: Config;
  try {
    config = loadConfig(argv);
  } catch (err) {
    if (err instanceof ConfigError) fail(`invalid configuration: ${err.message}; see --help`);
    throw err;
  }
  if (config.processes > 1 && process.env[CHILD_ENV] === undefined) {
    const log = createLogger(config.logLevel, { role: 'supervisor' });
    log.info({ config: redactConfig(config) }, 'starting');
    process.exit(await supervise({ processes: config.processes, shutdownTimeoutMs: config.shutdownTimeoutMs, log }));
  }
  await runServerProcess(config);
}

main().catch((err: unknown) => {
  process.stderr.write(`social-node: fatal: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
