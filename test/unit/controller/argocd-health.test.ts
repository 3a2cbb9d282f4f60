/**
 * The Argo CD health check (config/argocd/health.lua) run by a real Lua interpreter, the way
 * Argo CD runs it: `obj` is the resource as a Lua table, the script returns {status, message}.
 * Skips when no `lua` binary is installed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const lua = ['lua5.4', 'lua'].find((bin) => spawnSync(bin, ['-v'], { stdio: 'ignore' }).status === 0);
if (lua === undefined) console.warn('[argocd-health] skipping: no lua interpreter installed');

const script = readFileSync(new URL('../../../config/argocd/health.lua', import.meta.url), 'utf8');

function toLua(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `{${v.map(toLua).join(', ')}}`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `[${JSON.stringify(k)}] = ${toLua(x)}`)
    .join(', ')}}`;
}

function health(obj: unknown): { status: string; message: string } {
  const program = `local obj = ${toLua(obj)}\nlocal hs = (function()\n${script}\nend)()\nprint(hs.status .. "\\t" .. hs.message)`;
  const r = spawnSync(lua ?? 'lua', ['-'], { input: program, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const [status = '', message = ''] = r.stdout.trim().split('\t');
  return { status, message };
}

const cond = (type: string, status: string, reason: string, message = ''): Record<string, string> => ({ type, status, reason, message });

describe.skipIf(lua === undefined)('Argo CD health check', () => {
  it('is Progressing without status or while the spec is newer than observedGeneration', () => {
    expect(health({ metadata: { generation: 1 } }).status).toBe('Progressing');
    const stale = { metadata: { generation: 2 }, status: { observedGeneration: 1, conditions: [cond('Ready', 'True', 'Applied')] } };
    expect(health(stale).status).toBe('Progressing');
  });

  it('is Healthy when Ready, Degraded when Stalled, Progressing while Reconciling', () => {
    expect(health({ metadata: { generation: 1 }, status: { observedGeneration: 1, conditions: [cond('Ready', 'True', 'Applied', 'ok')] } })).toEqual({
      status: 'Healthy',
      message: 'ok',
    });
    const stalled = {
      metadata: { generation: 1 },
      status: {
        observedGeneration: 1,
        conditions: [cond('Ready', 'False', 'InconsistentMetadata', 'no column'), cond('Stalled', 'True', 'InconsistentMetadata', 'no column')],
      },
    };
    expect(health(stalled)).toEqual({ status: 'Degraded', message: 'InconsistentMetadata: no column' });
    const waiting = {
      metadata: { generation: 1 },
      status: {
        observedGeneration: 1,
        conditions: [cond('Ready', 'False', 'DependencyMissing', 'table t'), cond('Reconciling', 'True', 'DependencyMissing', 'table t')],
      },
    };
    expect(health(waiting)).toEqual({ status: 'Progressing', message: 'DependencyMissing: table t' });
  });

  it('does not crash on conditions without reason or message, or on odd shapes', () => {
    const bare = { metadata: { generation: 1 }, status: { observedGeneration: 1, conditions: [{ type: 'Stalled', status: 'True' }] } };
    expect(health(bare)).toEqual({ status: 'Degraded', message: 'Stalled' });
    const noReason = { metadata: { generation: 1 }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    expect(health(noReason)).toEqual({ status: 'Healthy', message: 'Ready' });
    const unknown = {
      metadata: {},
      status: {
        conditions: [
          { type: 'Ready', status: 'Unknown', message: 'engine down' },
          { type: 'Reconciling', status: 'True', reason: 'EngineUnreachable' },
        ],
      },
    };
    expect(health(unknown)).toEqual({ status: 'Progressing', message: 'EngineUnreachable' });
    expect(health({ metadata: {}, status: { conditions: 'nope' } }).status).toBe('Progressing');
  });

  it('shows an unreachable engine as Progressing, not Degraded (an outage is not a stall)', () => {
    const outage = {
      metadata: { generation: 1 },
      status: {
        observedGeneration: 1,
        conditions: [
          cond('Ready', 'Unknown', 'EngineUnreachable', 'connect ECONNREFUSED'),
          cond('Reconciling', 'True', 'EngineUnreachable', 'connect ECONNREFUSED'),
          cond('Stalled', 'False', 'Idle'),
        ],
      },
    };
    expect(health(outage)).toEqual({ status: 'Progressing', message: 'EngineUnreachable: connect ECONNREFUSED' });
  });
});
