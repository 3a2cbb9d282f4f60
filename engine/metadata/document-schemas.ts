/**
 * The schemas the engine checks documents with: schemas/document.ts with the
 * `configuration` schema of each source kind's backend (a source's
 * configuration is its backend's; Note [Backend seam] in backends/registry.ts).
 */
import { configurationSchemas } from '../backends/registry.ts';
import { documentSchemas, type DocumentSchemas } from '../model/schemas/document.ts';

/** The document schemas of the backends that exist. */
export const engineDocumentSchemas: DocumentSchemas = documentSchemas(configurationSchemas());
