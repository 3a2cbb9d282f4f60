/**
 * `add_host_to_tls_allowlist` and `drop_host_from_tls_allowlist` (v2 compat:
 * entries of the document's `network.tls_allowlist`, one per host and suffix;
 * v2's messages and codes). What the list does: Note [TLS allow-list] in
 * tls-allowlist.ts.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { NETWORK_KEY, tlsAllowlistOf, type JsonObject, type MetadataDocument, type TlsAllowEntry } from '../../../model/document.ts';
import { addHostArgsSchema, dropHostArgsSchema } from '../../../model/schemas/network.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';

/** The document with `list` as its allow-list (the `network` key left out when nothing else is in it). */
function withAllowlist(doc: MetadataDocument, list: readonly TlsAllowEntry[]): MetadataDocument {
  const { [NETWORK_KEY]: previous, ...extra } = doc.extra;
  const rest = typeof previous === 'object' && previous !== null && !Array.isArray(previous) ? { ...(previous as JsonObject) } : {};
  delete rest['tls_allowlist'];
  const network: JsonObject = list.length === 0 ? rest : { ...rest, tls_allowlist: list.map((e) => ({ ...e })) as unknown as JsonObject[] };
  return { ...doc, extra: Object.keys(network).length === 0 ? extra : { ...extra, [NETWORK_KEY]: network } };
}

/** `the host "h"` or `the host "h" with suffix "s"`, as v2 names an entry. */
function named(host: string, suffix: string | undefined): string {
  return suffix === undefined ? `the host ${JSON.stringify(host)}` : `the host ${JSON.stringify(host)} with suffix ${JSON.stringify(suffix)}`;
}

/** The add-host-to-tls-allowlist operation. */
export const addHostToTlsAllowlist = defineOperation<string | TlsAllowEntry>({
  mutates: true,
  schema: addHostArgsSchema,
  async run(ctx, args, call) {
    const entry: TlsAllowEntry = typeof args === 'string' ? { host: args } : args;
    if (entry.host === '') throw new EngineError(ErrorCode.BadRequest, 'key "host" cannot be empty', { path: argPath(call) });
    const list = tlsAllowlistOf(ctx.state.doc);
    if (list.some((e) => e.host === entry.host && e.suffix === entry.suffix)) {
      throw new EngineError(ErrorCode.AlreadyExists, `${named(entry.host, entry.suffix)} already exists in the allowlist`, { path: argPath(call) });
    }
    await ctx.commitEdit({ doc: withAllowlist(ctx.state.doc, [...list, entry]), touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** The drop-host-from-tls-allowlist operation. */
export const dropHostFromTlsAllowlist = defineOperation<{ readonly host: string; readonly suffix?: string }>({
  mutates: true,
  schema: dropHostArgsSchema,
  async run(ctx, args, call) {
    if (args.host === '') throw new EngineError(ErrorCode.BadRequest, 'hostname cannot be empty', { path: argPath(call) });
    const list = tlsAllowlistOf(ctx.state.doc);
    const kept = list.filter((e) => !(e.host === args.host && e.suffix === args.suffix));
    if (kept.length === list.length) {
      throw new EngineError(ErrorCode.NotExists, `${named(args.host, args.suffix)} isn't present in the allowlist`, { path: argPath(call) });
    }
    await ctx.commitEdit({ doc: withAllowlist(ctx.state.doc, kept), touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
