/**
 * Results: the JSON of every run, a Markdown table of medians with the
 * Engine/PostGraphile and Engine/raw-SQL ratios, and a hand-written SVG bar
 * chart of requests per second.
 */
import type { CapabilityOutcome } from '../capabilities/load.ts';
import { PEERS, type PeerName, type RoleName } from './peers.ts';
import type { LoadResult } from './load.ts';

/** One timed run. */
export interface RunRecord extends LoadResult {
  readonly dataset: string;
  readonly op: string;
  readonly role: RoleName;
  readonly peer: PeerName;
  readonly rep: number;
}

/** Medians over the repeats of one peer in one cell. */
export interface PeerSummary {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly rssMiB: number | null;
  /** CPU µs per request of the peer's process and of PostgreSQL. */
  readonly serverCpuUs: number | null;
  readonly postgresCpuUs: number;
  /** req/s of every repeat. */
  readonly runs: number[];
}

/** One (dataset, operation, role) row of the summary. */
export interface SummaryRow {
  readonly dataset: string;
  readonly op: string;
  readonly role: RoleName;
  /** Why the cell was not run, or null. */
  readonly notApplicable: string | null;
  readonly caveat: string | null;
  /** Bytes of Engine's response body. */
  readonly responseBytes: number | null;
  /** Medians over repeats per peer (absent when not run). */
  readonly peers: Partial<Record<PeerName, PeerSummary>>;
}

/**
 * Metadata-at-scale numbers. "Ready" means admin and every role have
 * answered a query, whether role schemas are built lazily or in the
 * background after a change.
 */
export interface ScaleResult {
  readonly tables: number;
  readonly roles: number;
  readonly foreignKeys: number;
  readonly metadataBytes: number;
  readonly replaceMetadataMs: number;
  readonly replaceToReadyMs: number;
  readonly trackOneMoreMs: number;
  /** Tracking plus the first admin query on the new table. */
  readonly trackThenFirstQueryMs: number;
  readonly trackToReadyMs: number;
  /** Tracking a table made by a separate client (the first metadata call after that DDL re-reads the source). */
  readonly trackExternalMs?: number;
  readonly restartToHealthyMs: number;
  readonly restartToFirstQueryMs: number;
  readonly restartToReadyMs: number;
  readonly rssAfterReplaceMiB: number | null;
  readonly rssReadyMiB: number | null;
  /** 20 s later (Note [Settled RSS] in scale.ts); absent in older results. */
  readonly rssSettledMiB?: number | null;
  readonly rssAfterRestartMiB: number | null;
  readonly rssAfterRestartSettledMiB?: number | null;
  /** The engine process's CPU time over the same spans (steadier than wall time on a shared machine). */
  readonly cpu?: { readonly replaceToReadyMs: number; readonly trackOneMoreMs: number; readonly trackToReadyMs: number; readonly restartToReadyMs: number };
}

/** One size of the scale curve (lib/scale.ts runScaleCurve): tracking one more table, medians. */
export interface ScaleCurvePoint {
  readonly tables: number;
  readonly roles: number;
  readonly trackAnswerMs: number;
  readonly trackThenFirstQueryMs: number;
  readonly trackToReadyMs: number;
  /** The engine process's CPU time for the answer, and from the call to every role answered. */
  readonly trackAnswerCpuMs: number;
  readonly trackToReadyCpuMs: number;
  readonly rssReadyMiB: number | null;
}

