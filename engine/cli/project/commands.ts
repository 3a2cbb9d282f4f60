/**
 * The project commands of `engine` (beside `engine serve`): init, metadata, migrate, seed and
 * deploy, parsed by commander. Each talks to a running engine over HTTP (engine-api.ts) as v2's
 * client does, with the project settings of config.ts; see the README beside this file.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { defaultConfigYaml, loadProjectConfig, type GlobalFlags, type ProjectConfig } from './config.ts';
import { diffFiles, printDiffs } from './diff.ts';
import { EngineApi } from './engine-api.ts';
import { metadataToFiles, readMetadataDir, writeMetadataDir } from './layout.ts';
import {
  appliedVersions,
  createMigration,
  deleteMigrations,
  localMigrations,
  migrationDatabases,
  planSteps,
  runSteps,
  squash,
  statusRows,
  type ApplyReport,
  type StatusRow,
} from './migrations.ts';
import { describeFailure, paint, processIo, StepError, UsageError, type Io } from './output.ts';
import type * as OperatorExport from './operator-export.ts';
import { applySeeds, createSeed, seedFromTable } from './seeds.ts';

type Env = Readonly<Record<string, string | undefined>>;
type Obj = Record<string, unknown>;

/** The command names this module handles (main.ts routes them here). */

interface Context {
  readonly cfg: ProjectConfig;
  readonly api: EngineApi;
  readonly io: Io;
}

interface GlobalOpts extends GlobalFlags {
  readonly output?: string;
  readonly color?: boolean;
}

/** Runs a project command; resolves with the exit code (Note [Project command exit codes]). */
export async function runProjectCommand(argv: readonly string[], env: Env): Promise<number> {
  let code = 0;
  let endpoint: string | undefined;
  let io: Io = processIo(argv.includes('json') && argv.some((a) => a === '-o' || a === '--output' || a === '--output=json'), false);
  const ctxOf = (cmd: Command): Context => {
    const g = cmd.optsWithGlobals<GlobalOpts>();
    if (g.output !== undefined && g.output !== 'json' && g.output !== 'text') throw new UsageError(`--output is "text" or "json", not "${g.output}"`);
    io = processIo(g.output === 'json', g.color !== false && process.stdout.isTTY === true && env['NO_COLOR'] === undefined);
    const cfg = loadProjectConfig(g, env);
    endpoint = cfg.endpoint;
    return { cfg, api: new EngineApi(cfg), io };
  };
  const program = buildProgram(ctxOf);
  try {
    await program.parseAsync(['node', 'engine', ...argv]);
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit 0; parse errors were printed by commander.
      return e.exitCode === 0 ? 0 : 2;
    }
    const f = describeFailure(e, endpoint);
    code = f.code;
    if (io.json) process.stdout.write(JSON.stringify({ error: f.message, exit_code: f.code, ...(f.details ?? {}) }, null, 2) + '\n');
    else process.stderr.write(`${paint(io, 'red', 'error')}: ${f.message}\n`);
  }
  return code;
}

