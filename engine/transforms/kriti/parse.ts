/**
 * The Kriti parser: template text → {@link Node}. Scannerless recursive
 * descent, because string literals switch between text and `{{ }}`
 * expressions and a token stream would need modes anyway.
 *
 * Note [Kriti grammar]: the forms are those of hasura/kriti-lang as v2 uses it.
 *
 *   template := term EOF
 *   term     := JSON value whose strings may hold {{ expr }} parts
 *             | '{{' expr '}}'
 *             | '{{' 'if' expr '}}' term ('{{' 'elif' expr '}}' term)* ('{{' 'else' '}}' term)? '{{' 'end' '}}'
 *             | '{{' 'range' (ident | '_') ',' ident ':=' expr '}}' term '{{' 'end' '}}'
 *   expr     := or ('??' or)*            -- defaulting: the right side when the left is null
 *   or       := and ('||' and)*
 *   and      := cmp ('&&' cmp)*
 *   cmp      := unary (('==' | '!=' | '>' | '<' | '>=' | '<=' | 'in') unary)?
 *   unary    := 'not' unary | 'escapeUri' unary | primary      -- the older prefix spelling of two functions
 *   primary  := literal | string | '[' expr,* ']' | '{' "key": expr,* '}' | '(' expr ')'
 *             | ident '(' expr ')' | ident accessor*
 *   accessor := '.' ident | '?.' ident | '[' int ']' | '[' 'str' ']' | '?[' … ']'
 *
 * Kriti's `else` is optional here (a missing one gives null), and a `range`
 * written directly inside an array literal is spliced into it, so
 * `[ {{range _, x := $xs}} {{x.id}} {{end}} ]` is the list of ids, as in
 * kriti-lang's own README, not a list holding one list.
 */
import type { Accessor, BinaryOperator, Json, Node, Position, Span } from './ast.ts';
import { KritiError } from './error.ts';

/** Parses a whole Kriti template (a JSON-like value). */
export function parseTemplate(text: string): Node {
  const p = new Parser(text);
  p.skipWs();
  const node = p.term();
  p.skipWs();
  if (!p.atEnd()) p.fail(`unexpected ${p.describeNext()} after the end of the template`);
  return node;
}

/**
 * Parses a string template: text with `{{ expr }}` parts and no surrounding
 * quotes, as in a URL, header value or query parameter (v2 evaluates those as
 * the body of a string literal). Always evaluates to a string.
 */
export function parseStringTemplate(text: string): Node {
  const p = new Parser(text);
  const start = p.pos();
  const parts = p.stringParts(null);
  return { kind: 'string', parts, span: { start, end: p.pos() } };
}

const IDENT_START = /[A-Za-z_$]/;
const IDENT_PART = /[A-Za-z0-9_$-]/;

class Parser {
  private i = 0;
  private line = 1;
  private col = 1;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  pos(): Position {
    return { line: this.line, column: this.col, offset: this.i };
  }

  atEnd(): boolean {
    return this.i >= this.text.length;
  }

  private peek(n = 0): string {
    return this.text.charAt(this.i + n);
  }

  private startsWith(s: string): boolean {
    return this.text.startsWith(s, this.i);
  }

  private advance(n = 1): void {
    for (let k = 0; k < n && this.i < this.text.length; k++) {
      if (this.text.charCodeAt(this.i) === 10) {
        this.line++;
        this.col = 1;
      } else {
        this.col++;
      }
      this.i++;
    }
  }

  skipWs(): void {
    while (!this.atEnd() && /\s/.test(this.peek())) this.advance();
  }

  describeNext(): string {
    if (this.atEnd()) return 'end of template';
    const m = /^(\{\{|\}\}|[A-Za-z_$][A-Za-z0-9_$-]*|\S)/.exec(this.text.slice(this.i));
    return `'${m === null ? this.peek() : m[0]}'`;
  }

  fail(detail: string, start: Position = this.pos()): never {
    const end = this.atEnd() ? this.pos() : { ...this.pos(), column: this.col + 1, offset: this.i + 1 };
    throw new KritiError('Parse Error', detail, { start, end: end.offset >= start.offset ? end : start });
  }

  private expect(s: string, what = `'${s}'`): void {
    if (!this.startsWith(s)) this.fail(`expected ${what}, found ${this.describeNext()}`);
    this.advance(s.length);
  }

  private span(start: Position): Span {
    return { start, end: this.pos() };
  }

  /** The word at the cursor (without consuming it), or null. */
  private word(): string | null {
    if (!IDENT_START.test(this.peek())) return null;
    let j = this.i + 1;
    while (j < this.text.length && IDENT_PART.test(this.text.charAt(j))) j++;
    return this.text.slice(this.i, j);
  }

