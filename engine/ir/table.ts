/** Table references in the IR (kept apart from catalog types so `ir/` imports nothing but errors). */

/** A table or view name with its schema. */
export interface QualifiedName {
  readonly schema: string;
  readonly name: string;
}
