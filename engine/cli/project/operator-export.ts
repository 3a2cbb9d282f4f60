/**
 * `engine operator export`: a metadata document (a v2 metadata directory, or a running engine's
 * metadata) → the operator's resources, one YAML file each, with a kustomization.yaml, so
 * `kubectl apply -k <dir>` declares the same metadata. The conversion and its check are
 * controller/export/ (Note [Export is checked by the fold]); this file loads the document as the
 * other project commands do and writes the directory.
 *
 * Note [What operator export writes]
 *   <kind>-<name>.yaml     one resource each (Note [Resource names from metadata names])
 *   engine.yaml            with --engine-url: the Engine (spec.url, adminSecretRef)
 *   kustomization.yaml     lists the resources (and engine.yaml); `namespace:` with --namespace
 *   secret.template.yaml   the Secret the engine's environment reads: keys only, values empty,
 *                          NOT listed in the kustomization (fill it and apply it apart, or create
 *                          the Secret another way; never commit the values)
 *   README.md              what to do next, the secrets and where each came from, the engine's
 *                          `env` entries, and everything the resources do not express
 * Secrets never reach a resource (Note [Secrets become environment variables]); what no kind
 * expresses is listed on stderr and in README.md, never dropped silently.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { normalizeDocument } from '../../model/document.ts';
import { documentSchemas } from '../../model/schemas/document.ts';
import { assertValid } from '../../model/schemas/validate.ts';
import { documentToResources, type ExportResult, type RoundTripDifference } from '../../../controller/export/resources.ts';
import { stringify } from 'yaml';
import { UsageError } from './output.ts';

/** What the command was asked for. */
export interface OperatorExportOptions {
  readonly out: string;
  /** Where the document came from (for README.md). */
  readonly from: string;
  readonly engine?: string;
  readonly namespace?: string;
  readonly engineUrl?: string;
  readonly secretName?: string;
  readonly deletionPolicy?: string;
  /** Replace the contents of a non-empty output directory. */
  readonly force?: boolean;
}

/** What was written. */
export interface OperatorExportReport {
  readonly directory: string;
  readonly files: readonly string[];
  readonly resources: Readonly<Record<string, number>>;
  readonly secretName: string;
  /** The variables the engine must have (Secret keys), with where each value was. */
  readonly secrets: readonly { readonly env: string; readonly where: string }[];
  /** Variables the metadata read already (references kept as they were). */
  readonly referenced: readonly string[];
  /** Values written as they are that may hold a secret: the user should check them. */
  readonly check: readonly string[];
  readonly lost: readonly RoundTripDifference[];
  readonly added: readonly RoundTripDifference[];
  readonly refused: readonly string[];
}

const DNS = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * YAML for kubectl, which reads YAML 1.1 (go-yaml): there `on`, `yes`, `y`, `off`, `no`, `n` are
 * booleans, so a column or role of that name must be quoted, which writing as 1.1 does.
 */
function toYaml(value: unknown): string {
  return stringify(value, { version: '1.1', indent: 2, lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false });
}

function checkName(what: string, v: string | undefined): void {
  if (v !== undefined && (v.length > 253 || !DNS.test(v)))
    throw new UsageError(`${what} "${v}" is not a Kubernetes name (lower case letters, digits, "-", ".")`);
}

/** The wire document, checked with the engine's document schema, normalized. */
function checkedDocument(raw: Record<string, unknown>, from: string): ReturnType<typeof normalizeDocument> {
  try {
    assertValid(documentSchemas(new Map()).document, raw, '$');
  } catch (e) {
    const p = (e as { path?: unknown }).path;
    throw new UsageError(`the metadata of ${from} is not valid: ${(e as Error).message}${typeof p === 'string' ? ` (at ${p})` : ''}`);
  }
  return normalizeDocument(raw);
}

function describe(d: RoundTripDifference): string {
  return `${d.path}${d.kind === null ? ' (no kind of the operator expresses it)' : ` (not a field of ${d.kind})`}`;
}

function secretTemplate(name: string, namespace: string | undefined, result: ExportResult, adminSecret: boolean): string {
  const lines = [
    '# The Secret the engine reads its secrets from (see README.md). Fill in the values and apply it',
    '# apart from the kustomization; never commit the values. Or create it with `kubectl create secret`.',
    'apiVersion: v1',
    'kind: Secret',
    'metadata:',
    `  name: ${name}`,
    ...(namespace === undefined ? [] : [`  namespace: ${namespace}`]),
    'type: Opaque',
    'stringData:',
  ];
  if (adminSecret) lines.push('  # the admin secret (Engine spec.adminSecretRef)', '  admin-secret: ""');
  for (const s of result.secrets) lines.push(`  # ${s.where}`, `  ${s.env}: ""`);
  return lines.join('\n') + '\n';
}

