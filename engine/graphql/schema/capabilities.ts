/** What a source's backend supports, as the schema builder reads it (Note [Backend seam] in backends/registry.ts). */
import type { Capabilities } from '../../backends/backend.ts';
import { backendOf } from '../../backends/registry.ts';
import type { SourceInfo } from '../../catalog/types.ts';

/** The capabilities of `source`'s backend: fields it cannot serve are left out of the schema. */
export function capabilitiesOf(source: Pick<SourceInfo, 'kind' | 'backend'>): Capabilities {
  return backendOf(source).capabilities;
}

/** Whether `source` serves live queries (its backend has the support): its fields are on subscription_root. */
export function servesLiveQueries(source: Pick<SourceInfo, 'kind' | 'backend'>): boolean {
  return backendOf(source).liveQueries !== undefined;
}
