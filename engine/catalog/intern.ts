/**
 * Structural equality of catalog values, for keeping the objects of an
 * unchanged table from one catalog version to the next: Note [Incremental
 * catalog] in stages/catalog-sources.ts.
 */

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Whether `a` and `b` are the same data: equal primitives, or arrays, Maps,
 * Sets and plain objects of equal members (Maps and Sets in equal order).
 * Anything else (class instances, functions: connections, backends, compiled
 * transforms) is equal only to itself, so an equal answer is never wrong.
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    const bs = b.entries();
    for (const [k, v] of a) {
      const next = bs.next();
      if (next.done === true || next.value[0] !== k || !sameData(v, next.value[1])) return false;
    }
    return true;
  }
  if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size) return false;
    const bs = b.values();
    for (const v of a) {
      const next = bs.next();
      if (next.done === true || !sameData(v, next.value)) return false;
    }
    return true;
  }
  if (!isPlain(a) || !isPlain(b) || Array.isArray(b)) return false;
  // for-in rather than Object.keys: no array per object (catalog objects have no enumerable inherited keys).
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let n = 0;
  for (const k in ra) {
    n += 1;
    if (!(k in rb) || !sameData(ra[k], rb[k])) return false;
  }
  for (const k in rb) {
    void k;
    n -= 1;
  }
  return n === 0;
}
