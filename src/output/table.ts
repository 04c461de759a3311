// Tables for people at a terminal (cli-table3). Fits the terminal width by wrapping the widest
// columns; never prints colour codes unless asked; control characters in data are shown, not run.

import Table from 'cli-table3';
import { terminalSafe } from './sanitize.js';

export interface TableOptions {
  color: boolean;
  /** Terminal width in columns; the table wraps cells to fit. Default: no limit. */
  width?: number;
}

const MIN_COLUMN = 6;
const MAX_NATURAL = 60;

export function renderTable(
  columns: string[],
  rows: Array<Record<string, string>>,
  opts: TableOptions,
): string {
  const head = columns.map(terminalSafe);
  const body = rows.map((r) => columns.map((c) => terminalSafe(r[c] ?? '')));
  const colWidths = fitWidths(head, body, opts.width);
  const style = opts.color ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] };
  // No rule between body rows (a 1,000-row result stays 1,000 lines, not 2,000); cli-table3 draws
  // the header rule with the same characters, so it is put back by hand below.
  const table = new Table({
    head,
    colWidths,
    wordWrap: true,
    wrapOnWordBoundary: false,
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    style,
  });
  for (const r of body) table.push(r);
  const lines = table.toString().split('\n');
  if (body.length > 0) {
    const headerOnly = new Table({ head, colWidths, wordWrap: true, wrapOnWordBoundary: false, style });
    const headerHeight = headerOnly.toString().split('\n').length - 2;
    const rule = lines[0]!.replace('┌', '├').replace(/┬/g, '┼').replace('┐', '┤');
    lines.splice(1 + headerHeight, 0, rule);
  }
  const text = lines.join('\n');
  return `${opts.color ? text : stripAnsi(text)}\n`;
}

function displayWidth(s: string): number {
  let w = 0;
  for (const line of s.split('\n')) w = Math.max(w, [...line].length);
  return w;
}

/** Column widths (including 1 space of padding each side) that fit `width`, or natural widths. */
function fitWidths(head: string[], body: string[][], width: number | undefined): number[] {
  const natural = head.map((h, i) => {
    let w = displayWidth(h);
    for (const r of body) w = Math.max(w, displayWidth(r[i] ?? ''));
    return Math.min(w, MAX_NATURAL) + 2;
  });
  if (width === undefined || width <= 0) return natural;
  const borders = head.length + 1;
  const widths = [...natural];
  let total = widths.reduce((a, b) => a + b, 0) + borders;
  while (total > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! > MIN_COLUMN + 2 && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) break; // cannot shrink further; the terminal wraps the rest
    widths[widest]!--;
    total--;
  }
  return widths;
}

// cli-table3 colours through @colors/colors, which may still emit codes on its own; strip them.
const ANSI = /\u001b\[[0-9;]*m/g;
function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}
