/**
 * "Did you mean …?" for names a user misspelled (metadata operations, keys of
 * a metadata call, tables, GraphQL fields, arguments and operators): the candidate at the smallest edit distance, if it is
 * close enough to be a likely typo rather than a different word.
 */

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  if (m === 0) return n;
  if (n === 0) return m;
  let prev2: number[] = [];
  let prev: number[] = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur: number[] = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (prev2[j - 2] as number) + 1);
      cur.push(d);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n] as number;
}

/**
 * The candidate closest to `word`, or undefined when none is within a third
 * of the word's length (at least 1, at most 4 edits): `colums` → `columns`,
 * but `foo` suggests nothing from `columns`. Failing that, the longest
 * candidate of at least 3 characters that the word starts with: a word spelt
 * out in full, `_equal` → `_eq`, is too many edits from its short name.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(4, Math.max(1, Math.floor(word.length / 3)));
  const lower = word.toLowerCase();
  const list = [...candidates]; // iterated twice, and it may be a one-pass iterator (a Map's keys)
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of list) {
    // The distance is at least the difference in length, so a far longer word is skipped unmeasured: the
    // full distance costs length × candidate length per candidate, and the bad-input corpus's 10 MB "type"
    // values took its huge-bodies family from 4.5 s (with this) to 85 s and more (without) on this machine.
    if (Math.abs(c.length - lower.length) > limit) continue;
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestD || (d === bestD && best !== undefined && c < best)) {
      best = c;
      bestD = d;
    }
  }
  if (bestD <= limit) return best;
  let prefix: string | undefined;
  for (const c of list) {
    if (c.length >= 3 && c.length < lower.length && lower.startsWith(c.toLowerCase()) && (prefix === undefined || c.length > prefix.length)) prefix = c;
  }
  return prefix;
}

/** `; did you mean "x"?` or the empty string. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : `; did you mean "${c}"?`;
}
