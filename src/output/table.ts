// Tables for people at a terminal, laid out by hand so that they fit: each column as wide as its
// content; when the table is wider than the terminal, headers fold over lines, free-text columns
// (reasons, file names, labels) are cut with `…` — ids, amounts, codes, dates and statuses never are,
// nor broken over lines; when even that does not fit, the same table without its box, then without
// the columns the caller marked as ones to drop (named under the table); then one record per block
// of `key  value` lines. A `note` column (a failed row's reason) is no column: it is shown whole
// under its row, wrapped at spaces. `wide` cuts nothing (the full text is also in CSV and JSON).
// Never prints colour codes unless asked; control characters in data are shown, not run. Without
// a width (stdout is not a terminal) nothing is cut.

import { terminalLine } from '../quote.js';
import { redactOutput } from '../redact.js';
import { cutToWidth, displayWidth, padToWidth, wrapAtSpaces } from './width.js';

export interface TableOptions {
  color: boolean;
  /** Terminal width in columns. Absent: no limit (a pipe, a file), nothing is cut. */
  width?: number;
  /** Cut nothing (--wide): full text, even when the terminal must wrap it. */
  wide?: boolean;
  /** Columns that may be cut with `…`; default: those holding free text (see isFreeText). */
  cut?: readonly string[];
  /** Columns left out, first ones first, when the table fits no other way (before blocks). */
  drop?: readonly string[];
  /** Columns cut with `…` only once every `drop` column is gone, as the last step before blocks. */
  cutLast?: readonly string[];
  /** A column shown whole on its own lines under its row (when not empty) instead of as a column. */
  note?: string;
}

/** A cut column keeps at least this many columns (or its whole content when narrower). */
const MIN_CUT = 10;

