// `payops inspect FILE`: the summary (summary.ts) for a person, fitted to the terminal (80 columns
// when there is none), or as JSON with --output json.
import { fitLines, formatCount, plural } from '../output/summary.js';
import { renderTable } from '../output/table.js';
import { quote, quoteName } from '../quote.js';
import type { InspectSummary } from './summary.js';

/** The width text is fitted to without a terminal. */
const DEFAULT_WIDTH = 80;

export function summaryJson(s: InspectSummary): string {
  return `${JSON.stringify(s, null, 2)}\n`;
}

export function summaryText(s: InspectSummary, opts: { width?: number; color: boolean }): string {
  const width = opts.width ?? DEFAULT_WIDTH;
  const lines: string[] = [];
  const fact = (label: string, value: string) => lines.push(`${`${label}:`.padEnd(13)} ${value}`);
  const as = `read as the ${s.for} command reads it (${s.forWhy === 'given' ? '--for' : 'the default: --for names another'})`;
  lines.push(`${quoteName(s.file)}: ${s.kind === 'csv' ? 'a CSV file' : 'an .xlsx workbook'}, ${as}`);
  if (s.csv) {
    const delim = s.csv.delimiter === ',' ? 'comma' : s.csv.delimiter === ';' ? 'semicolon' : 'tab';
    fact('encoding', `${s.csv.encoding}${s.csv.bom ? ' (with a byte order mark)' : ''}`);
    fact('separator', `${delim} (${quote(s.csv.delimiter)})`);
    fact('decimal mark', `${quote(s.csv.decimalMark)}: ${s.csv.why}`);
  }
  if (s.sheets) {
    const names = s.sheets.map(
      (x) =>
        `${quoteName(x.name)}${x.state === 'visible' ? '' : x.state === 'hidden' ? ' (hidden)' : ' (very hidden)'}`,
    );
    fact('sheets', names.length === 0 ? '(none with cells)' : names.join(', '));
  }
  if (s.sheet) fact('sheet read', s.sheet.words);
  if (s.refused) {
    lines.push('', `refused: ${s.refused.message}`);
    if (s.refused.hint) lines.push(`hint: ${s.refused.hint}`);
    let text = `${fitLines(lines, width).join('\n')}\n`;
    if (s.raw && s.raw.length > 0) {
      const unit = s.kind === 'csv' ? 'line' : 'row';
      text += `\nthe first ${plural(s.raw.length, 'row')} with a value, as they are:\n`;
      for (const r of s.raw) {
        const cells = r.cells.map((c) => (c === '' ? '·' : quote(c))).join('  ');
        text += `${fitLines([`${unit} ${r.line}: ${cells}`], width).join('\n')}\n`;
      }
    }
    return text;
  }
  if (s.header) {
    const unit = s.kind === 'csv' ? 'line' : 'row';
    fact(
      'header',
      `${unit} ${s.header.line}${s.header.byFlag ? ' (--header-row)' : s.header.line > 1 ? ` (the first ${unit} within 20 that has the columns; --header-row sets it)` : ''}`,
    );
    lines.push('columns:');
    const w = Math.max(...s.header.columns.map((c) => c.column.length), 6);
    for (const c of s.header.columns) {
      const where =
        c.header === undefined
          ? c.required
            ? 'missing'
            : '(no such column: optional)'
          : `${quote(c.header)} (${c.at}${c.how === 'alias' ? ', by its alias' : c.how === 'mapped' ? `, ${s.header.mappedBy ?? '--columns'}` : ''})`;
      lines.push(`  ${c.column.padEnd(w)}  ${where}`);
    }
  }
  if (s.rows) {
    const r = s.rows;
    const hidden =
      r.hidden.length === 0
        ? ''
        : `; hidden${r.filter ? ` (by hand, or by the filter on ${r.filter})` : ''}: ${r.hidden.join(', ')}`;
    fact('rows', `${formatCount(r.count)}${hidden}`);
    if (r.withProblems > 0) {
      fact('problems', `${plural(r.withProblems, 'row')} with a cell the command refuses:`);
      for (const p of r.problems) lines.push(`  ${p}`);
    }
  }
  if (s.merged && s.merged.length > 0) {
    const shown = s.merged
      .slice(0, 20)
      .map((m) => `${m.range}${m.carries ? ` (${m.carries}: carried down)` : ''}`);
    if (s.merged.length > shown.length)
      shown.push(`… and ${formatCount(s.merged.length - shown.length)} more`);
    fact('merged', shown.join(', '));
  }
  for (const n of s.notes ?? []) lines.push(`note: ${n}`);
  let text = `${fitLines(lines, width).join('\n')}\n`;
  if (s.first && s.header) {
    const rowCol = s.kind === 'csv' ? 'line' : 'row';
    const names = s.header.names.map((n) => (n === rowCol ? `${n} ` : n));
    const columns = [rowCol, ...names];
    const rows = s.first.map((r) => {
      const rec: Record<string, string> = { [rowCol]: `${r.line}${r.hidden ? ' hidden' : ''}` };
      names.forEach((n, i) => {
        rec[n] = r.cells[i] ?? '';
      });
      return rec;
    });
    text += `\n${s.first.length === 0 ? 'no rows below the header' : `${s.first.length === 1 ? 'the first row' : `the first ${formatCount(s.first.length)} rows`} as read:`}\n`;
    if (rows.length > 0) text += renderTable(columns, rows, { color: opts.color, width });
  }
  return text;
}
