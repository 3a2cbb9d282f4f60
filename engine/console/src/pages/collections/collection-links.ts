/** The page's links (`#/collections?…`), the REST methods, and a URL template's parameters. */

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function link(params: Record<string, string>): string {
  return `#/collections?${new URLSearchParams(params).toString()}`;
}

/** The `:name` parameters of a URL template (`orders/:id` → `id`). */
export function urlParams(url: string): string[] {
  return url
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
}