  private ident(what: string): string {
    const w = this.word();
    if (w === null) this.fail(`expected ${what}, found ${this.describeNext()}`);
    this.advance(w.length);
    return w;
  }

  /** After `{{` and whitespace: is the tag keyword `kw` next? */
  private tagKeywordAhead(kw: string): boolean {
    let j = this.i + 2;
    while (j < this.text.length && /\s/.test(this.text.charAt(j))) j++;
    if (!this.text.startsWith(kw, j)) return false;
    const after = this.text.charAt(j + kw.length);
    return !IDENT_PART.test(after) || after === '';
  }

  /** Consumes `{{ kw }}` (the closing braces only when `close`). */
  private tag(kw: string, close: boolean): void {
    this.expect('{{');
    this.skipWs();
    const w = this.word();
    if (w !== kw) this.fail(`expected '{{ ${kw}', found ${this.describeNext()}`);
    this.advance(kw.length);
    if (close) {
      this.skipWs();
      this.expect('}}');
    }
  }

  term(): Node {
    const start = this.pos();
    if (this.startsWith('{{')) return this.tagTerm(start);
    const c = this.peek();
    if (c === '{') return this.objectLiteral(() => this.spacedTerm());
    if (c === '[') return this.arrayLiteral(() => this.spacedTerm());
    if (c === '(') {
      this.advance();
      const inner = this.spacedTerm();
      this.expect(')');
      return inner;
    }
    return this.scalar(start);
  }

  private spacedTerm(): Node {
    this.skipWs();
    const t = this.term();
    this.skipWs();
    return t;
  }

  private tagTerm(_start: Position): Node {
    if (this.tagKeywordAhead('if')) return this.ifBlock(_start);
    if (this.tagKeywordAhead('range')) return this.rangeBlock(_start);
    for (const kw of ['else', 'elif', 'end']) {
      if (this.tagKeywordAhead(kw)) this.fail(`'{{ ${kw}' without a matching '{{ if' or '{{ range'`);
    }
    this.advance(2);
    this.skipWs();
    const e = this.expr();
    this.skipWs();
    this.expect('}}', "'}}'");
    // The expression keeps its own span, so an error points inside the braces.
    return e;
  }

  private ifBlock(start: Position): Node {
    const branches: Array<readonly [Node, Node]> = [];
    this.tag('if', false);
    for (;;) {
      this.skipWs();
      const cond = this.expr();
      this.skipWs();
      this.expect('}}');
      const body = this.spacedTerm();
      branches.push([cond, body]);
      if (this.startsWith('{{') && this.tagKeywordAhead('elif')) {
        this.tag('elif', false);
        continue;
      }
      break;
    }
    let otherwise: Node | null = null;
    if (this.startsWith('{{') && this.tagKeywordAhead('else')) {
      this.tag('else', true);
      otherwise = this.spacedTerm();
    }
    if (!(this.startsWith('{{') && this.tagKeywordAhead('end'))) {
      this.fail(
        `expected '{{ else }}', '{{ elif …}}' or '{{ end }}' closing the 'if' at line ${start.line}, column ${start.column}, found ${this.describeNext()}`,
      );
    }
    this.tag('end', true);
    return { kind: 'if', branches, otherwise, span: this.span(start) };
  }

  private rangeBlock(start: Position): Node {
    this.tag('range', false);
    this.skipWs();
    let index: string | null;
    if (this.peek() === '_' && !IDENT_PART.test(this.peek(1))) {
      this.advance();
      index = null;
    } else {
      index = this.ident('an index name or _');
    }
    this.skipWs();
    this.expect(',');
    this.skipWs();
    const binder = this.ident('an element name');
    this.skipWs();
    this.expect(':=');
    this.skipWs();
    const source = this.expr();
    this.skipWs();
    this.expect('}}');
    const body = this.spacedTerm();
    if (!(this.startsWith('{{') && this.tagKeywordAhead('end'))) {
      this.fail(`expected '{{ end }}' closing the 'range' at line ${start.line}, column ${start.column}, found ${this.describeNext()}`);
    }
    this.tag('end', true);
    return { kind: 'range', index, binder, source, body, span: this.span(start) };
  }

