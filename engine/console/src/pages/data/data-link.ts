/** A link to a view of the Data page (`#/data?source=…&table=…&view=…&tab=…`). */
export function dataLink(params: Record<string, string>): string {
  return `#/data?${new URLSearchParams(params).toString()}`;
}
