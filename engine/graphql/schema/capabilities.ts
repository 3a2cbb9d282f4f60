/** What a source's backend supports, as the schema builder reads it (Note [Backend seam] in backends/registry.ts). */
import type { Capabilities } from '../../backends/backend.ts';
import { backendFor } from '../../backends/registry.ts';
import type { SourceInfo } from '../../catalog/types.ts';

/** The capabilities of `source`'s backend: fields it cannot serve are left out of the schema. */
export function capabilitiesOf(source: Pick<SourceInfo, 'kind'>): Capabilities {
  return backendFor(source.kind).capabilities;
}