  private objectLiteral(value: () => Node): Node {
    const start = this.pos();
    this.expect('{');
    this.skipWs();
    const fields: Array<readonly [string, Node]> = [];
    if (this.peek() === '}') {
      this.advance();
      return { kind: 'object', fields, span: this.span(start) };
    }
    for (;;) {
      this.skipWs();
      if (this.peek() !== '"') this.fail(`expected an object key in double quotes, found ${this.describeNext()}`);
      const key = this.plainString();
      this.skipWs();
      this.expect(':');
      fields.push([key, value()]);
      this.skipWs();
      if (this.peek() === ',') {
        this.advance();
        continue;
      }
      if (this.peek() === '}') {
        this.advance();
        return { kind: 'object', fields, span: this.span(start) };
      }
      this.fail(`expected ',' or '}' in an object, found ${this.describeNext()}`);
    }
  }

  private arrayLiteral(item: () => Node): Node {
    const start = this.pos();
    this.expect('[');
    this.skipWs();
    const items: Node[] = [];
    if (this.peek() === ']') {
      this.advance();
      return { kind: 'array', items, span: this.span(start) };
    }
    for (;;) {
      items.push(item());
      this.skipWs();
      if (this.peek() === ',') {
        this.advance();
        continue;
      }
      if (this.peek() === ']') {
        this.advance();
        return { kind: 'array', items, span: this.span(start) };
      }
      this.fail(`expected ',' or ']' in an array, found ${this.describeNext()}`);
    }
  }

  /** A JSON scalar at term position: string (with templates), number, true, false, null. */
  private scalar(start: Position): Node {
    const c = this.peek();
    if (c === '"') return this.stringLiteral();
    if (c === '-' || /[0-9]/.test(c)) return this.number();
    const w = this.word();
    if (w === 'true' || w === 'false' || w === 'null') {
      this.advance(w.length);
      return { kind: 'literal', value: w === 'null' ? null : w === 'true', span: this.span(start) };
    }
    this.fail(`unexpected ${this.describeNext()}; expected a JSON value or '{{'`);
  }

