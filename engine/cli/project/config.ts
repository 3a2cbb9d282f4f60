/**
 * The project's settings: `config.yaml` (v2's config version 3), the project's `.env` file, the
 * environment and the flags, read as v2's client reads them (flags win over the environment, which
 * wins over the file).
 *
 * Note [Project settings names]
 * Each setting has an ENGINE_GRAPHQL_* name and v2's HASURA_GRAPHQL_* alias, tried in that order
 * ({@link aliasNames} in ../settings.ts, the rule `engine serve` follows: Note [v2 setting names]);
 * the admin secret also reads v2's HASURA_GRAPHQL_ACCESS_KEY, and `config.yaml` its `access_key`.
 * The `.env` file of the project (v2's `--envfile`, default `.env`) fills in variables the
 * environment does not set, so a CI job's variables win over a developer's file.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { aliasNames, envSetting } from '../settings.ts';
import { UsageError } from './output.ts';

/** What the commands need to know of the project and the engine. */
export interface ProjectConfig {
  /** The project directory (absolute). */
  readonly dir: string;
  readonly endpoint: string;
  readonly adminSecret: string | undefined;
  readonly metadataDir: string;
  readonly migrationsDir: string;
  readonly seedsDir: string;
  /** `actions:` of config.yaml, kept for `engine init` and v2's tools. */
  readonly actions: { readonly kind: string; readonly handler_webhook_baseurl: string };
  /** Where each setting came from (names only), for `--help`-level diagnostics. */
  readonly sources: Readonly<Record<string, string>>;
}

/** The flags every command takes. */
export interface GlobalFlags {
  readonly project?: string;
  readonly endpoint?: string;
  readonly adminSecret?: string;
  readonly envfile?: string;
}

/** The config.yaml `engine init` writes. */
export function defaultConfigYaml(endpoint: string): string {
  return [
    'version: 3',
    `endpoint: ${endpoint}`,
    'metadata_directory: metadata',
    'migrations_directory: migrations',
    'seeds_directory: seeds',
    'actions:',
    '  kind: synchronous',
    '  handler_webhook_baseurl: http://localhost:3000',
    '',
  ].join('\n');
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Reads the project's settings (config.yaml need not exist: flags and environment suffice). */
export function loadProjectConfig(flags: GlobalFlags, processEnv: Readonly<Record<string, string | undefined>>): ProjectConfig {
  const dir = path.resolve(flags.project ?? '.');
  const file = path.join(dir, 'config.yaml');
  let cfg: Record<string, unknown> = {};
  if (existsSync(file)) {
    let parsed: unknown;
    try {
      parsed = parseYaml(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new UsageError(`${file} is not valid YAML: ${(e as Error).message}`);
    }
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) throw new UsageError(`${file} must be a mapping (version: 3, endpoint: ...)`);
    cfg = (parsed ?? {}) as Record<string, unknown>;
    const version = cfg['version'];
    if (version !== undefined && version !== 3 && version !== '3') {
      throw new UsageError(
        `${file} has config version ${String(version)}; only version 3 is supported (v2's \`hasura scripts update-project-v3\` converts a version 2 project)`,
      );
    }
  } else if (flags.project !== undefined && !existsSync(dir)) {
    throw new UsageError(`project directory ${dir} does not exist: create one with \`engine init ${flags.project}\``);
  }
  const env = withEnvFile(processEnv, path.resolve(dir, flags.envfile ?? '.env'), flags.envfile !== undefined);
  const sources: Record<string, string> = {};
  const pick = (key: string, flag: string | undefined, envName: string, fileKeys: readonly string[]): string | undefined => {
    if (flag !== undefined) {
      sources[key] = 'flag';
      return flag;
    }
    for (const name of aliasNames(envName)) {
      const v = str(env[name]);
      if (v !== undefined) {
        sources[key] = name;
        return v;
      }
    }
    for (const k of fileKeys) {
      const v = str(cfg[k]);
      if (v !== undefined) {
        sources[key] = `config.yaml ${k}`;
        return v;
      }
    }
    return undefined;
  };
  const endpoint = pick('endpoint', flags.endpoint, 'ENGINE_GRAPHQL_ENDPOINT', ['endpoint']) ?? 'http://localhost:8080';
  let adminSecret: string | undefined;
  if (flags.adminSecret !== undefined) {
    adminSecret = flags.adminSecret;
    sources['admin_secret'] = 'flag';
  } else {
    let hit: { name: string; raw: string } | null;
    try {
      hit = envSetting('adminSecret', env);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (hit !== null) {
      adminSecret = hit.raw;
      sources['admin_secret'] = hit.name;
    } else {
      adminSecret = pick('admin_secret', undefined, 'ENGINE_GRAPHQL_ADMIN_SECRET', ['admin_secret', 'access_key']);
    }
  }
  const under = (key: string, envName: string, fallback: string): string => path.resolve(dir, pick(key, undefined, envName, [key]) ?? fallback);
  const actions = (cfg['actions'] ?? {}) as Record<string, unknown>;
  try {
    new URL(endpoint);
  } catch {
    throw new UsageError(`endpoint "${endpoint}" (from ${sources['endpoint'] ?? 'the default'}) is not a URL: give one such as http://localhost:8080`);
  }
  return {
    dir,
    endpoint: endpoint.replace(/\/+$/, ''),
    adminSecret,
    metadataDir: under('metadata_directory', 'ENGINE_GRAPHQL_METADATA_DIRECTORY', 'metadata'),
    migrationsDir: under('migrations_directory', 'ENGINE_GRAPHQL_MIGRATIONS_DIRECTORY', 'migrations'),
    seedsDir: under('seeds_directory', 'ENGINE_GRAPHQL_SEEDS_DIRECTORY', 'seeds'),
    actions: {
      kind: str(actions['kind']) ?? 'synchronous',
      handler_webhook_baseurl: str(actions['handler_webhook_baseurl']) ?? 'http://localhost:3000',
    },
    sources,
  };
}

/** The environment with the `.env` file's variables under it (the environment wins). */
function withEnvFile(env: Readonly<Record<string, string | undefined>>, file: string, required: boolean): Readonly<Record<string, string | undefined>> {
  if (!existsSync(file)) {
    if (required) throw new UsageError(`env file ${file} does not exist`);
    return env;
  }
  const fromFile = parseEnv(readFileSync(file, 'utf8'));
  return { ...fromFile, ...env };
}
