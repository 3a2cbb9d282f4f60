/**
 * The web console: its build (time, sizes raw / brotli / gzip), the engine's
 * start with and without it, and page loads in headless Chromium (cold: empty
 * cache; warm: a reload, where index.html revalidates with 304 and the hashed
 * assets come from the cache) until GraphiQL's editor is on screen. No peer:
 * there is no other console to load for the same engine.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { buildConsole } from '../../../engine/console/build.ts';
import { CONSOLE_DIST } from '../../../engine/console/paths.ts';
import { launchBrowser, systemChromium } from '../../support/browser.ts';
import { startEngine } from '../lib/engine.ts';
import type { CapabilityBench } from './types.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

const bench: CapabilityBench = async (ctx) => {
  const notes: string[] = [];
  const t0 = performance.now();
  await buildConsole();
  const buildMs = performance.now() - t0;
  const assets = path.join(CONSOLE_DIST, 'assets');
  const sizes = readdirSync(assets)
    .filter((f) => !f.endsWith('.br') && !f.endsWith('.gz'))
    .map((f) => {
      const size = (ext: string) => {
        try {
          return Math.round(statSync(path.join(assets, f + ext)).size / 1024);
        } catch {
          return null;
        }
      };
      return { file: f.replace(/-[0-9a-f]{12}\./, '.'), kib: size(''), br_kib: size('.br'), gzip_kib: size('.gz') };
    });
  const databaseUrl = await ctx.postgres.createDatabase('bench_console');
  const starts: Array<Record<string, number>> = [];
  const runs = ctx.quick ? 1 : 3;
  for (let i = 0; i < runs; i++) {
    const without = await startEngine(databaseUrl);
    await without.stop();
    const withConsole = await startEngine(databaseUrl, [], { ENGINE_GRAPHQL_ENABLE_CONSOLE: 'true' });
    await withConsole.stop();
    starts.push({ without: without.startMs, with: withConsole.startMs });
  }
  const loads: Array<Record<string, string | number | null>> = [];
  const chromium = systemChromium();
  if (chromium === null) notes.push('No Chromium found: page loads not measured.');
  else {
    const engine = await startEngine(databaseUrl, [], { ENGINE_GRAPHQL_ENABLE_CONSOLE: 'true' });
    const browser = await launchBrowser(chromium);
    try {
      const cold: number[] = [];
      const warm: number[] = [];
      let coldBytes = 0;
      let warmBytes = 0;
      for (let i = 0; i < (ctx.quick ? 1 : 5); i++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        let bytes = 0;
        page.on('response', (r) => {
          void r
            .request()
            .sizes()
            .then(
              (s) => (bytes += s.responseBodySize + s.responseHeadersSize),
              () => {},
            );
        });
        const load = async (): Promise<number> => {
          const started = performance.now();
          await page.goto(`${engine.url}/console/`);
          await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor({ timeout: 60_000 });
          return performance.now() - started;
        };
        cold.push(await load());
        coldBytes = bytes;
        bytes = 0;
        warm.push(await load());
        warmBytes = bytes;
        await context.close();
      }
      loads.push({ load: 'cold (empty cache)', median_ms: Math.round(median(cold)), transferred_kib: Math.round(coldBytes / 1024) });
      loads.push({ load: 'warm (reload)', median_ms: Math.round(median(warm)), transferred_kib: Math.round(warmBytes / 1024) });
    } finally {
      await browser.close();
      await engine.stop();
    }
  }
  notes.push(
    `Build: esbuild, minified, plus brotli (quality 9) and gzip (level 9) copies; ${runs} engine start pair(s), Chromium loads over loopback until GraphiQL's editor shows (median of ${ctx.quick ? 1 : 5}).`,
  );
  return {
    tables: [
      { title: 'Console build', rows: [{ build_s: Number((buildMs / 1000).toFixed(1)) }] },
      { title: 'Console assets', rows: sizes },
      {
        title: 'Engine start until /healthz (ms)',
        rows: [{ without_console: Math.round(median(starts.map((s) => s.without!))), with_console: Math.round(median(starts.map((s) => s.with!))) }],
      },
      ...(loads.length > 0 ? [{ title: 'Console page load (headless Chromium, loopback)', rows: loads }] : []),
    ],
    notes,
  };
};

export default bench;
