/**
 * What a V8 heap snapshot consists of: self sizes grouped by node type and
 * constructor name, plain objects further split by their property names (so
 * a GraphQL field definition, an `extensions` object and an argument map are
 * told apart). Given two snapshots, shows what the second adds.
 *
 * Run: node test/bench/heap-summary.ts <after.heapsnapshot> [<before.heapsnapshot>] [--top N] [--retainers TEXT]
 *
 * With `--retainers TEXT`, also what holds the objects whose group contains
 * TEXT: their retainers' groups and the edge's name, by count.
 *
 * The snapshot is parsed from a Buffer (number arrays scanned by hand), so
 * files beyond V8's string limit work too.
 */
import { readFileSync } from 'node:fs';

interface Group {
  count: number;
  size: number;
}

interface Meta {
  readonly node_fields: readonly string[];
  readonly node_types: readonly [readonly string[], ...unknown[]];
  readonly edge_fields: readonly string[];
  readonly edge_types: readonly [readonly string[], ...unknown[]];
}

/** The numbers of the JSON array starting after `key` in `buf`. */
function numberArray(buf: Buffer, key: string): Uint32Array {
  const start = buf.indexOf(`"${key}":[`);
  if (start < 0) throw new Error(`no ${key} in snapshot`);
  let i = start + key.length + 4;
  const end = buf.indexOf(']', i);
  let count = 0;
  for (let k = i; k < end; k++) if (buf[k] === 0x2c) count++;
  const out = new Uint32Array(end > i ? count + 1 : 0);
  let n = 0;
  let v = 0;
  let inNumber = false;
  for (; i < end; i++) {
    const c = buf[i] ?? 0;
    if (c >= 0x30 && c <= 0x39) {
      v = v * 10 + (c - 0x30);
      inNumber = true;
    } else if (c === 0x2c) {
      out[n++] = v;
      v = 0;
      inNumber = false;
    }
  }
  if (inNumber) out[n++] = v;
  return out.subarray(0, n);
}

function strings(buf: Buffer): string[] {
  const start = buf.indexOf('"strings":[');
  const end = buf.lastIndexOf(']');
  return JSON.parse(buf.subarray(start + 10, end + 1).toString('utf8')) as string[];
}

