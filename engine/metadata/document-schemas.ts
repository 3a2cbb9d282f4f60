/**
 * The schemas the engine checks documents with: schemas/document.ts with the
 * `configuration` schema of each source kind's backend (a source's
 * configuration is its backend's; Note [Backend seam] in backends/registry.ts).
 */
import { createHash } from 'node:crypto';
import { configurationSchemas } from '../backends/registry.ts';
import { documentSchemas, type DocumentSchemas } from '../model/schemas/document.ts';
import { ENGINE_VERSION } from '../version.ts';

/** The document schemas of the backends that exist. */
export const engineDocumentSchemas: DocumentSchemas = documentSchemas(configurationSchemas());

/**
 * Note [Stamp key]
 * What a stored document's stamp (Note [Document stamp] in store.ts) vouches
 * for: that an engine validating with this very schema wrote it. So the key
 * is the engine's version and the stored-document schema itself (its JSON,
 * backends' configuration schemas included): a release, or a schema changed
 * during development, makes every earlier stamp a stranger, and the next
 * start validates the document again.
 */
export const DOCUMENT_STAMP_KEY: string = createHash('sha256')
  .update(ENGINE_VERSION)
  .update('\n')
  .update(JSON.stringify(engineDocumentSchemas.stored))
  .digest('hex');
