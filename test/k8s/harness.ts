/**
 * What every operator test on the real apiserver needs: a control plane with the operator's
 * manifests applied as a user applies them (config/default), a database, a real engine with an
 * admin secret, the controller running as the operator's ServiceAccount, and helpers to read
 * conditions and wait for them with a bound.
 */
import type { Condition } from '../../controller/api/v1alpha1/common.ts';
import { EngineClient } from '../../engine/metadata-client/client.ts';
import { freePort } from '../support/engine-process.ts';
import { eventuallyValue } from '../support/eventually.ts';
import { createTestDatabase, type TestDatabase } from '../support/pg.ts';
import { findBinaries, startControlPlane, type ControlPlane } from './control-plane.ts';
import { startController, startEngineAt, type Proc } from './processes.ts';

/** apiVersion of the operator's kinds. */
export const API = 'graphql.engine.dev/v1alpha1';
/** The admin secret of the test engine. */
export const ADMIN_SECRET = 'k8s-test-secret';

/** Why the k8s tests skip (null: they run). */
export function k8sSkipReason(): string | null {
  const bins = findBinaries();
  const reason = 'missing' in bins ? bins.missing : null;
  if (reason !== null) console.warn(`[k8s] skipping operator tests: ${reason}`);
  return reason;
}

/** The part of a custom object the tests read. */
export interface Obj {
  metadata: { name: string; generation?: number; resourceVersion?: string; finalizers?: string[]; annotations?: Record<string, string> };
  status?: { observedGeneration?: number; conditions?: Condition[]; managedObjects?: string[]; plannedChanges?: string[]; metadataResourceVersion?: number };
}

/** A running operator environment. */
export interface OperatorEnv {
  readonly cp: ControlPlane;
  readonly db: TestDatabase;
  readonly enginePort: number;
  readonly client: EngineClient;
  engine: Proc;
  controller: Proc;
  /** The object, or null; in the kubeconfig's namespace (default) unless `namespace` is given. */
  get(plural: string, name: string, namespace?: string): Obj | null;
  cond(plural: string, name: string, type?: string): Condition | undefined;
  until<T>(what: string, fn: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs?: number): Promise<T>;
  /** What the apiserver says to `kubectl apply --dry-run=server` of `manifest`: `accepted`, or its refusal. */
  refused(manifest: unknown): string;
  /** The Ready condition of an object in another namespace. */
  readyIn(namespace: string, plural: string, name: string): Condition | undefined;
  readyWith(plural: string, name: string, status: Condition['status'], reason?: string, timeoutMs?: number): Promise<Condition>;
  /** Events of one object as `kubectl describe` would list them: `type reason note`. */
  events(kind: string, name: string): string[];
  restartEngine(): Promise<void>;
  stop(): Promise<void>;
}

/** A resource manifest of the operator's API (in namespace default unless one is given). */
export function resource(kind: string, name: string, spec: Record<string, unknown>, namespace = 'default'): Record<string, unknown> {
  return { apiVersion: API, kind, metadata: { name, namespace }, spec };
}

/** A Permission `<table>-<role>-select` letting `role` select `columns` of every row; `extra` adds to its spec (engineRef, source). */
export function selectPermission(
  table: string,
  role: string,
  columns: string[],
  extra: Record<string, unknown> = {},
  namespace?: string,
): Record<string, unknown> {
  return resource('Permission', `${table}-${role}-select`, { ...extra, table, role, operation: 'select', permission: { columns, filter: {} } }, namespace);
}

/** Extra flags and environment of the test engine. */
export interface EngineOptions {
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
}

/**
 * Starts everything. `sql` prepares the database before the engine starts. The Engine resource is
 * not created here (tests apply their own, at default settings).
 */
export async function startOperatorEnv(
  prefix: string,
  sql: string,
  controllerEnv: Record<string, string> = {},
  engineOptions: EngineOptions = {},
): Promise<OperatorEnv> {
  const t0 = Date.now();
  const cp = await startControlPlane();
  console.log(`[k8s] ${String(cp)}; CRDs installed after ${Date.now() - t0} ms`);
  const db = await createTestDatabase(prefix);
  await db.sql(sql);
  const enginePort = await freePort();
  const engineArgs = ['--database-url', db.url, '--admin-secret', ADMIN_SECRET, ...(engineOptions.args ?? [])];
  const engineEnv = engineOptions.env ?? {};
  const client = new EngineClient({ url: `http://127.0.0.1:${enginePort}`, adminSecret: ADMIN_SECRET });
  const env: OperatorEnv = {
    cp,
    db,
    enginePort,
    client,
    engine: await startEngineAt(enginePort, engineArgs, engineEnv),
    controller: undefined as unknown as Proc,
    get(plural, name, namespace) {
      try {
        const ns = namespace === undefined ? [] : ['-n', namespace];
        return JSON.parse(cp.kubectl([...ns, 'get', `${plural}.graphql.engine.dev`, name, '-o', 'json'])) as Obj;
      } catch {
        return null;
      }
    },
    cond(plural, name, type = 'Ready') {
      return env.get(plural, name)?.status?.conditions?.find((c) => c.type === type);
    },
    refused(manifest) {
      try {
        cp.kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(manifest));
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    },
    readyIn(namespace, plural, name) {
      return env.get(plural, name, namespace)?.status?.conditions?.find((c) => c.type === 'Ready');
    },
    until(what, fn, timeoutMs = 30_000) {
      return eventuallyValue(fn, { what, timeoutMs, context: () => `controller:\n${env.controller?.output().slice(-3000)}` });
    },
    async readyWith(plural, name, status, reason, timeoutMs) {
      let seen = 'no Ready condition';
      try {
        return await env.until(
          `${plural}/${name} Ready=${status}${reason === undefined ? '' : ` ${reason}`}`,
          () => {
            const c = env.cond(plural, name);
            if (c !== undefined) seen = `Ready=${c.status} ${c.reason}: ${c.message}`;
            return c !== undefined && c.status === status && (reason === undefined || c.reason === reason) ? c : null;
          },
          timeoutMs,
        );
      } catch (e) {
        throw new Error(`${(e as Error).message}\nlast seen: ${seen}`);
      }
    },
    events(kind, name) {
      // The core view of events.k8s.io events (one storage): what kubectl describe reads.
      const list = JSON.parse(cp.kubectl(['get', 'events', '-o', 'json', '--field-selector', `involvedObject.kind=${kind},involvedObject.name=${name}`])) as {
        items: { type: string; reason: string; message: string }[];
      };
      return list.items.map((e) => `${e.type} ${e.reason} ${e.message}`);
    },
    async restartEngine() {
      await env.engine.stop();
      env.engine = await startEngineAt(enginePort, engineArgs, engineEnv);
    },
    async stop() {
      await env.controller?.stop();
      await env.engine?.stop();
      await cp.stop();
      await db.drop();
    },
  };
  cp.kubectl(['create', 'secret', 'generic', 'engine-admin', `--from-literal=admin-secret=${ADMIN_SECRET}`]);
  // The operator's manifests as a user installs them; no kubelet runs the Deployment, so the
  // controller runs here, as the operator's ServiceAccount, with exactly that RBAC. Secrets are
  // readable only where the secret-reader role is bound (config/engine does it per namespace).
  cp.kubectl(['apply', '-k', 'config/default']);
  cp.kubectl(['apply', '-n', 'default', '-f', 'config/engine/secret_reader_binding.yaml']);
  env.controller = startController(cp.operatorKubeconfig, 'controller-a', controllerEnv);
  return env;
}