/** Self sizes by group key. */
export function summarize(file: string, retainersOf?: string): Map<string, Group> {
  const buf = readFileSync(file);
  const metaStart = buf.indexOf('"meta":');
  const metaEnd = buf.indexOf('"node_count"');
  const metaText = buf
    .subarray(metaStart + 7, metaEnd)
    .toString('utf8')
    .replace(/,\s*$/, '');
  const meta = JSON.parse(metaText) as Meta;
  const nodes = numberArray(buf, 'nodes');
  const edges = numberArray(buf, 'edges');
  const str = strings(buf);
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const nType = meta.node_fields.indexOf('type');
  const nName = meta.node_fields.indexOf('name');
  const nSize = meta.node_fields.indexOf('self_size');
  const nEdges = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type');
  const eName = meta.edge_fields.indexOf('name_or_index');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const propertyEdge = edgeTypes.indexOf('property');
  const eTo = meta.edge_fields.indexOf('to_node');
  const count = nodes.length / nf;
  const keys = new Array<string>(count);
  const firstEdge = new Uint32Array(count);
  let edge = 0;
  for (let k = 0, n = 0; n < nodes.length; k++, n += nf) {
    const type = nodeTypes[nodes[n + nType] ?? 0] ?? '?';
    const name = str[nodes[n + nName] ?? 0] ?? '?';
    const edgeCount = nodes[n + nEdges] ?? 0;
    firstEdge[k] = edge;
    let key: string;
    if (type === 'object' && (name === 'Object' || name === 'Object (null prototype)')) {
      const props: string[] = [];
      for (let e = edge; e < edge + edgeCount * ef; e += ef) {
        if (edges[e + eType] === propertyEdge) props.push(str[edges[e + eName] ?? 0] ?? '?');
      }
      // Maps keyed by GraphQL names (fields, args, values) have varying keys: show their count only.
      key = props.length > 12 ? `${name} {${props.length} props}` : `${name} {${props.join(',')}}`;
    } else if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
      key = `(${type})`;
    } else if (type === 'closure') {
      key = `closure ${name}`;
    } else if (type === 'object') {
      key = name;
    } else {
      key = `(${type}) ${type === 'hidden' || type === 'array' || type === 'code' ? name.slice(0, 60) : ''}`;
    }
    keys[k] = key;
    edge += edgeCount * ef;
  }
  // Property stores and element arrays are charged to the object holding them.
  for (let k = 0; k < count; k++) {
    const owner = keys[k] ?? '?';
    if (owner.startsWith('(array)')) continue;
    const edgeCount = nodes[k * nf + nEdges] ?? 0;
    for (let e = firstEdge[k] ?? 0; e < (firstEdge[k] ?? 0) + edgeCount * ef; e += ef) {
      if (edges[e + eType] === propertyEdge) continue;
      const to = (edges[e + eTo] ?? 0) / nf;
      const target = keys[to];
      if (target !== undefined && target.startsWith('(array)') && !target.includes(' of ')) keys[to] = `${target} of ${owner}`;
    }
  }
  if (retainersOf !== undefined) printRetainers(retainersOf);
  function printRetainers(text: string): void {
    const held = new Uint8Array(count);
    for (let k = 0; k < count; k++) if ((keys[k] ?? '').includes(text)) held[k] = 1;
    const by = new Map<string, number>();
    for (let k = 0; k < count; k++) {
      const edgeCount = nodes[k * nf + nEdges] ?? 0;
      for (let e = firstEdge[k] ?? 0; e < (firstEdge[k] ?? 0) + edgeCount * ef; e += ef) {
        const to = (edges[e + eTo] ?? 0) / nf;
        if (held[to] !== 1) continue;
        const kind = edgeTypes[edges[e + eType] ?? 0] ?? '?';
        const name = kind === 'element' || kind === 'hidden' ? `[${kind}]` : (str[edges[e + eName] ?? 0] ?? '?');
        const key = `${keys[k] ?? '?'} --${name}-->`;
        by.set(key, (by.get(key) ?? 0) + 1);
      }
    }
    console.log(`retainers of ${text}:`);
    for (const [key, n] of [...by].sort((x, y) => y[1] - x[1]).slice(0, 15)) console.log(`  ${n} ${key}`);
  }
  const groups = new Map<string, Group>();
  for (let k = 0; k < count; k++) {
    const key = keys[k] ?? '?';
    let g = groups.get(key);
    if (g === undefined) {
      g = { count: 0, size: 0 };
      groups.set(key, g);
    }
    g.count++;
    g.size += nodes[k * nf + nSize] ?? 0;
  }
  return groups;
}

function main(): void {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 40;
  const retainersAt = args.indexOf('--retainers');
  const retainers = retainersAt >= 0 ? args[retainersAt + 1] : undefined;
  const files = args.filter((a, i) => !a.startsWith('--') && (topAt < 0 || i !== topAt + 1) && (retainersAt < 0 || i !== retainersAt + 1));
  const [after, before] = files;
  if (after === undefined) throw new Error('usage: heap-summary.ts <after.heapsnapshot> [<before.heapsnapshot>] [--top N]');
  const a = summarize(after, retainers);
  const b = before === undefined ? new Map<string, Group>() : summarize(before);
  const rows = [...a].map(([k, g]) => {
    const o = b.get(k) ?? { count: 0, size: 0 };
    return { key: k, count: g.count - o.count, size: g.size - o.size };
  });
  const total = rows.reduce((s, r) => s + r.size, 0);
  rows.sort((x, y) => y.size - x.size);
  const mib = (n: number): string => (n / 1024 / 1024).toFixed(1);
  console.log(`${before === undefined ? 'heap' : 'added'}: ${mib(total)} MiB self size`);
  console.log('| MiB | % | count | avg B | what |\n|---:|---:|---:|---:|---|');
  for (const r of rows.slice(0, top)) {
    console.log(
      `| ${mib(r.size)} | ${((100 * r.size) / total).toFixed(1)} | ${r.count} | ${r.count === 0 ? '-' : Math.round(r.size / r.count)} | ${r.key.replaceAll('|', '\\|')} |`,
    );
  }
}

if (import.meta.main) main();
