/**
 * The Kriti syntax tree. Every node carries the span of template text it came
 * from, so an evaluation error names the position in the template.
 */

/** A position in the template text: 1-based line and column, 0-based offset. */
export interface Position {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

/** A stretch of template text, end exclusive. */
export interface Span {
  readonly start: Position;
  readonly end: Position;
}

/** One step of a path: `.name`, `['name']`, `[0]`, optionally `?.` / `?[`. */
export type Accessor =
  | { readonly kind: 'field'; readonly name: string; readonly optional: boolean; readonly span: Span }
  | { readonly kind: 'index'; readonly index: number; readonly optional: boolean; readonly span: Span };

export type BinaryOperator = '==' | '!=' | '>' | '<' | '>=' | '<=' | '&&' | '||' | 'in' | '??';

/** A JSON value the template computes. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type Node =
  | { readonly kind: 'literal'; readonly value: Json; readonly span: Span }
  /** A string literal with `{{ }}` parts: each part's value is appended as text. */
  | { readonly kind: 'string'; readonly parts: ReadonlyArray<string | Node>; readonly span: Span }
  | { readonly kind: 'array'; readonly items: readonly Node[]; readonly span: Span }
  | { readonly kind: 'object'; readonly fields: ReadonlyArray<readonly [string, Node]>; readonly span: Span }
  /** `$body.a[0]`: a variable (a bound name or a range binder) followed by accessors. */
  | { readonly kind: 'path'; readonly root: string; readonly accessors: readonly Accessor[]; readonly span: Span }
  | { readonly kind: 'binary'; readonly op: BinaryOperator; readonly left: Node; readonly right: Node; readonly span: Span }
  | { readonly kind: 'call'; readonly name: string; readonly argument: Node; readonly span: Span }
  /** `{{ if c }} a {{ elif d }} b {{ else }} e {{ end }}`: branches in order, `otherwise` null when absent. */
  | {
      readonly kind: 'if';
      readonly branches: ReadonlyArray<readonly [Node, Node]>;
      readonly otherwise: Node | null;
      readonly span: Span;
    }
  /** `{{ range i, x := path }} body {{ end }}`: the body evaluated per element, giving an array. */
  | {
      readonly kind: 'range';
      readonly index: string | null;
      readonly binder: string;
      readonly source: Node;
      readonly body: Node;
      readonly span: Span;
    };
