// Comparing metadata documents in the `engine operator export` round trips, where list order,
// nulls and empty custom type sections do not matter and secrets stand as env references.
import { canonicalJson } from '../../controller/reconcilers/objects.ts';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sorted lists of objects, no nulls, no empty custom type sections: order and absence do not matter. */
export function normalised(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(normalised);
    return items.every(isObj) ? items.sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1)) : items;
  }
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v))
      if (x !== null && !(Array.isArray(x) && x.length === 0 && ['enums', 'scalars', 'input_objects', 'objects'].includes(k))) out[k] = normalised(x);
    if (isObj(out['custom_types']) && Object.keys(out['custom_types']).length === 0) delete out['custom_types'];
    return out;
  }
  return v;
}

/** Puts the secrets' values back where the metadata references them (env name → value). */
export function withValues(v: unknown, values: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(v)) return v.map((x) => withValues(x, values));
  if (!isObj(v)) return v;
  if (typeof v['from_env'] === 'string' && values.has(v['from_env']) && Object.keys(v).length === 1) return values.get(v['from_env']);
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'value_from_env' && typeof x === 'string' && values.has(x)) out['value'] = values.get(x);
    else out[k] = withValues(x, values);
  }
  return out;
}