// Names of columns that hold text a person reads rather than copies.
const TEXT_COLUMNS = /(^|_)(file|reason|message|error|detail|description|note|name|email|label)s?$/i;
// Names of columns that are never cut although their values hold words: statuses ("4000 fully
// refunded"), states ("stopped: gateway unreachable"), dates ("2026-11-28 20:54"), outcomes.
const KEPT_COLUMNS =
  /(^|[_\s])(ids?|no|amount|currency|code|date|time|when|created|status|state|outcome)(?=$|[\s(])/i;
// An amount as payops prints it ("USD 1,234.50"): a value, kept whole although it holds a space.
const MONEY = /^[A-Z]{3} -?[\d,]+(\.\d+)?$/;

/** Whether a column may be cut: its name says text, or a value holds words (not an amount). */
function isFreeText(name: string, values: readonly string[]): boolean {
  if (TEXT_COLUMNS.test(name)) return true;
  if (KEPT_COLUMNS.test(name)) return false;
  return values.some((v) => /\s/.test(v) && !MONEY.test(v));
}

export function renderTable(
  columns: string[],
  rows: Array<Record<string, string>>,
  opts: TableOptions,
): string {
  // One line per cell: line breaks in data are shown escaped, like other control characters.
  const cell = (r: Record<string, string>, c: string) => terminalLine(redactOutput(c, r[c] ?? ''));
  const notes = opts.note === undefined ? undefined : rows.map((r) => cell(r, opts.note!));
  const all = columns.filter((c) => c !== opts.note);
  const drop = (opts.drop ?? []).filter((c) => all.includes(c));
  for (let d = 0; d <= drop.length; d++) {
    const gone = drop.slice(0, d);
    const shown = all.filter((c) => !gone.includes(c));
    const head = shown.map(terminalLine);
    // Card numbers and labelled security codes masked as the --debug log masks them (issue 24).
    const body = rows.map((r) => shown.map((c) => cell(r, c)));
    const under = gone.length > 0 ? droppedLine(gone, opts.width) : '';
    const boxed = layout(shown, head, body, opts);
    // A narrow box would fold its notes into a thin column: then the notes get the terminal's width.
    if (boxed && roomForNotes(boxed, notes)) return drawTable(head, body, boxed, opts, notes) + under;
    // The box costs three columns a cell: without it (two spaces between columns) a bulk run's
    // results still fit 80 columns as one line per row instead of eight-line blocks.
    const plain = layout(shown, head, body, opts, 'plain');
    if (plain) return drawPlain(head, body, plain, opts, notes) + under;
    if (d === drop.length && opts.cutLast) {
      const cut = { ...opts, cut: [...(opts.cut ?? []), ...opts.cutLast] };
      const last = layout(shown, head, body, cut, 'plain');
      if (last) return drawPlain(head, body, last, cut, notes) + under;
    }
  }
  // Blocks have room for every column, the dropped ones and the note too.
  const blockColumns = opts.note === undefined ? all : [...all, opts.note];
  return drawBlocks(
    blockColumns.map(terminalLine),
    rows.map((r) => blockColumns.map((c) => cell(r, c))),
    opts,
  );
}

/** Whether a box of these widths holds its notes: each on one line, or at least 40 columns. */
function roomForNotes(widths: readonly number[], notes: readonly string[] | undefined): boolean {
  const inner = widths.reduce((a, w) => a + w, 0) + 3 * widths.length - 3;
  return inner >= 40 || (notes ?? []).every((n) => n === '' || displayWidth(n) + 2 <= inner);
}

/** The line under a table that left columns out: which, and how to see them. */
function droppedLine(gone: readonly string[], width: number | undefined): string {
  const line = `not shown at this width: ${gone.join(', ')} (--wide or --output csv show every column)`;
  return `${(width ? wrapAtSpaces(line, width - 1, '  ') : [line]).join('\n')}\n`;
}

/** A note under its row: whole, wrapped at spaces to `width`, each line indented by two spaces. */
function noteLines(note: string, width: number | undefined): string[] {
  if (note === '') return [];
  const line = `  ${note}`;
  return width && width > 0 ? wrapAtSpaces(line, width, '  ') : [line];
}

/** Column widths (content only) that fit, or undefined when only blocks fit. */
export function layout(
  names: readonly string[],
  head: readonly string[],
  body: readonly string[][],
  opts: Pick<TableOptions, 'width' | 'wide' | 'cut'>,
  /** `box`: │ a │ b │ (3 columns a cell, one to close); `plain`: two spaces between columns. */
  frameStyle: 'box' | 'plain' = 'box',
): number[] | undefined {
  const content = head.map((_, i) => {
    let w = 0;
    for (const r of body) w = Math.max(w, displayWidth(r[i] ?? ''));
    return w;
  });
  const natural = head.map((h, i) => Math.max(content[i]!, displayWidth(h)));
  const limit = opts.width !== undefined && opts.width > 0 && !opts.wide ? opts.width : undefined;
  if (limit === undefined) return natural;
  // │ a │ b │: 3 columns per cell of borders and padding, and one to close.
  const frame = frameStyle === 'box' ? 3 * head.length + 1 : 2 * (head.length - 1);
  const widths = [...natural];
  let over = widths.reduce((a, b) => a + b, 0) + frame - limit;
  if (over <= 0) return widths;
  // First, headers wider than their column go over two or more lines ("refund_" / "amount"):
  // nothing is lost.
  for (let i = 0; i < widths.length && over > 0; i++) {
    const floor = Math.max(content[i]!, ...headerWords(head[i]!).map((word) => displayWidth(word)));
    const give = Math.max(0, Math.min(over, widths[i]! - floor));
    widths[i]! -= give;
    over -= give;
  }
  if (over <= 0) return widths;
  const cuttable = names.map((n, i) =>
    opts.cut
      ? opts.cut.includes(n)
      : isFreeText(
          n,
          body.map((r) => r[i] ?? ''),
        ),
  );
  const floor = widths.map((w) => Math.min(w, MIN_CUT));
  // Take from the widest cuttable column first, a column at a time, down to its floor.
  while (over > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (cuttable[i] && widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) return undefined;
    widths[widest]!--;
    over--;
  }
  return widths;
}

/** Where a header may break: after `_` and `-`, at spaces. */
function headerWords(h: string): string[] {
  return h.split(/(?<=[_-])|\s+/).filter(Boolean);
}

/** A header over as many lines as its width needs, broken only where headerWords allows. */
function headerLines(h: string, width: number): string[] {
  if (displayWidth(h) <= width) return [h];
  const lines: string[] = [];
  let cur = '';
  for (const word of headerWords(h)) {
    const glued = cur.endsWith('_') || cur.endsWith('-');
    const joined = cur === '' ? word : glued ? cur + word : `${cur} ${word}`;
    if (cur !== '' && displayWidth(joined) > width) {
      lines.push(cur);
      cur = word;
    } else cur = joined;
  }
  if (cur !== '') lines.push(cur);
  return lines;
}

/** The header as rows of cells: each column's headerLines, the shorter ones padded with ''. */
function headerRows(head: string[], widths: number[]): string[][] {
  const headCells = head.map((h, i) => headerLines(h, widths[i]!));
  const height = Math.max(1, ...headCells.map((c) => c.length));
  return Array.from({ length: height }, (_, k) => headCells.map((c) => c[k] ?? ''));
}

const CYAN = (s: string) => `\u001b[36m${s}\u001b[39m`;
const GREY = (s: string) => `\u001b[90m${s}\u001b[39m`;

function drawTable(
  head: string[],
  body: string[][],
  widths: number[],
  opts: TableOptions,
  notes?: readonly string[],
): string {
  const color = opts.color;
  const b = color ? GREY : (s: string) => s;
  // A note spans the row's cells: the box's inner width, less a space each side.
  const inner = widths.reduce((a, w) => a + w, 0) + 3 * widths.length - 3;
  const rule = (l: string, m: string, r: string) =>
    b(`${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`);
  const line = (cells: readonly string[], paint: (s: string) => string) =>
    `${b('│')}${widths
      .map((w, i) => {
        const text = cutToWidth(cells[i] ?? '', w);
        return ` ${paint(padToWidth(text, w))} `;
      })
      .join(b('│'))}${b('│')}`;
  const out = [rule('┌', '┬', '┐')];
  for (const cells of headerRows(head, widths)) out.push(line(cells, color ? CYAN : (s) => s));
  // No rule between body rows: a 1,000-row result stays 1,000 lines, not 2,000.
  if (body.length > 0) out.push(rule('├', '┼', '┤'));
  body.forEach((r, i) => {
    out.push(line(r, (s) => s));
    for (const n of noteLines(notes?.[i] ?? '', inner))
      out.push(`${b('│')} ${padToWidth(n, inner)} ${b('│')}`);
  });
  out.push(rule('└', '┴', '┘'));
  return `${out.join('\n')}\n`;
}

/** The same table without the box: columns two spaces apart, the header underlined by `─`. */
function drawPlain(
  head: string[],
  body: string[][],
  widths: number[],
  opts: TableOptions,
  notes?: readonly string[],
): string {
  const color = opts.color;
  const last = widths.length - 1;
  const tableWidth = widths.reduce((a, w) => a + w, 0) + 2 * last;
  // A note may use the whole terminal (one column spare), or the table's width off a terminal.
  const room = opts.width ? opts.width - 1 : tableWidth;
  // No padding after the last column: no line ends in spaces.
  const line = (cells: readonly string[], paint: (s: string) => string) =>
    widths
      .map((w, i) => {
        const text = cutToWidth(cells[i] ?? '', w);
        return paint(i === last ? text : padToWidth(text, w));
      })
      .join('  ')
      .trimEnd();
  const out: string[] = [];
  for (const cells of headerRows(head, widths)) out.push(line(cells, color ? CYAN : (s) => s));
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  out.push(color ? GREY(rule) : rule);
  body.forEach((r, i) => {
    out.push(line(r, (s) => s));
    out.push(...noteLines(notes?.[i] ?? '', room));
  });
  return `${out.join('\n')}\n`;
}

/** One record per block: `key  value` lines, a blank line between records. */
function drawBlocks(head: string[], body: string[][], opts: TableOptions): string {
  const keyWidth = Math.max(...head.map(displayWidth));
  const room = (opts.width ?? 0) - keyWidth - 2;
  const cuttable = head.map((n, i) =>
    opts.cut
      ? opts.cut.includes(n)
      : isFreeText(
          n,
          body.map((r) => r[i] ?? ''),
        ),
  );
  const blocks = body.map((r) =>
    head
      .map((h, i) => {
        const v = r[i] ?? '';
        if (v === '') return undefined;
        const k = opts.color ? CYAN(padToWidth(h, keyWidth)) : padToWidth(h, keyWidth);
        // The note (a failed row's reason) is whole, wrapped at spaces under its key.
        if (h === opts.note && opts.width && room > MIN_CUT) {
          const [first = '', ...rest] = wrapAtSpaces(
            `${' '.repeat(keyWidth)}  ${v}`,
            opts.width - 1,
            ' '.repeat(keyWidth + 2),
          );
          return [`${k}${first.slice(keyWidth)}`, ...rest].join('\n');
        }
        // A value too long for its line is cut when it is text; an id stays whole (the terminal wraps it).
        const shown = cuttable[i] && room > MIN_CUT ? cutToWidth(v, room) : v;
        return `${k}  ${shown}`;
      })
      .filter((l): l is string => l !== undefined)
      .join('\n'),
  );
  return blocks.length > 0 ? `${blocks.join('\n\n')}\n` : '';
}
