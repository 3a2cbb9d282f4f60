/**
 * Writing status and finalizers of custom objects. Status goes through the `/status`
 * subresource with a JSON merge patch (the controller owns all of status); finalizers go through
 * a merge patch carrying metadata.resourceVersion, so a concurrent change to the list fails with
 * 409 instead of being overwritten (the key is then simply requeued).
 */
import { FINALIZER } from '../api/v1alpha1/common.ts';
import { KubeApiError, PatchType, objectPath, type KubeApi } from './kube-api.ts';

/** Identifies one custom object. */
export interface ObjectAddress {
  readonly apiVersion: string;
  readonly plural: string;
  readonly namespace: string;
  readonly name: string;
}

/** Merge-patches `.status` of an object. */
export async function patchStatus(api: KubeApi, at: ObjectAddress, status: Record<string, unknown>): Promise<void> {
  const path = `${objectPath(at.apiVersion, at.plural, at.namespace, at.name)}/status`;
  await api.request('PATCH', path, { status }, PatchType.Merge);
}

/** True when the object carries the controller's finalizer. */
export function hasFinalizer(meta: { readonly finalizers?: readonly string[] }): boolean {
  return (meta.finalizers ?? []).includes(FINALIZER);
}

async function setFinalizers(api: KubeApi, at: ObjectAddress, resourceVersion: string | undefined, finalizers: readonly string[]): Promise<void> {
  const path = objectPath(at.apiVersion, at.plural, at.namespace, at.name);
  const metadata: Record<string, unknown> = { finalizers };
  if (resourceVersion !== undefined) metadata['resourceVersion'] = resourceVersion;
  try {
    await api.request('PATCH', path, { metadata }, PatchType.Merge);
  } catch (e) {
    // Already gone (its last finalizer was removed): nothing left to do.
    if (e instanceof KubeApiError && e.status === 404) return;
    throw e;
  }
}

/** Adds the controller's finalizer (before anything is written to the engine). */
export async function addFinalizer(
  api: KubeApi,
  at: ObjectAddress,
  meta: { readonly resourceVersion?: string; readonly finalizers?: readonly string[] },
): Promise<void> {
  if (hasFinalizer(meta)) return;
  await setFinalizers(api, at, meta.resourceVersion, [...(meta.finalizers ?? []), FINALIZER]);
}

/** Removes the controller's finalizer (after the engine no longer holds what the object declared). */
export async function removeFinalizer(
  api: KubeApi,
  at: ObjectAddress,
  meta: { readonly resourceVersion?: string; readonly finalizers?: readonly string[] },
): Promise<void> {
  if (!hasFinalizer(meta)) return;
  await setFinalizers(
    api,
    at,
    meta.resourceVersion,
    (meta.finalizers ?? []).filter((f) => f !== FINALIZER),
  );
}
