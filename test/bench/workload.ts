/**
 * The benchmark workload: the operations of
 * ../shared/data/chinook/workload.graphql (an equivalent of our own when that
 * file is absent), each with the same question written in PostGraphile v5's
 * schema names, and how to bring PostGraphile's answer to Engine's shape so
 * the two can be checked equal before timing.
 */
import { parse, print, type OperationDefinitionNode } from 'graphql';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

/** One workload operation. */
export interface WorkloadOp {
  readonly name: string;
  readonly variables: Readonly<Record<string, Json>>;
  /** The same question in PostGraphile's names (amber preset, lists, connection filter). */
  readonly postgraphileQuery: string;
  /** PostGraphile's `data` in Engine's shape (names, nesting); values are compared after {@link canonical}. */
  fromPostgraphile(data: Obj): Json;
  /** Engine's `data` without what PostGraphile cannot answer (identity when everything maps). */
  comparableEngine(data: Obj): Json;
  /** Parts of the operation PostGraphile answers differently or not at all (shown in the report). */
  readonly caveat: string | null;
  /** Why the `customer` role cannot run it, or null when it can. */
  readonly customerNotApplicable: string | null;
}

/** The user id used as the customer's session variable and as CustomerInvoices' `$id`. */
export const CUSTOMER_ID = 10;

/** Our own equivalent of workload.graphql, used only when the shared file is absent. */
const FALLBACK_WORKLOAD = `
query AlbumByPK { albums_by_pk(id: 1) { id title } }
query SearchAlbumsWithArtist { albums(where: {title: {_like: "%Rock%"}}) { id title artist { name id } } }
query AlbumsArtistTracksGenre {
  albums(limit: 50, order_by: {id: asc}) {
    id title artist { id name }
    tracks(order_by: {id: asc}) { id name milliseconds genre { name } media_type { name } }
  }
}
query ArtistAggregates {
  artists(limit: 100, order_by: {id: asc}) {
    name
    albums_aggregate { aggregate { count } }
    albums(limit: 3) { title tracks_aggregate { aggregate { count sum { milliseconds } } } }
  }
}
query CustomerInvoices($id: Int!) {
  customers_by_pk(id: $id) {
    first_name last_name
    invoices(order_by: {invoice_date: desc}) { total invoice_date invoice_lines { quantity unit_price track { name } } }
  }
}
`;

const obj = (v: Json | undefined): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {});
const arr = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);
const byId = (a: Json, b: Json): number => Number(obj(a)['id']) - Number(obj(b)['id']);

