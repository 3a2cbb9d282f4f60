/**
 * Prepares the remote schemas of a document for a catalog build (Note
 * [Preparers] in catalog/prepared.ts): resolves each definition's URL and
 * headers and introspects the server, reusing the earlier result while the
 * definition is unchanged and the remote is not named in `refresh`
 * (`reload_remote_schema`, `reload_metadata`). So a GraphQL request never
 * introspects: only metadata calls and the start do.
 */
import type { GraphQLSchema } from 'graphql';
import type { ObjectPreparer, Refresh } from '../catalog/prepared.ts';
import { ErrorCode } from '../errors/codes.ts';
import { tlsAllowlistOf, type MetadataDocument } from '../model/document.ts';
import { urlAllowedBy } from '../tls-allowlist.ts';
import { remoteSchemaEntries, resolveEndpoint, type RemoteEndpoint, type RemoteSchemaDefinition } from './definition.ts';
import { introspectRemote } from './introspect.ts';

/** A remote schema whose server answered introspection. */
export interface ReadyRemoteSchema {
  readonly ok: true;
  readonly name: string;
  /** Identifies the definition; a different key means introspecting again. */
  readonly configKey: string;
  readonly endpoint: RemoteEndpoint;
  /** The remote's schema as introspected (original names). */
  readonly schema: GraphQLSchema;
}

/** A remote schema that could not be introspected. */
export interface FailedRemoteSchema {
  readonly ok: false;
  readonly name: string;
  readonly configKey: string;
  readonly reason: string;
  /** The error code of a call refused for it, when not `invalid-configuration` (Note [Remote schema error codes] in introspect.ts). */
  readonly code?: ErrorCode;
}

/** A remote schema as prepared for a build. */
export type PreparedRemoteSchema = ReadyRemoteSchema | FailedRemoteSchema;

/** Prepared remote schemas by name. */
export type PreparedRemoteSchemas = ReadonlyMap<string, PreparedRemoteSchema>;

function configKeyOf(def: RemoteSchemaDefinition, endpoint: RemoteEndpoint | { reason: string }, unverifiedTls: boolean): string {
  // Whether the TLS allow-list takes the host in is part of the key: adding the host introspects again.
  return JSON.stringify([def.url, def.url_from_env, def.headers, def.forward_client_headers, def.timeout_seconds, endpoint, unverifiedTls]);
}

/** The remote-schema preparer. Holds no clients of its own (the HTTP agent is shared), so retain/closeAll have nothing to do. */
export class RemoteSchemaPreparer implements ObjectPreparer<PreparedRemoteSchema> {
  async prepare(doc: MetadataDocument, current: PreparedRemoteSchemas, refresh: Refresh = new Set()): Promise<PreparedRemoteSchemas> {
    const out = new Map<string, PreparedRemoteSchema>();
    const tlsAllowlist = tlsAllowlistOf(doc);
    await Promise.all(
      remoteSchemaEntries(doc.remote_schemas).map(async (entry) => {
        const endpoint = resolveEndpoint(entry.definition);
        const unverifiedTls = 'url' in endpoint && urlAllowedBy(tlsAllowlist, endpoint.url);
        const configKey = configKeyOf(entry.definition, endpoint, unverifiedTls);
        const known = current.get(entry.name);
        const fresh = refresh === 'all' || refresh.has(entry.name);
        if (known !== undefined && known.configKey === configKey && !fresh) {
          out.set(entry.name, known);
          return;
        }
        if ('reason' in endpoint) {
          out.set(entry.name, { ok: false, name: entry.name, configKey, reason: endpoint.reason, code: ErrorCode.InvalidParams });
          return;
        }
        const r = await introspectRemote(endpoint, entry.definition.url ?? entry.definition.url_from_env, unverifiedTls);
        out.set(
          entry.name,
          'reason' in r
            ? { ok: false, name: entry.name, configKey, reason: r.reason, ...(r.code === undefined ? {} : { code: r.code }) }
            : { ok: true, name: entry.name, configKey, endpoint, schema: r.schema },
        );
      }),
    );
    return out;
  }
  retain(): void {}
  async closeAll(): Promise<void> {}
}
