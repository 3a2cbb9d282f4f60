/**
 * One engine has one owning Engine resource (issue 36.2).
 *
 * Note [Where the owner of an engine is recorded]
 * Two Engine resources that reach the same engine (two namespaces, two clusters, a copy-paste)
 * would each fold their own resources and prune the other's: a write war that never settles. So
 * the first Engine to reconcile records itself (uid, namespace, name) in the engine, and any other
 * Engine that finds a live owner there writes nothing and reports Ready=False, reason Conflict.
 *
 * The record lives in the engine's catalog state (`get_catalog_state` / `set_catalog_state`), under
 * `cli_state.graphql_engine_operator`, not in the metadata document:
 * - the catalog state survives `replace_metadata`, `clear_metadata` and reloads, which anyone
 *   (`engine metadata apply`, v2's CLI, the console's import) may run; the document has no
 *   free-form field v2's schema keeps, and a key there would show in every export a GitOps
 *   pipeline diffs;
 * - writing it changes no resource_version, so the monitor does not mistake the claim for drift,
 *   and it is shared by every replica of one metadata database, which is what "one engine" means;
 * - `cli_state` rather than `console_state`: the `engine` project commands (the only other writer
 *   of cli_state here) rewrite it as `{...state, migrations}` and keep keys they do not know
 *   (engine/cli/project/migrations.ts), while what v2's console does with console_state is not
 *   ours to assume. The read-modify-write races only with a concurrent migrate, and a claim that
 *   was lost is simply written again by the owner's next reconcile.
 *
 * Who wins: the recorded owner while it exists. An Engine that finds the record naming an Engine
 * this operator sees and that is newer than itself takes over (the other then reports Conflict);
 * a record naming its own namespace/name with another uid (the Engine was recreated) is taken
 * over; a record naming an Engine this operator does not see (another cluster, or one removed
 * without its finalizer) wins unless the annotation `graphql.engine.dev/take-ownership: "true"`
 * says otherwise. The owner's finalizer removes the record when the Engine is deleted.
 */
import type { Engine } from '../api/v1alpha1/engine.ts';
import { MetadataApiError, type EngineClient } from '../../engine/metadata-client/client.ts';

/** The key of the record in cli_state. */
export const OWNER_STATE_KEY = 'graphql_engine_operator';
/** Annotation that lets an Engine take over an engine whose recorded owner it cannot see. */
export const TAKE_OWNERSHIP_ANNOTATION = 'graphql.engine.dev/take-ownership';

/** The recorded owner of an engine. */
export interface EngineOwner {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
}

/** The cli_state of an engine and the owner it records; null when the engine lacks the operation. */
export async function readOwner(client: EngineClient): Promise<{ state: Record<string, unknown>; owner: EngineOwner | null } | null> {
  let r: { cli_state?: unknown };
  try {
    r = await client.call<{ cli_state?: unknown }>({ type: 'get_catalog_state', args: {} });
  } catch (e) {
    // An engine without catalog state cannot record an owner: ownership is then not enforced.
    if (e instanceof MetadataApiError && (e.code === 'parse-failed' || e.code === 'not-supported')) return null;
    throw e;
  }
  const state = typeof r.cli_state === 'object' && r.cli_state !== null && !Array.isArray(r.cli_state) ? (r.cli_state as Record<string, unknown>) : {};
  const o = state[OWNER_STATE_KEY] as { owner?: Partial<EngineOwner> } | undefined;
  const owner = o?.owner;
  const valid = typeof owner?.uid === 'string' && typeof owner.namespace === 'string' && typeof owner.name === 'string';
  return { state, owner: valid ? (owner as EngineOwner) : null };
}

/** Writes (or, with null, removes) the owner record, keeping every other key of cli_state. */
export async function writeOwner(client: EngineClient, state: Record<string, unknown>, owner: EngineOwner | null): Promise<void> {
  const { [OWNER_STATE_KEY]: _old, ...rest } = state;
  const next = owner === null ? rest : { ...rest, [OWNER_STATE_KEY]: { owner, recordedAt: new Date().toISOString() } };
  await client.call({ type: 'set_catalog_state', args: { type: 'cli', state: next } });
}

/** The owner record of an Engine. */
export function ownerOf(e: Engine): EngineOwner {
  return { uid: e.metadata.uid, namespace: e.metadata.namespace, name: e.metadata.name };
}

function olderThan(a: Engine, b: Engine): boolean {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb;
  return `${a.metadata.namespace}/${a.metadata.name}` < `${b.metadata.namespace}/${b.metadata.name}`;
}

/** What {@link decideOwnership} concluded. */
export type OwnershipVerdict = { readonly own: true; readonly write: boolean } | { readonly own: false; readonly message: string };

/**
 * Whether `me` may manage the engine whose record names `recorded`. `find` looks an Engine up in
 * the operator's caches. Pure; see Note [Where the owner of an engine is recorded].
 */
export function decideOwnership(me: Engine, recorded: EngineOwner | null, find: (namespace: string, name: string) => Engine | undefined): OwnershipVerdict {
  if (recorded === null) return { own: true, write: true };
  if (recorded.uid === me.metadata.uid) return { own: true, write: false };
  const who = `Engine ${recorded.namespace}/${recorded.name} (uid ${recorded.uid})`;
  const other = find(recorded.namespace, recorded.name);
  if (other !== undefined && other.metadata.uid === recorded.uid) {
    if (other.metadata.deletionTimestamp === undefined && olderThan(other, me)) {
      return { own: false, message: `this engine is managed by ${who}; one engine has one owning Engine, so this one writes nothing to it` };
    }
    return { own: true, write: true };
  }
  if (recorded.namespace === me.metadata.namespace && recorded.name === me.metadata.name) return { own: true, write: true };
  if (me.metadata.annotations?.[TAKE_OWNERSHIP_ANNOTATION] === 'true') return { own: true, write: true };
  return {
    own: false,
    message:
      `this engine is managed by ${who}, which this operator does not see (another cluster, or deleted without its finalizer); ` +
      `one engine has one owning Engine, so this one writes nothing to it. If that Engine is gone, annotate this one ${TAKE_OWNERSHIP_ANNOTATION}=true`,
  };
}
