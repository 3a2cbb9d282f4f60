/**
 * Webhook URLs of scheduled triggers: v2's `{{ENV}}/path` templates are
 * resolved by transforms/url-template.ts; this checks what they resolve to.
 */

/** Whether `url` is an absolute http(s) URL. */
export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
