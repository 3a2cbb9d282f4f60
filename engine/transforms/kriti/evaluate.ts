/**
 * The Kriti evaluator: a parsed template and named JSON values → JSON.
 * Errors carry the span of the node that failed.
 */
import type { Json, Node, Span } from './ast.ts';
import { KritiError } from './error.ts';
import { basicFunctions, FunctionFailure, type KritiFunction, typeName } from './functions.ts';

/** Names bound for a template, with their `$` (`{ $body: …, $base_url: … }`). */
export type Bindings = Readonly<Record<string, Json>>;

/** Evaluates `node` with `bindings`; `functions` defaults to the basic library. */
export function evaluate(node: Node, bindings: Bindings, functions: Readonly<Record<string, KritiFunction>> = basicFunctions): Json {
  return new Evaluator(functions).eval(node, new Map(Object.entries(bindings)));
}

type Scope = ReadonlyMap<string, Json>;

function isObject(v: Json): v is { [key: string]: Json } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Deep JSON equality (object keys in any order). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i] as Json));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k] as Json, b[k] as Json));
  }
  return false;
}

/** How a value is written into a string: strings as is, numbers and booleans as JSON. */
function interpolate(v: Json, span: Span): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  throw new KritiError('Type Error', `cannot interpolate a value of type ${typeName(v)} into a string`, span);
}

class Evaluator {
  private readonly functions: Readonly<Record<string, KritiFunction>>;

  constructor(functions: Readonly<Record<string, KritiFunction>>) {
    this.functions = functions;
  }

  eval(node: Node, scope: Scope): Json {
    switch (node.kind) {
      case 'literal':
        return node.value;
      case 'string': {
        let out = '';
        for (const part of node.parts) out += typeof part === 'string' ? part : interpolate(this.eval(part, scope), part.span);
        return out;
      }
      case 'array': {
        const out: Json[] = [];
        for (const item of node.items) {
          const v = this.eval(item, scope);
          // Note [Kriti grammar]: a range directly inside an array literal is spliced.
          if (item.kind === 'range' && Array.isArray(v)) out.push(...v);
          else out.push(v);
        }
        return out;
      }
      case 'object': {
        const out: { [key: string]: Json } = {};
        for (const [k, v] of node.fields) out[k] = this.eval(v, scope);
        return out;
      }
      case 'path':
        return this.path(node, scope);
      case 'binary':
        return this.binary(node, scope);
      case 'call': {
        const fn = this.functions[node.name];
        if (fn === undefined || !Object.hasOwn(this.functions, node.name)) {
          throw new KritiError('Function Error', `unknown function '${node.name}'`, node.span);
        }
        const arg = this.eval(node.argument, scope);
        try {
          return fn(arg);
        } catch (e) {
          if (e instanceof FunctionFailure) throw new KritiError('Function Error', e.message, node.span);
          throw e;
        }
      }
      case 'if': {
        for (const [cond, body] of node.branches) {
          const c = this.eval(cond, scope);
          if (typeof c !== 'boolean') throw new KritiError('Type Error', `the condition is a ${typeName(c)}, not a Boolean`, cond.span);
          if (c) return this.eval(body, scope);
        }
        return node.otherwise === null ? null : this.eval(node.otherwise, scope);
      }
      case 'range': {
        const src = this.eval(node.source, scope);
        if (!Array.isArray(src)) throw new KritiError('Range Error', `can only range over an Array, got ${typeName(src)}`, node.source.span);
        return src.map((x, i) => {
          const inner = new Map(scope);
          inner.set(node.binder, x);
          if (node.index !== null) inner.set(node.index, i);
          return this.eval(node.body, inner);
        });
      }
    }
  }