/** The commander program; `ctxOf` builds each action's context from its options. */
export function buildProgram(ctxOf: (cmd: Command) => Context): Command {
  // Settings a subcommand inherits must be made before it is added: exits come back as CommanderErrors.
  const program = new Command('engine')
    .exitOverride()
    .description('Engine: `engine serve` runs the engine; the commands below manage a project directory against a running engine (v2 project layout)')
    .addOption(new Option('--project <dir>', 'the project directory (holds config.yaml)').default(undefined, '.'))
    .addOption(new Option('--endpoint <url>', 'the engine URL (ENGINE_GRAPHQL_ENDPOINT, HASURA_GRAPHQL_ENDPOINT, config.yaml endpoint)'))
    .addOption(new Option('--admin-secret <secret>', 'the admin secret (ENGINE_GRAPHQL_ADMIN_SECRET, HASURA_GRAPHQL_ADMIN_SECRET, config.yaml admin_secret)'))
    .addOption(new Option('--envfile <file>', 'a .env file of the project to read variables from').default(undefined, '.env'))
    .addOption(new Option('-o, --output <format>', 'text, or json for scripts (one JSON value on stdout)').choices(['text', 'json']))
    .option('--no-color', 'no colours, even on a terminal')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      "\nExit codes: 0 done, 1 the engine refused or a step failed, 2 bad usage or project, 3 engine unreachable or admin secret refused.\nRun `engine serve --help` for the server's flags.",
    );
  program.command('serve').description('run the GraphQL engine (see `engine serve --help`)');
  program.command('version').description('print the version');

  program
    .command('init')
    .description('scaffold a project directory: config.yaml, metadata/, migrations/, seeds/')
    .argument('<dir>', 'the directory to create')
    .action(async (dir: string, _opts: Obj, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      const io = processIo(g.output === 'json', false);
      const endpoint = g.endpoint ?? 'http://localhost:8080';
      const target = path.resolve(dir);
      if (existsSync(path.join(target, 'config.yaml'))) throw new UsageError(`${target} already holds a config.yaml: pick another directory`);
      await mkdir(target, { recursive: true });
      await writeFile(path.join(target, 'config.yaml'), defaultConfigYaml(endpoint));
      await writeMetadataDir(path.join(target, 'metadata'), metadataToFiles({ version: 3, sources: [] }));
      for (const d of ['migrations', 'seeds']) await mkdir(path.join(target, d), { recursive: true });
      io.out(`project created in ${target}`);
      io.out(`next: cd ${dir} && engine metadata export   (with the engine at ${endpoint})`);
      io.result({ project: target });
    });

  addMetadataCommands(program, ctxOf);
  addMigrateCommands(program, ctxOf);
  addSeedCommands(program, ctxOf);
  addOperatorCommands(program, ctxOf);

  program
    .command('deploy')
    .description("add the project's new databases, apply the migrations of every database, then the metadata, then reload it (as v2 does)")
    .option('--allow-inconsistent-metadata', 'apply metadata with inconsistencies instead of refusing it')
    .action(async (opts: { allowInconsistentMetadata?: boolean }, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const added = await addNewDatabases(ctx, opts.allowInconsistentMetadata === true);
      const migrations = await applyMigrations(ctx, { allDatabases: true }, {});
      const metadata = await applyMetadata(ctx, opts.allowInconsistentMetadata === true);
      await ctx.api.metadata('reload_metadata', { reload_remote_schemas: true, reload_sources: false });
      ctx.io.out('metadata reloaded');
      ctx.io.result({ databases_added: added, migrations, metadata, reloaded: true });
    });
  return program;
}

function addMetadataCommands(program: Command, ctxOf: (cmd: Command) => Context): void {
  const md = program.command('metadata').alias('md').description("export, apply and inspect the engine's metadata as files");
  md.command('export')
    .description("write the engine's metadata to the metadata directory (v2's layout; replaces its contents)")
    .action(async (_opts: Obj, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const { metadata, resourceVersion } = await ctx.api.exportMetadata();
      const files = metadataToFiles(metadata);
      await writeMetadataDir(ctx.cfg.metadataDir, files);
      ctx.io.out(`metadata exported to ${ctx.cfg.metadataDir} (${files.size} files, resource_version ${resourceVersion})`);
      ctx.io.result({ directory: ctx.cfg.metadataDir, files: [...files.keys()], resource_version: resourceVersion });
    });
  md.command('apply')
    .description("replace the engine's metadata with the metadata directory's (refused when inconsistent unless allowed)")
    .option('--allow-inconsistent-metadata', 'apply even when some objects are inconsistent (they are listed)')
    .option('--dry-run', 'show what would change (as `metadata diff`) without applying')
    .action(async (opts: { allowInconsistentMetadata?: boolean; dryRun?: boolean }, cmd: Command) => {
      const ctx = ctxOf(cmd);
      if (opts.dryRun === true) return await showDiff(ctx);
      ctx.io.result(await applyMetadata(ctx, opts.allowInconsistentMetadata === true));
    });
  md.command('diff')
    .description("show what `metadata apply` would change: the engine's metadata against the project's, as file diffs")
    .action(async (_opts: Obj, cmd: Command) => await showDiff(ctxOf(cmd)));
  md.command('reload')
    .description('reload the metadata: introspect the databases and remote schemas again')
    .action(async (_opts: Obj, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const r = await ctx.api.metadata<Obj>('reload_metadata', { reload_remote_schemas: true, reload_sources: true });
      const consistent = r['is_consistent'] !== false;
      ctx.io.out(consistent ? 'metadata reloaded' : 'metadata reloaded, but it is inconsistent: see `engine metadata inconsistency list`');
      ctx.io.result(r);
    });
  md.command('clear')
    .alias('reset')
    .description("clear the engine's metadata (the default database stays)")
    .action(async (_opts: Obj, cmd: Command) => {
      const ctx = ctxOf(cmd);
      await ctx.api.metadata('clear_metadata');
      ctx.io.out('metadata cleared');
      ctx.io.result({ cleared: true });
    });
  const ic = md.command('inconsistency').alias('ic').description('list, drop or check inconsistent objects');
  ic.command('list')
    .alias('ls')
    .description('list the inconsistent objects')
    .action(async (_opts: Obj, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const r = await ctx.api.inconsistencies();
      if (r.isConsistent) ctx.io.out('metadata is consistent');
      else {
        ctx.io.out(['NAME', 'TYPE', 'REASON'].join('\t'));
        for (const o of r.inconsistentObjects) ctx.io.out([o.name ?? nameOf(o.definition), o.type, o.reason].join('\t'));
      }
      ctx.io.result({ is_consistent: r.isConsistent, inconsistent_objects: r.inconsistentObjects });
    });
  ic.command('status')
    .description('say whether the metadata is consistent (exit 1 when it is not)')
    .action(async (_opts: Obj, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const r = await ctx.api.inconsistencies();
      ctx.io.out(
        r.isConsistent
          ? 'metadata is consistent'
          : `metadata is inconsistent (${r.inconsistentObjects.length} objects): see \`engine metadata inconsistency list\``,
      );
      ctx.io.result({ is_consistent: r.isConsistent, inconsistent_objects: r.inconsistentObjects.length });
      if (!r.isConsistent && !ctx.io.json) throw new StepError('metadata is inconsistent');
    });
  ic.command('drop')
    .description('drop the inconsistent objects from the metadata')
    .action(async (_opts: Obj, cmd: Command) => {
      const ctx = ctxOf(cmd);
      await ctx.api.metadata('drop_inconsistent_metadata');
      ctx.io.out('inconsistent objects dropped');
      ctx.io.result({ dropped: true });
    });
}

