/**
 * Webhook URLs of scheduled triggers as v2 writes them: a URL, or a template
 * with environment variables (`{{ACTION_BASE_URL}}/cron`), resolved when the
 * trigger is created (to refuse a missing variable) and again at each delivery
 * (the environment of the engine that delivers).
 */

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The URL with every `{{NAME}}` replaced, or the names that are not set. */
export function resolveWebhookUrl(
  template: string,
  env: (name: string) => string | undefined,
): { readonly ok: true; readonly url: string } | { readonly ok: false; readonly missing: readonly string[] } {
  const missing: string[] = [];
  const url = template.replace(VARIABLE, (_, name: string) => {
    const v = env(name);
    if (v === undefined) missing.push(name);
    return v ?? '';
  });
  return missing.length > 0 ? { ok: false, missing } : { ok: true, url };
}

/** Whether `url` is an absolute http(s) URL. */
export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