  private path(node: Extract<Node, { kind: 'path' }>, scope: Scope): Json {
    if (!scope.has(node.root)) {
      throw new KritiError('Path Lookup Error', `'${node.root}' is not bound`, { start: node.span.start, end: node.span.start });
    }
    let cur = scope.get(node.root) as Json;
    let text = node.root;
    for (const a of node.accessors) {
      text += a.kind === 'field' ? (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(a.name) ? `.${a.name}` : `['${a.name}']`) : `[${a.index}]`;
      if (a.kind === 'field') {
        if (isObject(cur) && Object.hasOwn(cur, a.name)) {
          cur = cur[a.name] as Json;
          continue;
        }
        // An optional lookup short-circuits the rest of the path with null.
        if (a.optional) return null;
        if (!isObject(cur)) throw new KritiError('Type Error', `'${text}': expected an Object, found ${typeName(cur)}`, a.span);
        throw new KritiError('Path Lookup Error', `'${text}' does not exist`, a.span);
      }
      if (Array.isArray(cur) && a.index < cur.length) {
        cur = cur[a.index] as Json;
        continue;
      }
      if (a.optional) return null;
      if (!Array.isArray(cur)) throw new KritiError('Type Error', `'${text}': expected an Array, found ${typeName(cur)}`, a.span);
      throw new KritiError('Path Lookup Error', `'${text}' is out of range (length ${cur.length})`, a.span);
    }
    return cur;
  }

  private binary(node: Extract<Node, { kind: 'binary' }>, scope: Scope): Json {
    const { op } = node;
    if (op === '??') {
      const l = this.eval(node.left, scope);
      return l === null ? this.eval(node.right, scope) : l;
    }
    if (op === '&&' || op === '||') {
      const l = this.eval(node.left, scope);
      if (typeof l !== 'boolean') throw new KritiError('Type Error', `'${op}' expects Booleans, the left side is a ${typeName(l)}`, node.left.span);
      if (op === '&&' ? !l : l) return l;
      const r = this.eval(node.right, scope);
      if (typeof r !== 'boolean') throw new KritiError('Type Error', `'${op}' expects Booleans, the right side is a ${typeName(r)}`, node.right.span);
      return r;
    }
    const l = this.eval(node.left, scope);
    const r = this.eval(node.right, scope);
    switch (op) {
      case '==':
        return jsonEqual(l, r);
      case '!=':
        return !jsonEqual(l, r);
      case 'in':
        if (isObject(r)) {
          if (typeof l !== 'string') throw new KritiError('Type Error', `'in' an Object needs a String key, got ${typeName(l)}`, node.left.span);
          return Object.hasOwn(r, l);
        }
        if (Array.isArray(r)) return r.some((x) => jsonEqual(x, l));
        throw new KritiError('Type Error', `'in' expects an Object or an Array on the right, got ${typeName(r)}`, node.right.span);
      default: {
        const comparable = (typeof l === 'number' && typeof r === 'number') || (typeof l === 'string' && typeof r === 'string');
        if (!comparable) {
          throw new KritiError('Type Error', `'${op}' compares two Numbers or two Strings, got ${typeName(l)} and ${typeName(r)}`, node.span);
        }
        if (op === '>') return l > r;
        if (op === '<') return l < r;
        if (op === '>=') return l >= r;
        return l <= r;
      }
    }
  }
}

/** The first call in `node` of a function not in `known`, as an error at the call; null when all are known. */
export function unknownFunction(node: Node, known: ReadonlySet<string>): KritiError | null {
  switch (node.kind) {
    case 'literal':
    case 'path':
      return null;
    case 'string':
      for (const p of node.parts) {
        if (typeof p === 'string') continue;
        const e = unknownFunction(p, known);
        if (e !== null) return e;
      }
      return null;
    case 'array':
      for (const i of node.items) {
        const e = unknownFunction(i, known);
        if (e !== null) return e;
      }
      return null;
    case 'object':
      for (const [, v] of node.fields) {
        const e = unknownFunction(v, known);
        if (e !== null) return e;
      }
      return null;
    case 'binary':
      return unknownFunction(node.left, known) ?? unknownFunction(node.right, known);
    case 'call':
      return known.has(node.name) ? unknownFunction(node.argument, known) : new KritiError('Function Error', `unknown function '${node.name}'`, node.span);
    case 'if':
      for (const [c, b] of node.branches) {
        const e = unknownFunction(c, known) ?? unknownFunction(b, known);
        if (e !== null) return e;
      }
      return node.otherwise === null ? null : unknownFunction(node.otherwise, known);
    case 'range':
      return unknownFunction(node.source, known) ?? unknownFunction(node.body, known);
  }
}
