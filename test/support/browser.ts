/**
 * Headless Chromium from the system (Debian's `chromium`, installed by
 * .ci/run) driven by playwright-core, for the console's browser tests.
 * Screenshots go to test/artifacts/console/ (git-ignored) for a reviewer.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS = path.join(root, 'test', 'artifacts', 'console');

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/**
 * The system browser, or null when none is installed; then the reason the browser tests are
 * skipped is printed, as the other skips print theirs.
 */
export function systemChromium(): string | null {
  const configured = process.env['CHROMIUM_PATH'];
  if (configured !== undefined && configured !== '') return configured;
  const found = CANDIDATES.find((p) => existsSync(p)) ?? null;
  if (found === null) {
    console.log(`[console browser tests] skipped: no Chromium at ${CANDIDATES.join(', ')} (apt-get install chromium, or set CHROMIUM_PATH)`);
  }
  return found;
}

/** Launches headless Chromium at 1280×800 (as root it needs --no-sandbox). */
export async function launchBrowser(executablePath: string): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}

export function artifact(name: string): string {
  return path.join(ARTIFACTS, name);
}