function nameOf(def: unknown): string {
  if (typeof def === 'object' && def !== null && typeof (def as Obj)['name'] === 'string') return (def as Obj)['name'] as string;
  return JSON.stringify(def ?? null);
}

async function showDiff(ctx: Context): Promise<void> {
  const project = await readMetadataDir(ctx.cfg.metadataDir);
  const { metadata } = await ctx.api.exportMetadata();
  const diffs = diffFiles(metadataToFiles(metadata), metadataToFiles(project));
  if (diffs.length === 0) ctx.io.out("no differences: the engine has the project's metadata");
  else printDiffs(ctx.io, diffs);
  ctx.io.result({ changed: diffs.map((d) => ({ file: d.file, change: d.change, patch: d.patch })) });
}

async function applyMetadata(ctx: Context, allowInconsistent: boolean): Promise<Obj> {
  const doc = await readMetadataDir(ctx.cfg.metadataDir);
  ctx.io.progress(`applying metadata from ${ctx.cfg.metadataDir}`);
  let r;
  try {
    r = await ctx.api.replaceMetadata(doc, allowInconsistent);
  } catch (e) {
    const body = (e as { body?: Obj }).body;
    const internal = body?.['internal'];
    if (body !== undefined && Array.isArray(internal) && internal.length > 0) {
      const lines = (internal as Obj[]).map((o) => `  ${String(o['name'] ?? nameOf(o['definition']))} (${String(o['type'])}): ${String(o['reason'])}`);
      throw new StepError(
        `the engine refused the metadata: it would be inconsistent\n${lines.join('\n')}\nFix the metadata (or the databases), or apply anyway with --allow-inconsistent-metadata`,
        { inconsistent_objects: internal },
      );
    }
    throw e;
  }
  if (r.isConsistent) ctx.io.out('metadata applied');
  else {
    ctx.io.out(`metadata applied with ${r.inconsistentObjects.length} inconsistent object(s):`);
    for (const o of r.inconsistentObjects) ctx.io.out(`  ${o.name ?? nameOf(o.definition)} (${o.type}): ${o.reason}`);
  }
  return { applied: true, is_consistent: r.isConsistent, inconsistent_objects: r.inconsistentObjects };
}

