/**
 * `set_custom_types`: replaces every custom type (v2 compat). Refused when
 * the new set is inconsistent (Note [Custom types as one object] in
 * actions/resolve.ts) or when an action still uses a type it drops.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { JsonObject } from '../../../model/document.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';

type Loose = Record<string, unknown>;

const KINDS = ['scalars', 'enums', 'input_objects', 'objects'] as const;

/** The named types an action's definition uses (arguments and output), without list and non-null marks. */
function typesUsedBy(action: Loose): string[] {
  const d = (action['definition'] ?? {}) as Loose;
  const named = (t: unknown): string => (typeof t === 'string' ? t.replace(/[[\]!\s]/g, '') : '');
  const args = Array.isArray(d['arguments']) ? (d['arguments'] as Loose[]).map((a) => named(a['type'])) : [];
  return [...args, named(d['output_type'])];
}

/** The custom type names of a `custom_types` value, with the input types of input objects. */
function definedNames(ct: Loose): Set<string> {
  const out = new Set<string>();
  for (const k of KINDS) for (const t of (Array.isArray(ct[k]) ? ct[k] : []) as Loose[]) if (typeof t['name'] === 'string') out.add(t['name']);
  return out;
}

/** `set_custom_types`. */
export const setCustomTypes = defineOperation<Loose>({
  mutates: true,
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(KINDS.map((k) => [k, { type: ['array', 'null'], items: { type: 'object', required: ['name'] } }])),
  },
  async run(ctx, args, call) {
    const next: Loose = {};
    for (const k of KINDS) if (Array.isArray(args[k])) next[k] = args[k];
    const before = ctx.state.doc.custom_types === null ? new Set<string>() : definedNames(ctx.state.doc.custom_types as Loose);
    const after = definedNames(next);
    for (const a of ctx.state.doc.actions as Loose[]) {
      const dropped = typesUsedBy(a).find((t) => before.has(t) && !after.has(t));
      if (dropped !== undefined) {
        throw new EngineError(ErrorCode.DependencyError, `the custom type "${dropped}" is still used by the action "${String(a['name'])}"`, {
          path: argPath(call),
        });
      }
    }
    const doc = { ...ctx.state.doc, custom_types: next as JsonObject };
    await ctx.commitEdit({ doc, touched: [{ kind: 'custom_types' }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
