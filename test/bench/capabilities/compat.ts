/**
 * Bench cell of the v2 compatibility paths (issue 15): a v1 `select` on
 * /v1/query against the same read as GraphQL on /v1/graphql (the v1 call is
 * rewritten into that operation: Note [Legacy DML]), a v1 `count`, and a
 * batched body of three queries (run in order) against one query, and the
 * Relay API (/v1beta1/relay): the same read as a connection page, first and
 * after a cursor (one cached plan for every cursor: Note [Relay connections]).
 */
import { metadataCall } from '../lib/engine-metadata.ts';
import { startEngine } from '../lib/engine.ts';
import { runLoad, type LoadTarget } from '../lib/load.ts';
import type { CapabilityBench } from './types.ts';

const SCHEMA = `
CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE articles (id serial PRIMARY KEY, author_id int NOT NULL REFERENCES authors(id), title text NOT NULL, words int NOT NULL);
INSERT INTO authors (name) SELECT 'author ' || g FROM generate_series(1, 200) g;
INSERT INTO articles (author_id, title, words) SELECT 1 + (g % 200), 'article ' || g, g % 1000 FROM generate_series(1, 5000) g;
`;

const GRAPHQL = '{ authors(where: {id: {_lt: 20}}, order_by: {id: asc}) { id name articles(order_by: {id: asc}, limit: 5) { title } } }';
const V1_SELECT = {
  type: 'select',
  args: {
    table: 'authors',
    columns: ['id', 'name', { name: 'articles', columns: ['title'], order_by: ['id'], limit: 5 }],
    where: { id: { $lt: 20 } },
    order_by: ['id'],
  },
};

const RELAY = `query ($after: String) { authors_connection(first: 19, after: $after, where: {id: {_lt: 40}}) {
  edges { cursor node { id name articles_connection(first: 5) { edges { node { title } } } } } pageInfo { hasNextPage endCursor } } }`;
/** The cursor of author 10 (v2's: base64 of its primary key object). */
const AFTER_10 = Buffer.from('{"id" : 10}').toString('base64');

const bench: CapabilityBench = async (ctx) => {
  const url = await ctx.postgres.createDatabase('compat');
  await ctx.postgres.sql('compat', SCHEMA);
  const engine = await startEngine(url);
  try {
    await metadataCall(engine.url, {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'authors' } },
        { type: 'pg_track_table', args: { table: 'articles' } },
        {
          type: 'pg_create_array_relationship',
          args: { table: 'authors', name: 'articles', using: { foreign_key_constraint_on: { table: 'articles', column: 'author_id' } } },
        },
      ],
    });
    const json = { 'content-type': 'application/json' };
    const targets: Array<[string, LoadTarget]> = [
      ['GraphQL query (/v1/graphql)', { url: `${engine.url}/v1/graphql`, body: JSON.stringify({ query: GRAPHQL }), headers: json }],
      ['v1 select, same read (/v1/query)', { url: `${engine.url}/v1/query`, body: JSON.stringify(V1_SELECT), headers: json }],
      [
        'v1 count (/v1/query)',
        { url: `${engine.url}/v1/query`, body: JSON.stringify({ type: 'count', args: { table: 'articles', where: { words: { $gt: 500 } } } }), headers: json },
      ],
      ['Relay connection, same read (/v1beta1/relay)', { url: `${engine.url}/v1beta1/relay`, body: JSON.stringify({ query: RELAY }), headers: json }],
      [
        'Relay connection after a cursor (/v1beta1/relay)',
        { url: `${engine.url}/v1beta1/relay`, body: JSON.stringify({ query: RELAY, variables: { after: AFTER_10 } }), headers: json },
      ],
      [
        'batch of 3 queries (/v1/graphql)',
        { url: `${engine.url}/v1/graphql`, body: JSON.stringify([{ query: GRAPHQL }, { query: GRAPHQL }, { query: GRAPHQL }]), headers: json },
      ],
    ];
    const rows = [];
    for (const [name, target] of targets) {
      ctx.log(name);
      const r = await runLoad(
        target,
        ctx.quick ? { connections: 2, requests: 200 } : { connections: ctx.connections, seconds: ctx.seconds },
        engine.child.pid,
        ctx.postgres.postmasterPid,
      );
      rows.push({
        request: name,
        'req/s': Math.round(r.rps),
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        'engine CPU ms/req': r.serverCpuMsPerReq === null ? null : Number(r.serverCpuMsPerReq.toFixed(3)),
        'PostgreSQL CPU ms/req': Number(r.postgresCpuMsPerReq.toFixed(3)),
        errors: r.errors + r.non2xx,
      });
    }
    return {
      tables: [{ title: 'v2 compatibility paths, admin role', rows }],
      notes: [
        '20 authors with up to 5 articles each, out of 200 authors and 5,000 articles; every request is a plan-cache hit after the first.',
        'The v1 select is rewritten into the GraphQL query of the first row (Note [Legacy DML]); its extra cost is the rewrite and reshaping per request.',
        'A batch runs its three operations one after the other (each sees the earlier ones), so its latency is about three queries.',
        'The Relay rows read 19 authors with 5 articles each as connections (cursors, node ids, pageInfo); after a cursor the page starts at author 11.',
      ],
    };
  } finally {
    await engine.stop();
  }
};

export default bench;