/**
 * Note [Deploy adds new databases first]
 * A project's metadata may name a database the engine does not have yet, with migrations that
 * create its tables. v2's deploy applies the whole project metadata first ("initial metadata",
 * inconsistent until the migrations ran), then the migrations of every database, then the
 * metadata again, then reloads. `engine deploy` does the same steps but makes the first one
 * smaller: it adds only the databases the engine lacks, with their connection and customization
 * and no tables or functions, so the engine never serves a half-applied project (v2's first
 * apply drops every table a migration has yet to create from the schema until the second one).
 * The migrations then find the new databases; the full metadata follows as before.
 */
async function addNewDatabases(ctx: Context, allowInconsistent: boolean): Promise<string[]> {
  const project = await readMetadataDir(ctx.cfg.metadataDir);
  const { metadata } = await ctx.api.exportMetadata();
  const have = new Set(((metadata['sources'] ?? []) as Obj[]).map((s) => String(s['name'])));
  const fresh = ((project['sources'] ?? []) as Obj[]).filter((s) => !have.has(String(s['name'])));
  if (fresh.length === 0) return [];
  const bare = fresh.map((s) => ({
    name: s['name'],
    kind: s['kind'] ?? 'postgres',
    configuration: s['configuration'],
    ...(s['customization'] === undefined ? {} : { customization: s['customization'] }),
    tables: [],
  }));
  const names = bare.map((s) => String(s.name));
  ctx.io.progress(`adding database(s) ${names.join(', ')} to the engine before their migrations`);
  try {
    await ctx.api.replaceMetadata({ ...metadata, sources: [...((metadata['sources'] ?? []) as Obj[]), ...bare] }, allowInconsistent);
  } catch (e) {
    const internal = (e as { body?: Obj }).body?.['internal'];
    if (Array.isArray(internal) && internal.length > 0) {
      const lines = (internal as Obj[]).map((o) => `  ${String(o['name'] ?? nameOf(o['definition']))}: ${String(o['reason'])}`);
      throw new StepError(`the engine could not add the project's new database(s) ${names.join(', ')}:\n${lines.join('\n')}`, {
        inconsistent_objects: internal,
      });
    }
    throw e;
  }
  ctx.io.out(`database(s) added: ${names.join(', ')}`);
  return names;
}

interface DatabaseFlags {
  readonly databaseName?: string;
  readonly allDatabases?: boolean;
}

/** The databases a migrate/seed command acts on, with their kinds from the engine's metadata. */
async function targetDatabases(ctx: Context, flags: DatabaseFlags, dirOf: string): Promise<Array<{ name: string; kind: string }>> {
  if (flags.allDatabases === true && flags.databaseName !== undefined) throw new UsageError('give --database-name or --all-databases, not both');
  const { metadata } = await ctx.api.exportMetadata();
  const kinds = new Map(((metadata['sources'] ?? []) as Obj[]).map((s) => [String(s['name']), String(s['kind'] ?? 'postgres')]));
  const names = flags.allDatabases === true ? await migrationDatabases(dirOf) : [flags.databaseName ?? 'default'];
  return names.map((name) => {
    const kind = kinds.get(name);
    if (kind === undefined) {
      throw new UsageError(
        `database ${name} is not in the engine's metadata (it has ${[...kinds.keys()].join(', ') || 'none'}): add it (engine metadata apply) or pick one with --database-name`,
      );
    }
    return { name, kind };
  });
}

async function applyMigrations(
  ctx: Context,
  db: DatabaseFlags,
  flags: { up?: string; down?: string; goto?: string; version?: string; type?: string; skipExecution?: boolean; dryRun?: boolean },
): Promise<ApplyReport[]> {
  const reports: ApplyReport[] = [];
  const targets = await targetDatabases(ctx, db, ctx.cfg.migrationsDir);
  for (const { name, kind } of targets) {
    const local = await localMigrations(ctx.cfg.migrationsDir, name);
    const applied = appliedVersions(await ctx.api.cliState(), name);
    const steps = planSteps(local, applied, flags, name);
    const report = await runSteps(ctx.api, ctx.io, name, kind, steps, { skipExecution: flags.skipExecution === true, dryRun: flags.dryRun === true });
    ctx.io.out(
      report.applied.length === 0
        ? `database ${name}: nothing to apply`
        : `database ${name}: ${report.applied.length} migration(s) ${flags.dryRun === true ? 'would be ' : ''}applied`,
    );
    reports.push(report);
  }
  return reports;
}

