/**
 * API limits (on the Metadata page): depth, node, time, batch and rate limits,
 * each a global value and values per role, and the switch that disables them
 * all; saved with `set_api_limits` (v2 compat: it replaces the whole
 * `api_limits`), or `remove_api_limits` when nothing is left. v2 requires a
 * global value in every limit that has values per role; the page says so
 * before sending. An empty field means no limit of that kind.
 */
import type { RateLimitConfig } from '../../../../model/document.ts';
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction, wholeNumber } from '../../components.tsx';
import { useMetadata } from '../../metadata-state.tsx';

type LimitKey = 'depth_limit' | 'node_limit' | 'time_limit' | 'batch_limit' | 'rate_limit';

const LIMITS: ReadonlyArray<{ key: LimitKey; title: string; unit: string }> = [
  { key: 'depth_limit', title: 'Depth limit', unit: 'levels of a query' },
  { key: 'node_limit', title: 'Node limit', unit: 'fields of a query' },
  { key: 'time_limit', title: 'Time limit', unit: 'seconds' },
  { key: 'batch_limit', title: 'Batch limit', unit: 'operations in a batch' },
  { key: 'rate_limit', title: 'Rate limit', unit: 'requests per minute' },
];

/** One value as typed: `role` is '' for the global one; `unique` only for the rate limit. */
interface Row {
  role: string;
  value: string;
  unique: string;
}

interface LimitRows {
  global: Row;
  roles: Row[];
}

function rowOf(role: string, v: unknown): Row {
  if (typeof v === 'number') return { role, value: String(v), unique: '' };
  const r = (v ?? {}) as Partial<RateLimitConfig>;
  const u = r.unique_params;
  return { role, value: r.max_reqs_per_min === undefined ? '' : String(r.max_reqs_per_min), unique: typeof u === 'string' ? u : (u ?? []).join(', ') };
}

function rowsOf(limits: Record<string, unknown> | undefined): Record<LimitKey, LimitRows> {
  const out = {} as Record<LimitKey, LimitRows>;
  for (const { key } of LIMITS) {
    const l = (limits?.[key] ?? {}) as { global?: unknown; per_role?: Record<string, unknown> };
    out[key] = {
      global: rowOf('', l.global),
      roles: Object.entries(l.per_role ?? {}).map(([role, v]) => rowOf(role, v)),
    };
  }
  return out;
}

/** A row's value for `set_api_limits`, refusing text that is not one with the reason. */
function valueOf(key: LimitKey, row: Row, what: string): unknown {
  if (key === 'time_limit') {
    const n = Number(row.value.trim());
    if (row.value.trim() === '' || !Number.isFinite(n) || n <= 0)
      throw new Error(`${what} must be a number of seconds above 0, not ${JSON.stringify(row.value)}`);
    return n;
  }
  if (key !== 'rate_limit') return wholeNumber(row.value, what, 0);
  const unique = row.unique.trim();
  const params =
    unique === ''
      ? {}
      : /^ip$/i.test(unique)
        ? { unique_params: 'IP' }
        : {
            unique_params: unique
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== ''),
          };
  return { max_reqs_per_min: wholeNumber(row.value, what, 0), ...params };
}

export function ApiLimits() {
  const { metadata, refresh } = useMetadata();
  const current = metadata?.api_limits as Record<string, unknown> | undefined;
  const [rows, setRows] = useState<Record<LimitKey, LimitRows>>(() => rowsOf(current));
  const [disabled, setDisabled] = useState(current?.['disabled'] === true);
  const [status, run] = useAction();
  const update = (key: LimitKey, next: LimitRows) => setRows({ ...rows, [key]: next });
  const build = (): Record<string, unknown> => {
    const out: Record<string, unknown> = disabled ? { disabled: true } : {};
    for (const { key, title } of LIMITS) {
      const { global, roles } = rows[key];
      const used = roles.filter((r) => r.role.trim() !== '' || r.value.trim() !== '');
      if (global.value.trim() === '' && used.length === 0) continue;
      if (global.value.trim() === '') throw new Error(`${title}: a value per role needs a global value too`);
      const perRole: Record<string, unknown> = {};
      used.forEach((r, i) => {
        if (r.role.trim() === '') throw new Error(`${title}: role ${i + 1} has no name`);
        perRole[r.role.trim()] = valueOf(key, r, `${title} of ${r.role.trim()}`);
      });
      out[key] = { global: valueOf(key, global, `Global ${title.toLowerCase()}`), ...(used.length > 0 ? { per_role: perRole } : {}) };
    }
    return out;
  };
  const save = () =>
    void run('Saving…', 'Saved the API limits', async () => {
      const limits = build();
      if (Object.keys(limits).length === 0) {
        if (current !== undefined) await callMetadata('remove_api_limits', {});
      } else {
        await callMetadata('set_api_limits', limits);
      }
      await refresh();
    });
  return (
    <form
      className="editor"
      aria-label="API limits"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <p className="muted">Limits on GraphQL requests of roles other than admin; an empty field means no limit.</p>
      <div className="row">
        <label>
          <input type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} /> Disable all API limits
        </label>
      </div>
      {LIMITS.map(({ key, title, unit }) => {
        const { global, roles } = rows[key];
        const lower = title.toLowerCase();
        const rowFields = (r: Row, label: string, set: (r: Row) => void) => (
          <>
            <input
              className="short"
              aria-label={`${label} (${unit})`}
              placeholder={unit}
              value={r.value}
              onChange={(e) => set({ ...r, value: e.target.value })}
            />
            {key === 'rate_limit' && (
              <input
                className="short"
                aria-label={`${label}, unique by`}
                placeholder="IP or session variables"
                value={r.unique}
                onChange={(e) => set({ ...r, unique: e.target.value })}
              />
            )}
          </>
        );
        return (
          <fieldset key={key}>
            <legend>{title}</legend>
            <div className="row">
              <span>Global</span>
              {rowFields(global, `Global ${lower}`, (g) => update(key, { global: g, roles }))}
            </div>
            {roles.map((r, i) => {
              const setRole = (next: Row) => update(key, { global, roles: roles.map((x, j) => (j === i ? next : x)) });
              return (
                <div className="row" key={i}>
                  <input
                    className="short"
                    aria-label={`${title}, role ${i + 1}`}
                    placeholder="role"
                    value={r.role}
                    onChange={(e) => setRole({ ...r, role: e.target.value })}
                  />
                  {rowFields(r, `${title}, role ${i + 1} value`, setRole)}
                  <button
                    type="button"
                    className="btn small"
                    aria-label={`Remove role ${i + 1} of the ${lower}`}
                    onClick={() => update(key, { global, roles: roles.filter((_, j) => j !== i) })}
                  >
                    Remove
                  </button>
                </div>
              );
            })}
            <button
              type="button"
              className="btn small"
              aria-label={`Add a role to the ${lower}`}
              onClick={() => update(key, { global, roles: [...roles, { role: '', value: '', unique: '' }] })}
            >
              Add a role
            </button>
          </fieldset>
        );
      })}
      <Status value={status} />
      <button type="submit" className="btn primary">
        Save API limits
      </button>
    </form>
  );
}
