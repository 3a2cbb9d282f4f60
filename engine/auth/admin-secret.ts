import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented admin secret with the configured one in constant time.
 * Both sides are hashed first so that the comparison length never depends on
 * the secret's length.
 */
export function isAdminSecretValid(configured: string, presented: string): boolean {
  const a = createHash('sha256').update(configured).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}
