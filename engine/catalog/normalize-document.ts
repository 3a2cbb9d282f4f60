/**
 * The allow-list's key of a GraphQL document: equal keys, same allow-list
 * decision.
 *
 * Note [Allow-list matching]
 * A request matches an allow-listed query when their parsed documents are
 * equal after this normalization, and only then:
 * - the text is parsed and printed again (graphql-js `print`), so
 *   whitespace, commas, comments and the layout of block strings do not
 *   count;
 * - every `__typename` field is removed, aliased or not (v2 compat: clients
 *   such as Apollo add them to every selection set, and v2 strips them
 *   before comparing too);
 * - the document's definitions (operations and fragments) are sorted by
 *   their printed text, so their order in the stored text or the request
 *   does not count (v2 compares them in order; users keep operations and
 *   fragments in separate places and their tools re-order them).
 * Nothing else is normalized: the order of fields, arguments, variables or
 * directives, aliases, operation and fragment names, and literal values
 * must be the same. A query is a whole document: a request whose document
 * holds more or fewer operations than the stored one does not match, even
 * if the operation it names is the same. Variables' values are not part of
 * the document, so every value of an allow-listed query's variables runs.
 */
import { Kind, print, visit, type DocumentNode } from 'graphql';

/** The normalized text of `document` (Note [Allow-list matching]). */
export function allowlistKey(document: DocumentNode): string {
  const stripped = visit(document, {
    Field(node) {
      return node.name.value === '__typename' ? null : undefined;
    },
  });
  const parts = stripped.definitions.map((d) => print(d));
  parts.sort();
  return parts.join('\n');
}

/** Whether `document` holds only executable definitions (what a collection may store). */
export function isExecutable(document: DocumentNode): boolean {
  return document.definitions.every((d) => d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION);
}
