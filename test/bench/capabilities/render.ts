/** Markdown for the capability cells of a run. */
import type { CapabilityOutcome } from './load.ts';

const cell = (v: string | number | null | undefined): string => (v === null || v === undefined ? '–' : String(v));

/** One section per cell: its tables, then its notes (or the failure). */
export function renderCapabilities(outcomes: readonly CapabilityOutcome[]): string {
  const lines: string[] = [];
  for (const o of outcomes) {
    lines.push(`## Capability \`${o.name}\` (${o.seconds.toFixed(0)} s)`, '');
    if (o.result === null) {
      lines.push('Failed:', '', '```', o.error ?? 'unknown error', '```', '');
      continue;
    }
    for (const t of o.result.tables) {
      const keys = [...new Set(t.rows.flatMap((r) => Object.keys(r)))];
      lines.push(`### ${t.title}`, '');
      if (keys.length === 0) {
        lines.push('(no rows)', '');
        continue;
      }
      lines.push(`| ${keys.join(' | ')} |`, `|${keys.map(() => '---').join('|')}|`);
      for (const r of t.rows) lines.push(`| ${keys.map((k) => cell(r[k])).join(' | ')} |`);
      lines.push('');
    }
    for (const n of o.result.notes) lines.push(`- ${n}`);
    lines.push('');
  }
  return lines.join('\n');
}
