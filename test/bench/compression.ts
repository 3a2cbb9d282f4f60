/**
 * What compressing a GraphQL answer costs (Note [Response compression] in
 * engine/server/compression.ts): for JSON answers of several sizes, the
 * wall time per answer of engine/server/compression.ts's `compress` (async
 * zlib, the thread pool) for gzip and brotli, the bytes saved, and brotli at
 * its default quality 11 for comparison. No database, no HTTP.
 *
 *   node test/bench/compression.ts [rounds]
 */
import { brotliCompressSync } from 'node:zlib';
import { compress, type Coding } from '../../engine/server/compression.ts';

const rounds = Number(process.argv[2] ?? 400);

/** A JSON answer like the engine's: rows of ids, names and numbers, `bytes` long or a little more. */
function answer(bytes: number): string {
  const rows: string[] = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const row = `{"id":${i},"name":"Track number ${i} of album ${i % 97}","milliseconds":${(i * 7919) % 400000},"unit_price":0.99}`;
    rows.push(row);
    size += row.length + 1;
  }
  return `{"data":{"tracks":[${rows.join(',')}]}}`;
}

async function timeAsync(body: string, coding: Coding): Promise<{ us: number; bytes: number }> {
  let bytes = 0;
  for (let i = 0; i < 20; i++) await compress(body, coding);
  const t0 = performance.now();
  for (let i = 0; i < rounds; i++) bytes = (await compress(body, coding)).length;
  return { us: ((performance.now() - t0) * 1000) / rounds, bytes };
}

console.log('| answer bytes | gzip µs | gzip bytes | br(q4) µs | br(q4) bytes | br(q11) µs | br(q11) bytes |');
console.log('|---:|---:|---:|---:|---:|---:|---:|');
for (const size of [512, 2048, 8192, 65536, 524288]) {
  const body = answer(size);
  const g = await timeAsync(body, 'gzip');
  const b = await timeAsync(body, 'br');
  const n11 = Math.max(5, Math.floor(rounds / 20));
  const t0 = performance.now();
  let b11 = 0;
  for (let i = 0; i < n11; i++) b11 = brotliCompressSync(body).length;
  const us11 = ((performance.now() - t0) * 1000) / n11;
  console.log(`| ${body.length} | ${g.us.toFixed(0)} | ${g.bytes} | ${b.us.toFixed(0)} | ${b.bytes} | ${us11.toFixed(0)} | ${b11} |`);
}

// What every request pays for media types and compression when nothing is compressed: the
// checks the fast path runs on a v2 client's headers (Note [JSON request bodies only]).
const { isJsonContentType, responseMediaFor } = await import('../../engine/server/media-type.ts');
const { codingFor } = await import('../../engine/server/compression.ts');
const headerSets: Array<[string, string | undefined, string | undefined, string | undefined]> = [
  ['no Accept, no Accept-Encoding', 'application/json', undefined, undefined],
  ['browser-like', 'application/json', '*/*', 'gzip, deflate, br'],
  ['graphql-response+json', 'application/json; charset=utf-8', 'application/graphql-response+json, application/json', 'gzip'],
];
console.log('\n| headers | ns per request (content type + media + coding checks) |');
console.log('|---|---:|');
for (const [name, contentType, accept, acceptEncoding] of headerSets) {
  const n = 2_000_000;
  let sink = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    if (isJsonContentType(contentType)) sink++;
    if (responseMediaFor(accept) === 'json') sink++;
    if (codingFor(acceptEncoding, 300) === null) sink++;
  }
  const ns = ((performance.now() - t0) * 1e6) / n;
  console.log(`| ${name} | ${ns.toFixed(1)} |${sink === 0 ? ' ' : ''}`);
}
