// A key/value "card" for one order or payment: a title, then sections of aligned label/value pairs.

import { redactOutput } from '../redact.js';
import { terminalSafe } from './sanitize.js';
import { cutToWidth } from './width.js';

export interface CardSection {
  heading?: string;
  /** Pairs with an undefined value are left out (a field the gateway did not return). */
  fields: Array<[label: string, value: string | undefined]>;
}

const BOLD = '\u001b[1m';
const DIM = '\u001b[2m';
const RESET = '\u001b[0m';

/**
 * `width`: the terminal's columns, when on one; a value longer than its room is cut with `…` (the
 * full text is in --output json / csv), as table cells are.
 */
export function renderCard(
  title: string,
  sections: CardSection[],
  opts: { color: boolean; width?: number },
): string {
  const bold = (s: string) => (opts.color ? `${BOLD}${s}${RESET}` : s);
  const dim = (s: string) => (opts.color ? `${DIM}${s}${RESET}` : s);
  const present = sections.map((s) => ({
    heading: s.heading,
    fields: s.fields.filter((f): f is [string, string] => f[1] !== undefined),
  }));
  const labelWidth = Math.max(
    0,
    ...present.flatMap((s) => s.fields.map(([l]) => [...terminalSafe(l)].length)),
  );
  const out: string[] = [bold(terminalSafe(title))];
  for (const s of present) {
    if (s.fields.length === 0 && s.heading === undefined) continue;
    if (s.heading !== undefined) out.push('', bold(terminalSafe(s.heading)));
    for (const [label, value] of s.fields) {
      const l = terminalSafe(label);
      const pad = ' '.repeat(labelWidth - [...l].length);
      // Multi-line values continue under the value column.
      const room = opts.width === undefined ? undefined : opts.width - labelWidth - 4;
      // Card numbers and labelled security codes masked as the --debug log masks them (issue 24).
      const lines = terminalSafe(redactOutput(label, value))
        .split('\n')
        .map((v) => (room === undefined ? v : cutToWidth(v, room)));
      out.push(`  ${dim(l)}${pad}  ${lines[0]}`);
      for (const more of lines.slice(1)) out.push(`  ${' '.repeat(labelWidth)}  ${more}`);
    }
  }
  return `${out.join('\n')}\n`;
}