function readme(
  opts: OperatorExportOptions,
  result: ExportResult,
  files: readonly string[],
  secretName: string,
  lost: RoundTripDifference[],
  added: RoundTripDifference[],
): string {
  const out: string[] = [];
  const ns = opts.namespace === undefined ? '' : ` -n ${opts.namespace}`;
  out.push('# Operator resources', '');
  out.push(`Written by \`engine operator export\` from ${opts.from}: ${result.resources.length} resources. Apply them with`, '');
  out.push('```sh', `kubectl apply -k ${opts.out}`, '```', '');
  out.push(
    opts.engine === undefined
      ? 'They name no Engine (`engineRef`): they target the only Engine of their namespace. Export with `--engine <name>` to bind them to one.'
      : `They target the Engine \`${opts.engine}\`${opts.engineUrl === undefined ? ' (not written here: create it, or export with `--engine-url`)' : ' (engine.yaml)'}.`,
    '',
  );
  out.push(
    opts.deletionPolicy === 'Orphan'
      ? 'Every resource has `deletionPolicy: Orphan`: deleting it leaves its metadata in the engine.'
      : 'Deleting a resource removes its metadata from the engine (`deletionPolicy: Delete`, the default); export with `--deletion-policy Orphan` to keep it instead while you try the operator out.',
    '',
  );
  if (result.secrets.length > 0 || opts.engineUrl !== undefined) {
    out.push('## Secrets', '');
    out.push(
      `No secret is written into a resource. The metadata reads each one from an environment variable of the engine, kept in the Secret \`${secretName}\` (secret.template.yaml lists its keys; it is not part of the kustomization). Create it, for example:`,
      '',
    );
    const lits = [...(opts.engineUrl === undefined ? [] : ['admin-secret']), ...result.secrets.map((s) => s.env)].map((k) => `  --from-literal=${k}=...`);
    out.push('```sh', `kubectl create secret generic ${secretName}${ns} \\`, lits.join(' \\\n'), '```', '');
    if (result.secrets.length > 0) {
      out.push('| Variable (Secret key) | Was given by value at |', '|---|---|');
      for (const s of result.secrets) out.push(`| \`${s.env}\` | \`${s.where}\` |`);
      out.push('');
      out.push('The engine must have these variables. An Engine the operator runs (`spec.deployment`) takes them as:', '');
      out.push('```yaml', 'spec:', '  deployment:', '    env:');
      for (const s of result.secrets) out.push(`      - name: ${s.env}`, `        valueFrom: { secretKeyRef: { name: ${secretName}, key: ${s.env} } }`);
      out.push('```', '');
      out.push('An engine run another way needs them in its environment (for example `envFrom: [{secretRef: {name: ' + secretName + '}}]`).', '');
    }
    if (opts.engineUrl !== undefined) {
      out.push(
        `The operator reads the admin secret from the same Secret (key \`admin-secret\`): bind it the secret-reader role in this namespace (config/engine/secret_reader_binding.yaml).`,
        '',
      );
    }
  }
  if (result.referenced.length > 0) {
    out.push(
      '## Variables the metadata already read',
      '',
      `The metadata named these environment variables itself (\`from_env\`, \`value_from_env\`...); the engine needs them as before: ${result.referenced.map((e) => `\`${e}\``).join(', ')}.`,
      '',
    );
  }
  if (result.check.length > 0) {
    out.push(
      '## Check these values',
      '',
      'They are written into the resources as they are, since the metadata has no environment reference for them; make sure none is a secret:',
      '',
      ...result.check.map((c) => `- \`${c}\``),
      '',
    );
  }
  out.push('## Not expressed by the resources', '');
  if (lost.length === 0 && result.refused.length === 0) out.push('Nothing: the resources fold back to the whole metadata.', '');
  else {
    out.push('These parts of the metadata are not in any resource; apply them another way (the metadata API) or leave them out:', '');
    for (const d of lost) out.push(`- \`${d.path}\`${d.kind === null ? ' — no kind expresses it' : ` — not a field of ${d.kind}`}`);
    for (const r of result.refused) out.push(`- ${r}`);
    out.push('');
  }
  if (added.length > 0) {
    out.push('## Added by the resources', '', 'The controller writes these defaults, which the exported metadata did not have:', '');
    for (const d of added) out.push(`- \`${d.path}\``);
    out.push('');
  }
  out.push('## Files', '', ...files.map((f) => `- ${f}`), '');
  return out.join('\n');
}

