/**
 * The command line (`engine serve`: settings → build deps → buildApp →
 * listen; the project commands): with main.ts, the only place that may call
 * process.exit. main.ts, the entry point, imports this module once the
 * process runs with the engine's V8 flags (Note [Engine V8 settings] in
 * cli/v8-flags.ts); `npm start` (dev-start.ts) imports it directly.
 */
import { envNamesRead, parseSettings, processEnv, SETTING_SPECS, type Settings } from './cli/settings.ts';
import { createLogger, type Logger } from './logger.ts';
import { buildEngine, type BuiltEngine } from './boot.ts';
import { ENGINE_VERSION } from './version.ts';
import { isEngineError } from './errors/engine-error.ts';
import { PROJECT_COMMANDS, runProjectCommand } from './cli/project/index.ts';
import { collectAfterBursts } from './idle-gc.ts';

/** The command line's help text. */
export function usage(): string {
  const lines = [
    `engine ${ENGINE_VERSION}`,
    '',
    'Usage: engine serve [flags]     run the GraphQL engine',
    '       engine version           print the version',
    '       engine init DIR | metadata | migrate | seed | deploy ...',
    '                                manage a project directory against a running engine (`engine metadata --help`)',
    '       engine operator export --out DIR   the metadata as Kubernetes operator resources (`engine operator export --help`)',
    '',
    'Flags (each also read from its environment variable; flags win):',
    ...SETTING_SPECS.map((s) => `  ${s.flag.padEnd(32)} ${s.env.padEnd(44)} ${s.describe}`),
    '',
    "v2's names are read too: HASURA_GRAPHQL_* for each ENGINE_GRAPHQL_* (the ENGINE_ name wins when both are set),",
    'and HASURA_GRAPHQL_ACCESS_KEY for the admin secret.',
  ];
  return lines.join('\n') + '\n';
}

/** A start failure that one line explains (what to do included): printed as that line, without a stack trace. */
export class PlainStartError extends Error {}

/** The listen error `e` as one line saying what to do, or `e` itself when it is no known case. */
function listenError(e: unknown, port: number, host: string): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') {
    return new PlainStartError(
      `port ${port} on ${host} is already in use: stop the other process, or pick another port with --server-port or ENGINE_GRAPHQL_SERVER_PORT`,
    );
  }
  if (code === 'EACCES') {
    return new PlainStartError(
      `port ${port} on ${host} needs privileges this process lacks: pick a port above 1023 with --server-port or ENGINE_GRAPHQL_SERVER_PORT`,
    );
  }
  if (code === 'EADDRNOTAVAIL') {
    return new PlainStartError(`${host} is no address of this machine: pick one with --server-host or ENGINE_GRAPHQL_SERVER_HOST (0.0.0.0: every interface)`);
  }
  return e;
}

/** Starts the engine and listens; resolves once it is serving. */
export async function serve(settings: Settings, logger: Logger): Promise<BuiltEngine> {
  const engine = await buildEngine(settings, logger);
  let address: string;
  try {
    address = await engine.app.listen({ port: settings.serverPort, host: settings.serverHost });
  } catch (e) {
    // Closed first, as on a signal: the metadata listener's connection then ends on purpose instead of
    // being cut by the exit (which logged "metadata listener lost" under the real error).
    await engine.close().catch(() => {});
    throw listenError(e, settings.serverPort, settings.serverHost);
  }
  // Once serving: a full collection when a metadata change's burst of allocation is over (Note [Collecting after a
  // burst]); a burst of requests never asks for one (Note [Only a metadata change's burst]).
  collectAfterBursts((onChange) => engine.metadata.catalogRef.subscribe(onChange));
  // v2's startup line of kind server_configuration (secrets only as whether they are set).
  logger.log('startup', 'info', {
    kind: 'server_configuration',
    message: 'engine serving',
    info: {
      address,
      version: ENGINE_VERSION,
      port: settings.serverPort,
      server_host: settings.serverHost,
      log_level: settings.logLevel,
      enabled_log_types: settings.enabledLogTypes,
      admin_secret_set: settings.adminSecret !== null,
      jwt_secret_set: settings.jwtSecret !== null,
      auth_hook: settings.authHook,
      auth_hook_mode: settings.authHook === null ? null : settings.authHookMode,
      unauth_role: settings.unauthorizedRole,
      cors_domain: settings.corsDomain ?? '*',
      stringify_numeric_types: settings.stringifyNumericTypes,
      infer_function_permissions: settings.inferFunctionPermissions,
    },
  });
  return engine;
}

/** Closes the engine on SIGTERM/SIGINT: in-flight requests finish, pools close. */
export function closeOnSignals(engine: BuiltEngine, logger: Logger, after: () => Promise<void> = async () => {}): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.log('startup', 'info', { kind: 'shutdown', message: 'shutting down', signal });
    engine
      .close()
      .then(after)
      .then(() => {
        logger.flush();
        process.exit(0);
      })
      .catch((e: unknown) => {
        logger.error('shutdown failed', { error: e });
        logger.flush();
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * Runs the command line. `env` is the environment to read settings from;
 * `afterClose` runs after a signal closed the engine, or when it could not
 * start (dev-start stops its embedded PostgreSQL there). Resolves with the
 * serving engine and its settings (undefined for `version`).
 */
export async function runCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = processEnv(),
  afterClose: () => Promise<void> = async () => {},
): Promise<{ engine: BuiltEngine; settings: Settings } | undefined> {
  const [command, ...rest] = argv;
  if (command === 'version' || command === '--version') {
    process.stdout.write(`${ENGINE_VERSION}\n`);
    return undefined;
  }
  if (command !== undefined && PROJECT_COMMANDS.has(command)) {
    process.exit(await runProjectCommand(argv, env));
  }
  if (command !== 'serve') {
    process.stdout.write(usage());
    process.exit(command === undefined || command === '--help' || command === 'help' ? 0 : 2);
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(usage());
    process.exit(0);
  }
  let settings: Settings;
  try {
    settings = parseSettings(rest, env);
  } catch (e) {
    process.stderr.write(`${isEngineError(e) ? e.message : String(e)}\n\n${usage()}`);
    await afterClose();
    process.exit(2);
  }
  const logger = createLogger({ level: settings.logLevel, enabledLogTypes: settings.enabledLogTypes });
  // Which variables configured this start, names only (Note [v2 setting names]); parseSettings accepted them.
  const names = envNamesRead(env);
  logger.log('startup', 'info', {
    kind: 'env_names',
    message:
      names.shadowed.length === 0
        ? `settings read from ${names.read.length === 0 ? 'no environment variable' : names.read.join(', ')}`
        : `settings read from ${names.read.join(', ')}; ignored ${names.shadowed.join(', ')} (another name of the same setting is set)`,
    info: { read: names.read, ignored: names.shadowed },
  });
  try {
    const engine = await serve(settings, logger);
    closeOnSignals(engine, logger, afterClose);
    return { engine, settings };
  } catch (e) {
    if (e instanceof PlainStartError) process.stderr.write(`engine failed to start: ${e.message}\n`);
    else logger.error('engine failed to start', { error: e });
    logger.flush();
    await afterClose();
    process.exit(1);
  }
}
