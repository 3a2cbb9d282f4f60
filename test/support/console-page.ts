/**
 * What the console's browser tests do on a page: type into a form field key by
 * key, type into GraphiQL's editor, read its response, and list the controls
 * that lack an accessible name.
 */
import type { Locator, Page } from 'playwright-core';

/**
 * Clears a field and types `text` into it key by key, as a person does (an input event per
 * character, `\n` as Enter), then checks the field holds exactly `text`. Filling in one event
 * hid editors that rewrite the text on every keystroke (`9.99` became `999`, `true` became
 * `truerue`): every console form test types with this, never with `fill()`.
 */
export async function typeInto(field: Locator, text: string): Promise<void> {
  await field.click();
  await field.press('ControlOrMeta+A');
  await field.press('Backspace');
  await field.pressSequentially(text);
  const shown = await field.inputValue();
  if (shown !== text) throw new Error(`typed ${JSON.stringify(text)} key by key, but the field holds ${JSON.stringify(shown)}`);
}

/**
 * Signs in on the console's admin-secret form of an opened page as a person does (the secret typed
 * key by key, then Enter) and waits for the console's sections.
 */
export async function signIn(page: Page, secret: string): Promise<void> {
  await typeInto(page.getByLabel('Admin secret'), secret);
  await page.getByLabel('Admin secret').press('Enter');
  await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
}

/** The viewport of the console tests: 1280×800, or `CONSOLE_VIEWPORT=1920x1080` to look at the layout at another size. */
export function consoleViewport(): { width: number; height: number } {
  const [width, height] = (process.env['CONSOLE_VIEWPORT'] ?? '1280x800').split('x').map(Number) as [number, number];
  return { width, height };
}

/**
 * Types a local date and time (`YYYY-MM-DDTHH:MM`) into a `datetime-local` field as a person does
 * in an en-US browser (the page's context needs `locale: 'en-US'`): month, day, year, then hour,
 * minute and AM/PM, segment by segment; then checks the field's value.
 */
export async function typeDateTime(field: Locator, local: string): Promise<void> {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (m === null) throw new Error(`typeDateTime takes YYYY-MM-DDTHH:MM, not ${JSON.stringify(local)}`);
  const [, year, month, day, hour, minute] = m as unknown as [string, string, string, string, string, string];
  const h = Number(hour);
  // Focus afresh: a focused field keeps its last segment; a newly focused one starts at the first.
  await field.blur();
  await field.focus();
  await field.pressSequentially(`${month}${day}${year}`);
  await field.press('ArrowRight'); // the year takes up to six digits: move on by hand
  await field.pressSequentially(`${String(h % 12 === 0 ? 12 : h % 12).padStart(2, '0')}${minute}${h < 12 ? 'A' : 'P'}`);
  const shown = await field.inputValue();
  if (shown !== local) throw new Error(`typed the date and time ${local} key by key, but the field holds ${JSON.stringify(shown)}`);
}

/**
 * Types into GraphiQL's query editor (Monaco): select all, then insert the text as one edit (key by
 * key, Monaco's auto-closing brackets and suggestions would add text the test did not type).
 */
export async function setQuery(page: Page, query: string): Promise<void> {
  await page.locator('.graphiql-query-editor .monaco-editor').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(query);
}

/**
 * Form controls and buttons on screen without an accessible name (a label,
 * aria-label/labelledby, or a button's text): each page is checked once.
 * Runs in the page (a string: this file is type-checked without the DOM library).
 */
const UNNAMED_CONTROLS = `(() => {
  const out = [];
  for (const el of document.querySelectorAll('input, select, textarea, button')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || el.type === 'hidden') continue;
    if (el.closest('.monaco-editor') !== null) continue; // Monaco's own textareas carry aria-labels it manages
    const labelled = (el.labels?.length ?? 0) > 0 || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title');
    const text = el.tagName === 'BUTTON' && (el.textContent ?? '').trim() !== '';
    if (!labelled && !text) out.push(el.outerHTML.slice(0, 120));
  }
  return out;
})()`;

export async function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(UNNAMED_CONTROLS);
}

/** The text of GraphiQL's response pane. */
export async function responseText(page: Page): Promise<string> {
  return (await page.locator('.graphiql-response .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
}

/** The text of GraphiQL's query editor. */
export async function queryText(page: Page): Promise<string> {
  return (await page.locator('.graphiql-query-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
}

/**
 * The text of the first status line in `scope`, read without waiting: when the console showed an
 * error instead (a Status turns into `role="alert"`), the alerts' texts, so that a poll for a
 * success message fails with the engine's message rather than waiting on a status that is gone.
 */
export async function statusText(scope: Locator | Page): Promise<string> {
  // The page's elements, typed as far as this reads them (the project's types have no DOM lib).
  type Shown = { getAttribute(name: string): string | null; textContent: string | null };
  return await scope.locator('[role=status], [role=alert]').evaluateAll((nodes) => {
    const els = nodes as unknown as Shown[];
    const status = els.find((e) => e.getAttribute('role') === 'status');
    if (status !== undefined) return status.textContent ?? '';
    return `no status line; alerts: ${els.map((e) => JSON.stringify(e.textContent)).join(', ') || 'none'}`;
  });
}