/** Converts and writes; see Note [What operator export writes]. */
export async function writeOperatorExport(raw: Record<string, unknown>, opts: OperatorExportOptions): Promise<OperatorExportReport> {
  checkName('--engine', opts.engine);
  checkName('--namespace', opts.namespace);
  checkName('--secret-name', opts.secretName);
  if (opts.engineUrl !== undefined && !/^https?:\/\/[^/]/.test(opts.engineUrl)) throw new UsageError(`--engine-url "${opts.engineUrl}" is not an http(s) URL`);
  if (opts.engineUrl !== undefined && opts.engine === undefined) throw new UsageError('--engine-url needs --engine (the name of the Engine to write)');
  const policy = opts.deletionPolicy;
  if (policy !== undefined && policy !== 'Delete' && policy !== 'Orphan') throw new UsageError(`--deletion-policy is Delete or Orphan, not "${policy}"`);
  const doc = checkedDocument(raw, opts.from);
  const result = documentToResources(doc, { engine: opts.engine, namespace: opts.namespace, deletionPolicy: policy });
  const secretName = opts.secretName ?? `${opts.engine ?? 'engine'}-secrets`;

  const dir = path.resolve(opts.out);
  if (existsSync(dir)) {
    const present = await readdir(dir);
    if (present.length > 0 && opts.force !== true)
      throw new UsageError(`${dir} is not empty: pick another --out, or add --force to replace its YAML and README files`);
    for (const f of present) if (/\.(ya?ml|md)$/.test(f)) await rm(path.join(dir, f), { force: true });
  }
  await mkdir(dir, { recursive: true });

  const files: string[] = [];
  const resourceFiles: string[] = [];
  if (opts.engineUrl !== undefined && opts.engine !== undefined) {
    const engine = {
      apiVersion: 'graphql.engine.dev/v1alpha1',
      kind: 'Engine',
      metadata: { name: opts.engine, ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }) },
      spec: { url: opts.engineUrl, adminSecretRef: { name: secretName, key: 'admin-secret' } },
    };
    await writeFile(path.join(dir, 'engine.yaml'), toYaml(engine));
    resourceFiles.push('engine.yaml');
  }
  const counts: Record<string, number> = {};
  for (const r of result.resources) {
    const file = `${r.kind.toLowerCase()}-${r.name}.yaml`;
    await writeFile(path.join(dir, file), toYaml(r.manifest));
    resourceFiles.push(file);
    counts[r.kind] = (counts[r.kind] ?? 0) + 1;
  }
  const kustomization: Record<string, unknown> = { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' };
  if (opts.namespace !== undefined) kustomization['namespace'] = opts.namespace;
  kustomization['resources'] = resourceFiles;
  await writeFile(path.join(dir, 'kustomization.yaml'), toYaml(kustomization));
  files.push('kustomization.yaml', ...resourceFiles);
  if (result.secrets.length > 0 || opts.engineUrl !== undefined) {
    await writeFile(path.join(dir, 'secret.template.yaml'), secretTemplate(secretName, opts.namespace, result, opts.engineUrl !== undefined));
    files.push('secret.template.yaml');
  }
  const lost = result.differences.filter((d) => d.change !== 'added');
  const added = result.differences.filter((d) => d.change === 'added');
  files.push('README.md');
  await writeFile(path.join(dir, 'README.md'), readme(opts, result, files, secretName, lost, added));
  return {
    directory: dir,
    files,
    resources: counts,
    secretName,
    secrets: result.secrets.map((s) => ({ env: s.env, where: s.where })),
    referenced: result.referenced,
    check: result.check,
    lost,
    added,
    refused: result.refused,
  };
}

/** The lines `engine operator export` prints on stderr about what the resources do not express. */
export function lossLines(r: OperatorExportReport): string[] {
  const out: string[] = [];
  for (const d of r.lost) out.push(`not expressed by the resources (left out): ${describe(d)}`);
  for (const x of r.refused) out.push(`not expressed by the resources (refused by the fold): ${x}`);
  for (const d of r.added) out.push(`added by the resources (a default the exported metadata did not have): ${d.path}`);
  for (const c of r.check) out.push(`written as it is, check that it is no secret: ${c}`);
  return out;
}