function addDatabaseOptions(cmd: Command): Command {
  return cmd
    .option('--database-name <name>', 'the database (source) to act on', undefined)
    .option('--all-databases', 'act on every database with a directory under the migrations directory');
}

function addMigrateCommands(program: Command, ctxOf: (cmd: Command) => Context): void {
  const mg = program.command('migrate').description('SQL migrations: migrations/<database>/<version>_<name>/{up,down}.sql');
  mg.command('create')
    .description('create a migration (up.sql and down.sql)')
    .argument('<name>', 'its name (letters, digits, "_", "-")')
    .option('--database-name <name>', 'the database it belongs to', 'default')
    .option('--sql-from-file <file>', 'take up.sql from this file')
    .option('--up-sql <sql>', 'the up.sql text')
    .option('--down-sql <sql>', 'the down.sql text')
    .option('--from-server', "take up.sql from the database's schema (the engine's /v1alpha1/pg_dump; postgres databases)")
    .option('--schema <name>', 'with --from-server: a schema to dump; repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .option('--exclude-schema <name>', 'with --from-server: a schema to leave out; repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .action(
      async (
        name: string,
        opts: {
          databaseName: string;
          sqlFromFile?: string;
          upSql?: string;
          downSql?: string;
          fromServer?: boolean;
          schema?: string[];
          excludeSchema?: string[];
        },
        cmd: Command,
      ) => {
        const ctx = ctxOf(cmd);
        const { cfg, io } = ctx;
        let up = opts.upSql ?? '';
        if (opts.fromServer === true) {
          // v2's ExportSchemaDump: these options, cleaned, the public schema unless told.
          const [db] = await targetDatabases(ctx, { databaseName: opts.databaseName }, cfg.migrationsDir);
          if (db !== undefined && db.kind !== 'postgres' && db.kind !== 'pg') {
            throw new UsageError(`schema dump for source ${db.name} of kind ${db.kind} is not supported: write the migration's SQL, or use --sql-from-file`);
          }
          const dumpOpts = ['-O', '-x', '--schema-only'];
          for (const s of opts.schema ?? ['public']) dumpOpts.push('--schema', s);
          for (const s of opts.excludeSchema ?? []) dumpOpts.push('--exclude-schema', s);
          io.progress(`dumping the schema of database ${opts.databaseName}`);
          up = await ctx.api.pgDump(opts.databaseName, dumpOpts, true);
        }
        if (opts.sqlFromFile !== undefined) {
          try {
            up = await readFile(path.resolve(opts.sqlFromFile), 'utf8');
          } catch (e) {
            throw new UsageError(`--sql-from-file ${opts.sqlFromFile}: ${(e as Error).message}`);
          }
        }
        const m = await createMigration(cfg.migrationsDir, opts.databaseName, name, up, opts.downSql ?? '');
        io.out(`migration created: ${path.relative(cfg.dir, m.dir) || m.dir}  (version ${m.version})`);
        io.result({ version: m.version, name, directory: m.dir });
      },
    );
  addDatabaseOptions(
    mg
      .command('apply')
      .description('apply migrations: all pending ones, or as the flags say; each in a transaction, recorded in the metadata database')
      .option('--up <n>', 'apply the next n pending migrations ("all" for every one)')
      .option('--down <n>', 'roll back the last n applied migrations ("all" for every one)')
      .option('--goto <version>', 'go up or down to this version')
      .option('--version <version>', 'apply (or with --type down, roll back) only this version')
      .addOption(new Option('--type <direction>', 'with --version: up or down').choices(['up', 'down']).default('up'))
      .option('--skip-execution', 'record the versions as applied (or not) without running their SQL')
      .option('--dry-run', 'print the migrations that would run'),
  ).action(async (opts: Obj, cmd: Command) => {
    const ctx = ctxOf(cmd);
    const reports = await applyMigrations(ctx, opts as DatabaseFlags, {
      up: opts['up'] as string | undefined,
      down: opts['down'] as string | undefined,
      goto: opts['goto'] as string | undefined,
      version: opts['version'] as string | undefined,
      type: opts['type'] as string | undefined,
      skipExecution: opts['skipExecution'] === true,
      dryRun: opts['dryRun'] === true,
    });
    ctx.io.result({ databases: reports });
  });
  addDatabaseOptions(mg.command('status').description('which migrations exist locally and which are applied')).action(
    async (opts: DatabaseFlags, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const state = await ctx.api.cliState();
      const rows: StatusRow[] = [];
      for (const { name } of await targetDatabases(ctx, opts, ctx.cfg.migrationsDir)) {
        rows.push(...statusRows(name, await localMigrations(ctx.cfg.migrationsDir, name), appliedVersions(state, name)));
      }
      const widths = [16, 32, 16];
      ctx.io.out(
        [
          'DATABASE'.padEnd(widths[0] ?? 0),
          'VERSION'.padEnd(widths[0] ?? 0),
          'NAME'.padEnd(widths[1] ?? 0),
          'SOURCE STATUS'.padEnd(widths[2] ?? 0),
          'DATABASE STATUS',
        ].join('  '),
      );
      for (const r of rows) {
        ctx.io.out([r.database.padEnd(16), r.version.padEnd(16), r.name.padEnd(32), r.sourceStatus.padEnd(16), r.databaseStatus].join('  '));
      }
      ctx.io.result({
        migrations: rows.map((r) => ({
          database: r.database,
          version: r.version,
          name: r.name,
          source_status: r.sourceStatus,
          database_status: r.databaseStatus,
        })),
      });
    },
  );
  mg.command('squash')
    .description('make one migration of the migrations from a version on')
    .requiredOption('--from <version>', 'the first version to squash')
    .option('--name <name>', "the new migration's name", 'squashed')
    .option('--database-name <name>', 'the database', 'default')
    .option('--delete-source', 'delete the squashed migrations (and their records)')
    .action(async (opts: { from: string; name: string; databaseName: string; deleteSource?: boolean }, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const r = await squash(ctx.api, ctx.cfg.migrationsDir, opts.databaseName, opts.from, opts.name, opts.deleteSource === true);
      ctx.io.out(`squashed ${r.squashed.length} migration(s) into ${path.relative(ctx.cfg.dir, r.dir)} (version ${r.version})`);
      ctx.io.result(r);
    });
  mg.command('delete')
    .description('delete migrations locally and from the record (--server: from the record only)')
    .option('--version <version>', 'the version to delete')
    .option('--all', 'every migration of the database')
    .option('--server', 'only forget them in the record; keep the files')
    .option('--database-name <name>', 'the database', 'default')
    .action(async (opts: { version?: string; all?: boolean; server?: boolean; databaseName: string }, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const versions = await deleteMigrations(ctx.api, ctx.cfg.migrationsDir, opts.databaseName, {
        version: opts.version,
        all: opts.all === true,
        serverOnly: opts.server === true,
      });
      ctx.io.out(`deleted ${versions.length} migration(s)${opts.server === true ? ' from the record' : ''}`);
      ctx.io.result({ deleted: versions });
    });
}

function addSeedCommands(program: Command, ctxOf: (cmd: Command) => Context): void {
  const sd = program.command('seed').aliases(['seeds', 'sd']).description('seed data: seeds/<database>/<timestamp>_<name>.sql');
  sd.command('create')
    .description('create a seed file (empty, or from the rows of a table)')
    .argument('<name>', 'its name')
    .option('--from-table <table>', 'fill it with the current rows of this table (schema.table); repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .option('--database-name <name>', 'the database', 'default')
    .action(async (name: string, opts: { fromTable?: string[]; databaseName: string }, cmd: Command) => {
      const ctx = ctxOf(cmd);
      let sql = '';
      if (opts.fromTable !== undefined) {
        const [db] = await targetDatabases(ctx, { databaseName: opts.databaseName }, ctx.cfg.seedsDir);
        for (const t of opts.fromTable) sql += await seedFromTable(ctx.api, opts.databaseName, db?.kind ?? 'postgres', t);
      }
      const file = await createSeed(ctx.cfg.seedsDir, opts.databaseName, name, sql);
      ctx.io.out(`seed created: ${path.relative(ctx.cfg.dir, file)}`);
      ctx.io.result({ file });
    });
  sd.command('apply')
    .description('run the seed files of a database (all, or those given with --file)')
    .option('--file <file>', 'a seed file name to run; repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .option('--database-name <name>', 'the database', 'default')
    .action(async (opts: { file?: string[]; databaseName: string }, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const [db] = await targetDatabases(ctx, { databaseName: opts.databaseName }, ctx.cfg.seedsDir);
      const files = await applySeeds(ctx.api, ctx.io, ctx.cfg.seedsDir, opts.databaseName, db?.kind ?? 'postgres', opts.file ?? []);
      ctx.io.out(`${files.length} seed file(s) applied`);
      ctx.io.result({ applied: files });
    });
}

function addOperatorCommands(program: Command, ctxOf: (cmd: Command) => Context): void {
  const op = program.command('operator').description("the Kubernetes operator's resources (graphql.engine.dev/v1alpha1)");
  op.command('export')
    .description(
      "write the metadata (the project's metadata directory, --from DIR, or --from-server) as operator resources: one YAML file each and a kustomization.yaml for `kubectl apply -k`",
    )
    .requiredOption('--out <dir>', 'the directory to write')
    .option('--from <dir>', "a metadata directory (v2's layout) instead of the project's")
    .option('--from-server', "the running engine's metadata (--endpoint, --admin-secret) instead of a directory")
    .option('--engine <name>', 'the Engine the resources target (spec.engineRef)')
    .option('--namespace <ns>', 'the namespace of the resources (metadata.namespace and the kustomization)')
    .option('--engine-url <url>', "also write the Engine (engine.yaml) with this URL and the admin secret's Secret reference")
    .option('--secret-name <name>', 'the Secret the engine reads the moved-out secrets from (default <engine>-secrets)')
    .addOption(
      new Option('--deletion-policy <policy>', 'spec.deletionPolicy of every resource (Orphan: deleting a resource leaves its metadata)').choices([
        'Delete',
        'Orphan',
      ]),
    )
    .option('--force', 'replace the YAML and README files of a non-empty --out directory')
    .option('--strict', 'exit 1 when some metadata is not expressed by the resources')
    .action(
      async (
        opts: {
          out: string;
          from?: string;
          fromServer?: boolean;
          engine?: string;
          namespace?: string;
          engineUrl?: string;
          secretName?: string;
          deletionPolicy?: string;
          force?: boolean;
          strict?: boolean;
        },
        cmd: Command,
      ) => {
        const ctx = ctxOf(cmd);
        if (opts.from !== undefined && opts.fromServer === true) throw new UsageError('give --from or --from-server, not both');
        let raw: Obj;
        let from: string;
        if (opts.fromServer === true) {
          raw = (await ctx.api.exportMetadata()).metadata;
          from = `the engine at ${ctx.cfg.endpoint}`;
        } else {
          const dir = opts.from === undefined ? ctx.cfg.metadataDir : path.resolve(opts.from);
          raw = await readMetadataDir(dir);
          from = dir;
        }
        let exporter: typeof OperatorExport;
        try {
          exporter = await import('./operator-export.ts');
        } catch (e) {
          // The engine's image carries engine/ only; the conversion lives with the operator's API.
          throw new UsageError(`engine operator export needs the controller/ folder of the repository (${(e as Error).message}): run it from a checkout`);
        }
        const r = await exporter.writeOperatorExport(raw, { ...opts, from });
        const kinds = Object.entries(r.resources).map(([k, n]) => `${k} ${n}`);
        const count = Object.values(r.resources).reduce((a, b) => a + b, 0);
        ctx.io.out(
          `wrote ${count} resources to ${r.directory} (${kinds.join(', ') || 'none'}), a kustomization.yaml and README.md; apply with: kubectl apply -k ${opts.out}`,
        );
        if (r.referenced.length > 0) ctx.io.out(`the metadata reads these environment variables of the engine, as before: ${r.referenced.join(', ')}`);
        if (r.secrets.length > 0) {
          ctx.io.out(
            `${r.secrets.length} secret value(s) were moved out of the resources into environment variables of the engine (${r.secrets.map((s) => s.env).join(', ')}): create the Secret ${r.secretName} (secret.template.yaml, not in the kustomization) and give the engine these variables; see README.md`,
          );
        }
        for (const line of exporter.lossLines(r)) ctx.io.progress(line);
        if (opts.strict === true && (r.lost.length > 0 || r.refused.length > 0)) {
          // One JSON value on stdout: the error carries the report.
          throw new StepError(
            `${r.lost.length + r.refused.length} part(s) of the metadata are not expressed by the resources (listed above and in README.md)`,
            {
              ...r,
            },
          );
        }
        ctx.io.result(r);
      },
    );
}
