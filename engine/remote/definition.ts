/**
 * The wire shapes of a remote schema in the metadata document (v2 compat:
 * spec "Remote schema", "Remote schema `customization`", "Remote schema
 * permission") and their resolution to what a client needs: the URL and
 * header values with `*_from_env` read at prepare time.
 */
import { resolveEnv } from '../cli/env.ts';
import type { JsonObject } from '../model/document.ts';
import { resolveUrlTemplate, urlTemplateVariables } from '../transforms/index.ts';

/** The stored shapes are the document model's (model/document.ts). */
export type {
  FieldNamesCustomization,
  RemoteCustomization,
  RemoteSchemaDefinition,
  RemoteSchemaMetadata as RemoteSchemaEntry,
  RemoteSchemaPermission as RemoteSchemaPermissionEntry,
  RemoteHeader as RemoteHeaderDef,
} from '../model/document.ts';
import type { RemoteSchemaDefinition, RemoteSchemaMetadata as RemoteSchemaEntry } from '../model/document.ts';

/** The remote schemas of a document, typed (the document keeps them as JSON objects). */
export function remoteSchemaEntries(list: readonly JsonObject[]): readonly RemoteSchemaEntry[] {
  return list as unknown as readonly RemoteSchemaEntry[];
}

/** One type's relationships as stored. */
export interface StoredTypeRelationships {
  readonly type_name: string;
  readonly relationships: ReadonlyArray<{ readonly name: string; readonly definition: JsonObject }>;
}

/** The stored `remote_relationships` of a remote schema entry, typed. */
export function storedTypeRelationships(entry: { readonly remote_relationships?: readonly JsonObject[] }): readonly StoredTypeRelationships[] {
  return (entry.remote_relationships ?? []) as unknown as readonly StoredTypeRelationships[];
}

/** v2 compat: `timeout_seconds` defaults to 60. */
export const DEFAULT_TIMEOUT_SECONDS = 60;

/** Where and how to send requests to a remote schema, resolved. */
export interface RemoteEndpoint {
  readonly url: string;
  /** Configured headers, names as given. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly forwardClientHeaders: boolean;
  readonly timeoutMs: number;
}

/** Resolves the URL and headers of `def` (reading `*_from_env`), or says why it cannot. */
export function resolveEndpoint(def: RemoteSchemaDefinition): RemoteEndpoint | { readonly reason: string } {
  let url = def.url;
  if (url === undefined && def.url_from_env !== undefined) {
    url = resolveEnv(def.url_from_env);
    if (url === undefined || url === '') return { reason: `environment variable "${def.url_from_env}" is not set` };
  }
  if (url === undefined) return { reason: 'the definition has neither url nor url_from_env' };
  // v2 compat: `url` is a webhook template (`{{GRAPHQL_SERVICE}}/graphql`), resolved from the
  // environment as action handlers and cron webhooks are (v2 validateRemoteSchemaDef: resolveWebhook).
  if (def.url !== undefined) {
    const unset = urlTemplateVariables(url).filter((name) => resolveEnv(name) === undefined);
    if (unset.length > 0) return { reason: `environment variable ${unset.map((n) => `"${n}"`).join(', ')} not set` };
    url = resolveUrlTemplate(url, resolveEnv, '$');
  }
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { reason: `the url "${url}" is not http or https` };
  } catch {
    return { reason: `the url "${url}" is not a valid URL` };
  }
  const headers: Array<readonly [string, string]> = [];
  for (const h of def.headers ?? []) {
    if (h.value !== undefined) headers.push([h.name, h.value]);
    else if (h.value_from_env !== undefined) {
      const v = resolveEnv(h.value_from_env);
      if (v === undefined) return { reason: `environment variable "${h.value_from_env}" is not set` };
      headers.push([h.name, v]);
    }
  }
  return {
    url,
    headers,
    forwardClientHeaders: def.forward_client_headers === true,
    timeoutMs: (def.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
  };
}