/** Everything one `npm run bench` produced. */
export interface BenchReport {
  readonly command: string;
  readonly startedAt: string;
  readonly machine: Record<string, string | number>;
  readonly settings: Record<string, string | number | boolean>;
  readonly notes: readonly string[];
  readonly summary: readonly SummaryRow[];
  readonly runs: readonly RunRecord[];
  readonly idleEngineRssMiB: Record<string, number | null>;
  readonly scale: ScaleResult | null;
  /** `--scale-curve`: the same change at several sizes. */
  readonly scaleCurve?: readonly ScaleCurvePoint[];
  /** The capability cells' outcomes (test/bench/capabilities/), in the JSON file. */
  readonly capabilities?: readonly CapabilityOutcome[];
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 === 1 ? (s[m] ?? NaN) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

/** Medians per peer of the runs of one cell. */
export function summarize(runs: readonly RunRecord[]): SummaryRow['peers'] {
  const out: SummaryRow['peers'] = {};
  for (const peer of PEERS) {
    const mine = runs.filter((r) => r.peer === peer);
    if (mine.length === 0) continue;
    const rss = mine.map((r) => r.rssMiB).filter((x): x is number => x !== null);
    const cpu = mine.map((r) => r.serverCpuMsPerReq).filter((x): x is number => x !== null);
    out[peer] = {
      rps: median(mine.map((r) => r.rps)),
      p50: median(mine.map((r) => r.p50)),
      p99: median(mine.map((r) => r.p99)),
      rssMiB: rss.length === 0 ? null : Math.max(...rss),
      serverCpuUs: cpu.length === 0 ? null : median(cpu) * 1000,
      postgresCpuUs: median(mine.map((r) => r.postgresCpuMsPerReq)) * 1000,
      runs: mine.map((r) => Math.round(r.rps)),
    };
  }
  return out;
}

const fmt = (n: number | undefined, digits = 0): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits));
const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined || b === 0 ? '–' : `${(a / b).toFixed(2)}×`);