  private number(): Node {
    const start = this.pos();
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.i));
    if (m === null) this.fail(`expected a number, found ${this.describeNext()}`);
    this.advance(m[0].length);
    return { kind: 'literal', value: Number(m[0]), span: this.span(start) };
  }

  /** A double-quoted string without templates (an object key). */
  private plainString(): string {
    const start = this.pos();
    const parts = this.stringParts('"');
    if (parts.some((p) => typeof p !== 'string')) this.fail('an object key cannot hold {{ }}', start);
    return parts.join('');
  }

  private stringLiteral(): Node {
    const start = this.pos();
    const parts = this.stringParts('"');
    if (parts.every((p) => typeof p === 'string')) return { kind: 'literal', value: parts.join(''), span: this.span(start) };
    return { kind: 'string', parts, span: this.span(start) };
  }

  /**
   * The inside of a string: text and `{{ expr }}` parts. With `quote`, the
   * cursor is on the opening quote and JSON escapes apply; without, the
   * text runs to the end of input verbatim (a string template).
   */
  stringParts(quote: '"' | "'" | null): Array<string | Node> {
    const open = this.pos();
    if (quote !== null) this.advance();
    const parts: Array<string | Node> = [];
    let text = '';
    for (;;) {
      if (this.atEnd()) {
        if (quote === null) break;
        this.fail(`unterminated string starting at line ${open.line}, column ${open.column}`, open);
      }
      const c = this.peek();
      if (quote !== null && c === quote) {
        this.advance();
        break;
      }
      if (this.startsWith('{{')) {
        if (text !== '') parts.push(text);
        text = '';
        const start = this.pos();
        this.advance(2);
        this.skipWs();
        const e = this.expr();
        this.skipWs();
        this.expect('}}');
        parts.push({ ...e, span: this.span(start) });
        continue;
      }
      if (quote !== null && c === '\\') text += this.escape();
      else {
        text += c;
        this.advance();
      }
    }
    if (text !== '') parts.push(text);
    return parts;
  }

  private escape(): string {
    const start = this.pos();
    this.advance();
    const c = this.peek();
    const simple: Record<string, string> = { '"': '"', "'": "'", '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
    if (c in simple) {
      this.advance();
      return simple[c] ?? '';
    }
    if (c === 'u') {
      const hex = this.text.slice(this.i + 1, this.i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape', start);
      this.advance(5);
      return String.fromCharCode(parseInt(hex, 16));
    }
    this.fail(`invalid escape '\\${c}'`, start);
  }

  // ---- expressions (inside {{ }}) ----

  expr(): Node {
    let left = this.orExpr();
    for (;;) {
      this.skipWs();
      if (!this.startsWith('??')) return left;
      this.advance(2);
      this.skipWs();
      const right = this.orExpr();
      left = this.binary('??', left, right);
    }
  }

  private binary(op: BinaryOperator, left: Node, right: Node): Node {
    return { kind: 'binary', op, left, right, span: { start: left.span.start, end: right.span.end } };
  }

  private orExpr(): Node {
    let left = this.andExpr();
    for (;;) {
      this.skipWs();
      if (!this.startsWith('||')) return left;
      this.advance(2);
      this.skipWs();
      left = this.binary('||', left, this.andExpr());
    }
  }

  private andExpr(): Node {
    let left = this.cmpExpr();
    for (;;) {
      this.skipWs();
      if (!this.startsWith('&&')) return left;
      this.advance(2);
      this.skipWs();
      left = this.binary('&&', left, this.cmpExpr());
    }
  }

  private cmpExpr(): Node {
    const left = this.unary();
    this.skipWs();
    for (const op of ['==', '!=', '>=', '<=', '>', '<'] as const) {
      if (this.startsWith(op)) {
        this.advance(op.length);
        this.skipWs();
        return this.binary(op, left, this.unary());
      }
    }
    if (this.word() === 'in') {
      this.advance(2);
      this.skipWs();
      return this.binary('in', left, this.unary());
    }
    return left;
  }

  private unary(): Node {
    const start = this.pos();
    const w = this.word();
    if ((w === 'not' || w === 'escapeUri') && this.text.charAt(this.i + w.length) !== '(') {
      this.advance(w.length);
      this.skipWs();
      const argument = this.unary();
      return { kind: 'call', name: w, argument, span: this.span(start) };
    }
    return this.primary();
  }

  private primary(): Node {
    const start = this.pos();
    const c = this.peek();
    if (c === '(') {
      this.advance();
      this.skipWs();
      const e = this.expr();
      this.skipWs();
      this.expect(')');
      return { ...e, span: this.span(start) };
    }
    if (c === '[') return this.arrayLiteral(() => this.spacedExpr());
    if (c === '{') {
      if (this.startsWith('{{')) this.fail("'{{' cannot start inside '{{ }}'");
      return this.objectLiteral(() => this.spacedExpr());
    }
    if (c === '"') return this.stringLiteral();
    if (c === "'") {
      const parts = this.stringParts("'");
      if (parts.every((p) => typeof p === 'string')) return { kind: 'literal', value: parts.join(''), span: this.span(start) };
      return { kind: 'string', parts, span: this.span(start) };
    }
    if (c === '-' || /[0-9]/.test(c)) return this.number();
    const w = this.word();
    if (w === null) this.fail(`unexpected ${this.describeNext()}; expected an expression`);
    if (w === 'true' || w === 'false' || w === 'null') {
      this.advance(w.length);
      return { kind: 'literal', value: (w === 'null' ? null : w === 'true') as Json, span: this.span(start) };
    }
    if (['if', 'else', 'elif', 'end', 'range', 'in'].includes(w)) this.fail(`'${w}' cannot be used here`);
    this.advance(w.length);
    if (this.peek() === '(') {
      this.advance();
      this.skipWs();
      const argument = this.expr();
      this.skipWs();
      this.expect(')', "')' closing the call");
      return { kind: 'call', name: w, argument, span: this.span(start) };
    }
    return { kind: 'path', root: w, accessors: this.accessors(), span: this.span(start) };
  }

  private spacedExpr(): Node {
    this.skipWs();
    const e = this.expr();
    this.skipWs();
    return e;
  }

  private accessors(): Accessor[] {
    const out: Accessor[] = [];
    for (;;) {
      const start = this.pos();
      let optional = false;
      if (this.startsWith('?.') || this.startsWith('?[')) {
        // `??` is the defaulting operator, not an optional lookup.
        optional = true;
        this.advance();
      }
      const c = this.peek();
      if (c === '.') {
        this.advance();
        const name = this.ident('a field name after "."');
        out.push({ kind: 'field', name, optional, span: this.span(start) });
      } else if (c === '[') {
        this.advance();
        this.skipWs();
        if (this.peek() === "'" || this.peek() === '"') {
          const q = this.peek() as '"' | "'";
          const parts = this.stringParts(q);
          if (parts.some((p) => typeof p !== 'string')) this.fail('a bracket key cannot hold {{ }}', start);
          this.skipWs();
          this.expect(']');
          out.push({ kind: 'field', name: parts.join(''), optional, span: this.span(start) });
        } else {
          const m = /^[0-9]+/.exec(this.text.slice(this.i));
          if (m === null) this.fail(`expected an array index or a quoted key inside '[ ]', found ${this.describeNext()}`);
          this.advance(m[0].length);
          this.skipWs();
          this.expect(']');
          out.push({ kind: 'index', index: Number(m[0]), optional, span: this.span(start) });
        }
      } else {
        if (optional) this.fail(`expected '.' or '[' after '?'`, start);
        return out;
      }
    }
  }
}
