/**
 * Which Engine a resource targets, how to reach an engine, and the queue keys of the controller.
 */
import { API_VERSION } from '../api/v1alpha1/common.ts';
import type { Engine } from '../api/v1alpha1/engine.ts';
import { TARGET_KINDS } from '../api/v1alpha1/index.ts';
import type { TargetResource } from './declarations.ts';

/**
 * The name of the Engine a resource targets: its engineRef, else the only Engine of its namespace.
 * Null when there is none or several without engineRef.
 */
export function engineNameFor(r: TargetResource, enginesInNamespace: readonly Engine[]): string | null {
  const ref = r.spec.engineRef?.name;
  if (ref !== undefined) return ref;
  const [only, ...more] = enginesInNamespace;
  return only !== undefined && more.length === 0 ? only.metadata.name : null;
}

/** Why a resource has no engine, for its condition. */
export function noEngineMessage(r: TargetResource, enginesInNamespace: readonly Engine[]): string {
  const ref = r.spec.engineRef?.name;
  if (ref !== undefined) return `Engine ${ref} does not exist in namespace ${r.metadata.namespace}`;
  if (enginesInNamespace.length === 0) return `no Engine in namespace ${r.metadata.namespace}`;
  return `namespace ${r.metadata.namespace} has ${enginesInNamespace.length} Engines (${enginesInNamespace
    .map((e) => e.metadata.name)
    .sort()
    .join(', ')}); set spec.engineRef`;
}

/**
 * Why a resource is not bound: `ambiguous` (several Engines and no engineRef: a human must choose),
 * `dangling` (its engineRef names no Engine, often one not created yet) or `none` (no Engine in
 * the namespace). Null when it is bound to an existing Engine.
 * See Note [Unbound resources keep their metadata] in engine-reconciler.ts.
 */
export function unboundReason(r: TargetResource, enginesInNamespace: readonly Engine[]): 'ambiguous' | 'dangling' | 'none' | null {
  const ref = r.spec.engineRef?.name;
  if (ref !== undefined) return enginesInNamespace.some((e) => e.metadata.name === ref) ? null : 'dangling';
  if (enginesInNamespace.length === 0) return 'none';
  return enginesInNamespace.length > 1 ? 'ambiguous' : null;
}

/** The metadata API base URL of an Engine. */
export function engineUrl(e: Engine): string | null {
  if (e.spec.url !== undefined) return e.spec.url;
  const d = e.spec.deployment;
  if (d !== undefined) return `http://${e.metadata.name}.${e.metadata.namespace}.svc:${d.port ?? 8080}`;
  const s = e.spec.serviceRef;
  if (s === undefined) return null;
  return `${s.scheme ?? 'http'}://${s.name}.${e.metadata.namespace}.svc:${s.port ?? 8080}`;
}

/** Queue key of an engine. */
export function engineQueueKey(namespace: string, name: string): string {
  return `engine/${namespace}/${name}`;
}

/** Queue key of the resources of a namespace that have no engine. */
export function unboundQueueKey(namespace: string): string {
  return `unbound/${namespace}`;
}

/** Parses a queue key. */
export function parseQueueKey(key: string): { kind: 'engine'; namespace: string; name: string } | { kind: 'unbound'; namespace: string } | null {
  const [kind, namespace, name] = key.split('/');
  if (kind === 'engine' && namespace !== undefined && name !== undefined) return { kind, namespace, name };
  if (kind === 'unbound' && namespace !== undefined) return { kind, namespace };
  return null;
}

/** The plural of a target kind (for API paths). */
export function pluralOf(kind: string): string {
  const k = TARGET_KINDS.find((d) => d.kind === kind);
  if (k === undefined) throw new Error(`unknown kind ${kind}`);
  return k.plural;
}

/** The address of a target resource, for status and finalizer patches. */
export function addressOf(r: TargetResource): { apiVersion: string; plural: string; namespace: string; name: string } {
  return { apiVersion: API_VERSION, plural: pluralOf(r.kind), namespace: r.metadata.namespace, name: r.metadata.name };
}