/** The Markdown report. */
export function renderMarkdown(r: BenchReport): string {
  const lines: string[] = [];
  lines.push(`# Engine benchmark (${r.startedAt})`, '');
  lines.push(`Command: \`${r.command}\``, '');
  lines.push(
    'Machine: ' +
      Object.entries(r.machine)
        .map(([k, v]) => `${k} ${v}`)
        .join('; '),
    '',
  );
  lines.push(
    'Settings: ' +
      Object.entries(r.settings)
        .map(([k, v]) => `${k} ${String(v)}`)
        .join('; '),
    '',
  );
  for (const n of r.notes) lines.push(`- ${n}`);
  lines.push('');
  const datasets = [...new Set(r.summary.map((s) => s.dataset))];
  for (const ds of datasets) {
    lines.push(`## Data set \`${ds}\` (idle Engine RSS after setup: ${fmt(r.idleEngineRssMiB[ds] ?? undefined)} MiB)`, '');
    lines.push(
      '| operation | role | Engine req/s | PostGraphile req/s | raw SQL req/s | Engine/PostGraphile | Engine/raw | Engine p50 / p99 ms | PostGraphile p50 / p99 ms | raw p50 / p99 ms | CPU µs/req server + PG: Engine | PostGraphile | raw | Engine RSS MiB | PostGraphile RSS MiB | response bytes |',
    );
    lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const s of r.summary.filter((x) => x.dataset === ds)) {
      if (s.notApplicable !== null) {
        lines.push(`| ${s.op} | ${s.role} | n/a | n/a | n/a | – | – | – | – | – | – | – | – | – | – | – |`);
        continue;
      }
      const e = s.peers.engine;
      const p = s.peers.postgraphile;
      const w = s.peers.raw;
      const lat = (x: PeerSummary | undefined): string => (x === undefined ? '–' : `${x.p50} / ${x.p99}`);
      const cpu = (x: PeerSummary | undefined): string => (x === undefined ? '–' : `${fmt(x.serverCpuUs ?? undefined)} + ${fmt(x.postgresCpuUs)}`);
      lines.push(
        `| ${s.op}${s.caveat === null ? '' : ' ¹'} | ${s.role} | ${fmt(e?.rps)} | ${fmt(p?.rps)} | ${fmt(w?.rps)} | ${ratio(e?.rps, p?.rps)} | ${ratio(e?.rps, w?.rps)} | ${lat(e)} | ${lat(p)} | ${lat(w)} | ${cpu(e)} | ${cpu(p)} | ${cpu(w)} | ${fmt(e?.rssMiB ?? undefined)} | ${fmt(p?.rssMiB ?? undefined)} | ${s.responseBytes ?? '–'} |`,
      );
    }
    lines.push('');
  }
  const caveats = [...new Map(r.summary.filter((s) => s.caveat !== null).map((s) => [s.op, s.caveat])).entries()];
  for (const [op, c] of caveats) lines.push(`¹ ${op}: ${c}.`);
  const na = [...new Map(r.summary.filter((s) => s.notApplicable !== null).map((s) => [`${s.op} as ${s.role}`, s.notApplicable])).entries()];
  for (const [cell, why] of na) lines.push(`n/a ${cell}: ${why}.`);
  lines.push('');
  if (r.scale !== null) {
    const s = r.scale;
    lines.push(
      `## Metadata at scale: ${s.tables} tables, ${s.foreignKeys} foreign keys (one relationship each way), ${s.roles} roles with select permissions on every table`,
      '',
    );
    lines.push('| measure | value |', '|---|---:|');
    lines.push(`| metadata document | ${(s.metadataBytes / 1024 / 1024).toFixed(1)} MiB |`);
    lines.push(`| replace_metadata (answer) | ${fmt(s.replaceMetadataMs)} ms |`);
    lines.push(`| replace_metadata → admin and all ${s.roles} roles answered | ${fmt(s.replaceToReadyMs)} ms |`);
    lines.push(`| track one more table afterwards (pg_track_table answer) | ${fmt(s.trackOneMoreMs)} ms |`);
    lines.push(`| track one more → first admin query on it answered | ${fmt(s.trackThenFirstQueryMs)} ms |`);
    lines.push(`| track one more → admin and all roles answered | ${fmt(s.trackToReadyMs)} ms |`);
    if (s.trackExternalMs !== undefined) lines.push(`| track a table made by a separate client (pg_track_table answer) | ${fmt(s.trackExternalMs)} ms |`);
    lines.push(`| restart: spawn → /healthz 200 | ${fmt(s.restartToHealthyMs)} ms |`);
    lines.push(`| restart: spawn → first admin query answered | ${fmt(s.restartToFirstQueryMs)} ms |`);
    lines.push(`| restart: spawn → admin and all roles answered | ${fmt(s.restartToReadyMs)} ms |`);
    lines.push(`| RSS right after replace_metadata | ${fmt(s.rssAfterReplaceMiB ?? undefined)} MiB |`);
    lines.push(`| RSS with every role schema built | ${fmt(s.rssReadyMiB ?? undefined)} MiB |`);
    if (s.rssSettledMiB !== undefined) lines.push(`| RSS 20 s later | ${fmt(s.rssSettledMiB ?? undefined)} MiB |`);
    lines.push(`| RSS after restart, every role schema built | ${fmt(s.rssAfterRestartMiB ?? undefined)} MiB |`);
    if (s.rssAfterRestartSettledMiB !== undefined) lines.push(`| RSS after restart, 20 s later | ${fmt(s.rssAfterRestartSettledMiB ?? undefined)} MiB |`);
    if (s.cpu !== undefined) {
      lines.push(`| engine CPU: replace_metadata → all roles answered | ${fmt(s.cpu.replaceToReadyMs)} ms |`);
      lines.push(`| engine CPU: pg_track_table answer | ${fmt(s.cpu.trackOneMoreMs)} ms |`);
      lines.push(`| engine CPU: track one more → all roles answered | ${fmt(s.cpu.trackToReadyMs)} ms |`);
      lines.push(`| engine CPU: restart → all roles answered | ${fmt(s.cpu.restartToReadyMs)} ms |`);
    }
    lines.push('');
    lines.push(
      'Hasura v2 reference (user reports, not measured here): ~30 s to track one table at 2,000 tables (#9989); ~10.7 GiB RSS at 5,000 tables × 11 roles (#10315).',
      '',
    );
  }
  if (r.scaleCurve !== undefined && r.scaleCurve.length > 0) {
    const roles = r.scaleCurve[0]?.roles ?? 0;
    lines.push(`## Tracking one more table at each size (${roles} roles, medians of 3)`, '');
    lines.push(
      '| tables | pg_track_table answer | → first admin query on it | → admin and all roles answered | engine CPU: answer | engine CPU: → all roles | RSS, every role schema built |',
    );
    lines.push('|---:|---:|---:|---:|---:|---:|---:|');
    for (const p of r.scaleCurve) {
      lines.push(
        `| ${p.tables} | ${fmt(p.trackAnswerMs)} ms | ${fmt(p.trackThenFirstQueryMs)} ms | ${fmt(p.trackToReadyMs)} ms | ${fmt(p.trackAnswerCpuMs)} ms | ${fmt(p.trackToReadyCpuMs)} ms | ${fmt(p.rssReadyMiB ?? undefined)} MiB |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

const COLORS: Record<PeerName, string> = { engine: '#2b6cb0', postgraphile: '#c05621', raw: '#718096' };
const LABELS: Record<PeerName, string> = { engine: 'Engine', postgraphile: 'PostGraphile v5', raw: 'raw SQL (pg)' };

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A grouped bar chart (one group per data set × operation × role, one bar per peer), log-free linear scale per data set. */
export function renderSvg(r: BenchReport): string {
  const rows = r.summary.filter((s) => s.notApplicable === null);
  const barW = 14;
  const groupGap = 18;
  const groupW = PEERS.length * barW + groupGap;
  const left = 60;
  const top = 40;
  const plotH = 260;
  const datasets = [...new Set(rows.map((s) => s.dataset))];
  const panelH = plotH + 130;
  const width = left + Math.max(...datasets.map((d) => rows.filter((s) => s.dataset === d).length), 1) * groupW + 40;
  const height = top + datasets.length * panelH + 20;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="100%" height="100%" fill="white"/>`);
  out.push(`<text x="${left}" y="20" font-size="14" font-weight="bold">Requests per second (median of repeats; higher is better)</text>`);
  PEERS.forEach((p, i) => {
    out.push(
      `<rect x="${left + 420 + i * 130}" y="10" width="12" height="12" fill="${COLORS[p]}"/><text x="${left + 436 + i * 130}" y="20">${LABELS[p]}</text>`,
    );
  });
  datasets.forEach((ds, di) => {
    const mine = rows.filter((s) => s.dataset === ds);
    const y0 = top + di * panelH;
    const max = Math.max(1, ...mine.flatMap((s) => PEERS.map((p) => s.peers[p]?.rps ?? 0)));
    const step = 10 ** Math.floor(Math.log10(max));
    const niceMax = Math.ceil(max / step) * step;
    out.push(`<text x="${left}" y="${y0 + 12}" font-weight="bold">data set ${esc(ds)}</text>`);
    for (let t = 0; t <= niceMax; t += niceMax / 5) {
      const y = y0 + 20 + plotH - (t / niceMax) * plotH;
      out.push(
        `<line x1="${left}" x2="${width - 20}" y1="${y}" y2="${y}" stroke="#e2e8f0"/><text x="${left - 6}" y="${y + 4}" text-anchor="end">${Math.round(t)}</text>`,
      );
    }
    mine.forEach((s, gi) => {
      const gx = left + 10 + gi * groupW;
      PEERS.forEach((p, pi) => {
        const v = s.peers[p]?.rps ?? 0;
        const h = (v / niceMax) * plotH;
        out.push(
          `<rect x="${gx + pi * barW}" y="${y0 + 20 + plotH - h}" width="${barW - 2}" height="${h}" fill="${COLORS[p]}"><title>${esc(`${s.op} ${s.role} ${LABELS[p]}: ${v.toFixed(0)} req/s`)}</title></rect>`,
        );
      });
      const lx = gx + (PEERS.length * barW) / 2;
      const ly = y0 + 20 + plotH + 10;
      out.push(`<text transform="translate(${lx},${ly}) rotate(40)" font-size="10">${esc(`${s.op} (${s.role})`)}</text>`);
    });
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
