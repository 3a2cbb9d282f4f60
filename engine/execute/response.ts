/**
 * Response bodies as text. The `data` object is the database's JSON text,
 * spliced without parsing (see architecture.md, "One GraphQL request", step 7).
 */
import type { Plan } from './plan.ts';

/** `{"data":<object>}`. */
export function dataResponse(objectText: string): string {
  return `{"data":${objectText}}`;
}

/** The `<object>` of a {@link dataResponse} text (REST endpoints answer it without the wrapper). */
export function dataOf(responseText: string): string {
  return responseText.slice('{"data":'.length, -1);
}

/**
 * Joins the JSON objects of several statements into one object. Each input is
 * a JSON object text; the braces are trimmed and the members concatenated.
 * With `order`, members are re-emitted in that order (rare: root fields of
 * several sources interleaved), which needs a parse.
 */
export function spliceObjects(objects: readonly string[], order: readonly string[] | null): string {
  if (order !== null) {
    const merged: Record<string, unknown> = {};
    for (const o of objects) Object.assign(merged, JSON.parse(o) as Record<string, unknown>);
    return `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(merged[k] ?? null)}`).join(',')}}`;
  }
  const members: string[] = [];
  for (const o of objects) {
    const t = o.trim();
    const inner = t.slice(1, -1).trim();
    if (inner.length > 0) members.push(inner);
  }
  return `{${members.join(',')}}`;
}

/**
 * The `respond` request step (Note [Request steps]): the `{"data":…}` text of
 * a plan's step results (from runPlan), spliced without parsing unless the
 * plan needs post-processing (Note [Plan steps]).
 */
export function respond(plan: Plan, results: readonly string[]): string {
  const only = results.length === 1 ? results[0] : undefined;
  if (only !== undefined) return dataResponse(only);
  return dataResponse(spliceObjects(results, plan.needsReorder ? plan.order : null));
}
