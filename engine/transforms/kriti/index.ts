/** Kriti: parse once (at metadata time), evaluate per request. See ../README.md. */
export type { Json, Node as KritiTemplate, Span, Position } from './ast.ts';
export { KritiError, type KritiErrorCode, type SourcePosition } from './error.ts';
export { parseTemplate, parseStringTemplate } from './parse.ts';
export { evaluate, jsonEqual, unknownFunction, type Bindings } from './evaluate.ts';
export { basicFunctions, transformFunctions, escapeUri, FunctionFailure, type KritiFunction } from './functions.ts';
