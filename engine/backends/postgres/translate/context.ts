/** State shared while translating one statement: fresh table aliases. */
import { ident, type Fragment } from '../../sql/fragment.ts';

/** Hands out the statement's table aliases `_0`, `_1`, ... */
export class AliasCounter {
  #next = 0;

  /** A new alias name, unique within the statement. */
  fresh(): string {
    return `_${this.#next++}`;
  }
}

/** `"alias"."column"`. */
export function columnOf(alias: string, column: string): Fragment {
  return { kind: 'seq', parts: [ident(alias), { kind: 'raw', text: '.' }, ident(column)] };
}
