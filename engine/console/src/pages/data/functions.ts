/**
 * A source's tracked functions as the engine's document types them (the
 * console's metadata state declares only their names), and the
 * configuration fields the console edits.
 */
import type { FunctionConfiguration, FunctionMetadata } from '../../../../model/document.ts';
import type { SourceEntry } from '../../metadata-state.tsx';
import { qualifiedText } from '../../source-kinds.ts';

export function trackedFunctions(source: SourceEntry): readonly FunctionMetadata[] {
  return (source.functions ?? []) as readonly FunctionMetadata[];
}

/** `schema.name` of a tracked function (the key the Data page links it by). */
export function functionKey(kind: string, f: FunctionMetadata): string {
  return qualifiedText(kind, f.function) ?? f.function.name;
}

/** What the exposed-as select shows: v2's default (VOLATILE ones on the mutation root, others on the query root), query or mutation. */
export type ExposedAs = '' | 'query' | 'mutation';

/**
 * A configuration with `exposed_as` and `session_argument` as typed (empty: left out), the other
 * keys (custom name, root fields) kept as they were.
 */
export function withConfiguration(old: FunctionConfiguration | undefined, exposedAs: ExposedAs, sessionArgument: string): FunctionConfiguration {
  const { exposed_as: _e, session_argument: _s, ...rest } = old ?? {};
  return {
    ...rest,
    ...(exposedAs !== '' ? { exposed_as: exposedAs } : {}),
    ...(sessionArgument.trim() !== '' ? { session_argument: sessionArgument.trim() } : {}),
  };
}
