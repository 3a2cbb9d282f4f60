/**
 * 1,000 TrackedTables on the real apiserver: how long until all are Ready, and the controller's
 * peak memory (VmHWM of its process), which config/manager/manager.yaml sizes its limits from.
 * Takes about a minute on two cores, so it runs only with ENGINE_K8S_SCALE=1:
 *   ENGINE_K8S_SCALE=1 npx vitest run test/k8s/scale.test.ts
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { k8sSkipReason, resource, startOperatorEnv, type OperatorEnv } from './harness.ts';

const COUNT = Number(process.env['ENGINE_K8S_SCALE_COUNT'] ?? 1000);
/** The heap cap config/manager/manager.yaml sets (NODE_OPTIONS) and the container limit. */
const HEAP_MIB = Number(process.env['ENGINE_K8S_SCALE_HEAP_MIB'] ?? 128);
const LIMIT_MIB = 320;
const enabled = process.env['ENGINE_K8S_SCALE'] === '1';
const skipReason = enabled ? k8sSkipReason() : 'set ENGINE_K8S_SCALE=1 to run the scale test';
if (!enabled) console.warn(`[k8s-scale] skipping: ${skipReason}`);

/** Peak and current resident memory of a process, in MiB (Linux /proc). */
function memoryMiB(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { peak: Math.round(kb('VmHWM') / 1024), now: Math.round(kb('VmRSS') / 1024) };
}

describe.skipIf(skipReason !== null)(`operator with ${COUNT} resources on a real kube-apiserver`, { timeout: 600_000 }, () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    const tables = Array.from({ length: COUNT }, (_, i) => `CREATE TABLE scale_${i} (id serial PRIMARY KEY, v text);`).join('\n');
    // As config/manager/manager.yaml runs it: V8's old space capped (otherwise V8 sizes its heap
    // from the machine's memory, not the container's limit, and collects lazily), and a metadata
    // call timeout long enough for replace_metadata of 1,000 tables on a busy machine.
    env = await startOperatorEnv('k8s_scale', tables, { NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}`, ENGINE_TIMEOUT_MS: '30000' });
  }, 300_000);

  afterAll(async () => {
    await env?.stop();
  });

  it(`makes ${COUNT} TrackedTables Ready and stays within its memory limit`, async () => {
    env.cp.apply(resource('Engine', 'main', { url: `http://127.0.0.1:${env.enginePort}`, adminSecretRef: { name: 'engine-admin' } }));
    const started = Date.now();
    for (let i = 0; i < COUNT; i += 250) {
      env.cp.apply({
        apiVersion: 'v1',
        kind: 'List',
        items: Array.from({ length: Math.min(250, COUNT - i) }, (_, j) => resource('TrackedTable', `scale-${i + j}`, { table: `scale_${i + j}` })),
      });
    }
    await env.until(
      `all ${COUNT} Ready`,
      () => {
        // One line per resource with its Ready status (a JSON list of 1,000 is megabytes).
        const lines = env.cp
          .kubectl(['get', 'trackedtables.graphql.engine.dev', '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}'])
          .split('\n')
          .filter((l) => l !== '');
        return lines.length === COUNT && lines.every((l) => l === 'True');
      },
      480_000,
    );
    const seconds = (Date.now() - started) / 1000;
    const pid = env.controller.child.pid ?? 0;
    const mem = memoryMiB(pid);
    // Steady state: a few polls and a resync-free minute later.
    await new Promise((r) => setTimeout(r, 5000));
    const settled = memoryMiB(pid);
    console.log(
      `[k8s-scale] ${COUNT} TrackedTables Ready in ${seconds.toFixed(1)} s; controller memory peak ${mem.peak} MiB (VmHWM), ` +
        `RSS ${mem.now} MiB at Ready, ${settled.now} MiB 5 s later`,
    );
    expect(settled.peak).toBeLessThan(LIMIT_MIB);
  });
});