const OPS: readonly WorkloadOp[] = [
  {
    name: 'AlbumByPK',
    variables: {},
    postgraphileQuery: `{ albumByRowId(rowId: 1) { rowId title } }`,
    fromPostgraphile: (d) => {
      const a = d['albumByRowId'];
      return { albums_by_pk: a === null || a === undefined ? null : { id: obj(a)['rowId'] ?? null, title: obj(a)['title'] ?? null } };
    },
    comparableEngine: (d) => d,
    caveat: null,
    customerNotApplicable: null,
  },
  {
    name: 'SearchAlbumsWithArtist',
    variables: {},
    postgraphileQuery: `{ allAlbumsList(filter: {title: {like: "%Rock%"}}) { rowId title artistByArtistId { name rowId } } }`,
    fromPostgraphile: (d) => ({
      albums: arr(d['allAlbumsList'])
        .map((a) => {
          const artist = obj(obj(a)['artistByArtistId']);
          return { id: obj(a)['rowId'] ?? null, title: obj(a)['title'] ?? null, artist: { name: artist['name'] ?? null, id: artist['rowId'] ?? null } };
        })
        .sort(byId),
    }),
    // No order_by in the operation: rows are compared sorted by id.
    comparableEngine: (d) => ({ albums: [...arr(d['albums'])].sort(byId) }),
    caveat: null,
    customerNotApplicable: null,
  },
  {
    name: 'AlbumsArtistTracksGenre',
    variables: {},
    postgraphileQuery: `{ allAlbumsList(first: 50, orderBy: PRIMARY_KEY_ASC) { rowId title artistByArtistId { rowId name }
      tracksByAlbumIdList(orderBy: PRIMARY_KEY_ASC) { rowId name milliseconds genreByGenreId { name } mediaTypeByMediaTypeId { name } } } }`,
    fromPostgraphile: (d) => ({
      albums: arr(d['allAlbumsList']).map((a) => {
        const o = obj(a);
        const artist = o['artistByArtistId'];
        return {
          id: o['rowId'] ?? null,
          title: o['title'] ?? null,
          artist: artist === null || artist === undefined ? null : { id: obj(artist)['rowId'] ?? null, name: obj(artist)['name'] ?? null },
          tracks: arr(o['tracksByAlbumIdList']).map((t) => {
            const x = obj(t);
            const g = x['genreByGenreId'];
            const m = x['mediaTypeByMediaTypeId'];
            return {
              id: x['rowId'] ?? null,
              name: x['name'] ?? null,
              milliseconds: x['milliseconds'] ?? null,
              genre: g === null || g === undefined ? null : { name: obj(g)['name'] ?? null },
              media_type: m === null || m === undefined ? null : { name: obj(m)['name'] ?? null },
            };
          }),
        };
      }),
    }),
    comparableEngine: (d) => d,
    caveat: null,
    customerNotApplicable: null,
  },
  {
    name: 'ArtistAggregates',
    variables: {},
    postgraphileQuery: `{ allArtistsList(first: 100, orderBy: PRIMARY_KEY_ASC) { name albumsByArtistId { totalCount }
      albumsByArtistIdList(first: 3, orderBy: PRIMARY_KEY_ASC) { title
        tracksByAlbumId { totalCount aggregates { sum { milliseconds } } } } } }`,
    fromPostgraphile: (d) => ({
      artists: arr(d['allArtistsList']).map((a) => {
        const o = obj(a);
        return {
          name: o['name'] ?? null,
          albums_aggregate: { aggregate: { count: obj(o['albumsByArtistId'])['totalCount'] ?? null } },
          albums: arr(o['albumsByArtistIdList']).map((al) => {
            const tracks = obj(obj(al)['tracksByAlbumId']);
            const count = tracks['totalCount'] ?? null;
            // pg-aggregates wraps sum in coalesce(…, '0'); v2 (and SQL) answer null for no rows.
            const sum = count === 0 ? null : (obj(obj(tracks['aggregates'])['sum'])['milliseconds'] ?? null);
            return { title: obj(al)['title'] ?? null, tracks_aggregate: { aggregate: { count, sum: { milliseconds: sum } } } };
          }),
        };
      }),
    }),
    // The same question on both sides: counts via connection totalCount and the sum via
    // @graphile/pg-aggregates (a BigInt, so a string, compared as a number by `canonical`).
    // `albums(limit: 3)` has no order_by; PostGraphile is asked for primary-key order, and
    // Engine's answer is compared as is (the index on artist_id gives id order here).
    comparableEngine: (d) => d,
    caveat: null,
    customerNotApplicable: 'the README permission has no allow_aggregations, so `_aggregate` fields are not in the customer schema (v2 semantics)',
  },
  {
    name: 'CustomerInvoices',
    variables: { id: CUSTOMER_ID },
    postgraphileQuery: `query ($id: Int!) { customerByRowId(rowId: $id) { firstName lastName
      invoicesByCustomerIdList(orderBy: INVOICE_DATE_DESC) { total invoiceDate
        invoiceLinesByInvoiceIdList(orderBy: PRIMARY_KEY_ASC) { quantity unitPrice trackByTrackId { name } } } } }`,
    fromPostgraphile: (d) => {
      const c = d['customerByRowId'];
      if (c === null || c === undefined) return { customers_by_pk: null };
      const o = obj(c);
      return {
        customers_by_pk: {
          first_name: o['firstName'] ?? null,
          last_name: o['lastName'] ?? null,
          invoices: arr(o['invoicesByCustomerIdList']).map((i) => ({
            total: obj(i)['total'] ?? null,
            invoice_date: obj(i)['invoiceDate'] ?? null,
            invoice_lines: arr(obj(i)['invoiceLinesByInvoiceIdList']).map((l) => ({
              quantity: obj(l)['quantity'] ?? null,
              unit_price: obj(l)['unitPrice'] ?? null,
              track: { name: obj(obj(l)['trackByTrackId'])['name'] ?? null },
            })),
          })),
        },
      };
    },
    comparableEngine: (d) => d,
    caveat: null,
    customerNotApplicable: null,
  },
];

/** Values compared loosely: numeric strings (PostGraphile's BigFloat) as numbers, timestamps without zone suffix. */
export function canonical(v: Json): Json {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    const out: Obj = {};
    for (const k of Object.keys(v).sort()) out[k] = canonical(v[k] ?? null);
    return out;
  }
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/.test(v)) return `${v.slice(0, 19)}`;
  return v;
}

/** A loaded workload: the operations and the Engine query text of each. */
export interface Workload {
  /**
   * Engine's query text per operation: that operation alone, printed from the
   * document (a whole document is validated as a whole, so one operation the
   * customer may not run would fail all of them).
   */
  readonly engineQuery: ReadonlyMap<string, string>;
  readonly ops: readonly WorkloadOp[];
  /** Where the document came from. */
  readonly origin: string;
}

/** The workload over `documentText` (the shared file's text, or null for our own equivalent). */
export function loadWorkload(documentText: string | null): Workload {
  const document = documentText ?? FALLBACK_WORKLOAD;
  const defs = parse(document).definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  const names = defs.map((d) => d.name?.value ?? '');
  const engineQuery = new Map(defs.map((d) => [d.name?.value ?? '', print(d)]));
  const missing = OPS.filter((o) => !names.includes(o.name)).map((o) => o.name);
  if (missing.length > 0) throw new Error(`workload document lacks ${missing.join(', ')}`);
  const unknown = names.filter((n) => !OPS.some((o) => o.name === n));
  if (unknown.length > 0) throw new Error(`no PostGraphile equivalent written for ${unknown.join(', ')}`);
  return { engineQuery, ops: OPS, origin: documentText === null ? 'test/bench/workload.ts (built-in equivalent)' : 'shared/data/chinook/workload.graphql' };
}
