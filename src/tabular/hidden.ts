// What a reader saw of a workbook that a person does not: rows hidden by hand, by a filter or a
// zero height, and the sheet it read. The words every command that reads a file uses about them —
// the plan's lines, the refusal when no flag says what to do with them, the refusal when every row
// is hidden — so every command that reads a file says the same thing (each keeps its own plan).
import { InputError } from '../errors.js';
import { formatCount, plural } from '../output/summary.js';
import { quoteName } from '../quote.js';
import type { HiddenMode, SheetFacts } from './xlsx-reader.js';

/** What hiddenLines and hiddenRefusal read of a plan: the sheet read and its hidden rows. */
export interface HiddenView {
  sheet?: SheetFacts;
  hidden?: HiddenRows;
}

const n = formatCount;
/** Rows an InputError names; beyond this only counted (as many as a plan keeps problems). */
const ROWS_NAMED = 1000;

/**
 * Rows hidden by hand, by a filter or a zero height. Unless --include-hidden (they are sent, and
 * counted in the plan's rows) or --skip-hidden (left out: not validated, not sent, not in `rows`,
 * reported `skipped`), a run refuses the file (hiddenRefusal).
 */
export interface HiddenRows {
  mode: HiddenMode | undefined;
  rows: HiddenRow[];
}

export interface HiddenRow {
  line: number;
  /** `Sheet1!A7`. */
  ref: string;
  /** The row's cells in column order, for its `skipped` result (--skip-hidden only). */
  cells?: string[];
}

/** Every row is one a person does not see: nothing to send without --include-hidden. */
export function everyRowHidden(
  label: string,
  hidden: readonly HiddenRow[],
  mode: HiddenMode | undefined,
): InputError {
  return new InputError(
    `every row of ${label} is hidden${mode === 'skip' ? ' and --skip-hidden left them all out' : ''}; nothing was sent`,
    hidden.slice(0, ROWS_NAMED).map((h) => ({ file: `${label}:${h.ref}`, message: 'the row is hidden' })),
    {
      hint: '--include-hidden sends them, if they are meant to be sent; or show the rows in the spreadsheet and save it',
    },
  );
}

/** Hidden-row references listed in the plan; beyond this only counted. */
const HIDDEN_SHOWN = 20;

/**
 * A workbook's sheet read, and its rows a person does not see with their cells: what --include-hidden
 * or --skip-hidden does with them, or that a run refuses them. `skippedReported`: the caller
 * reports rows left out as `skipped` results.
 */
export function hiddenLines(plan: HiddenView, skippedReported = true): string[] {
  const lines: string[] = [];
  if (plan.sheet) lines.push(`  sheet read: ${sheetWords(plan.sheet)}`);
  const merged = plan.sheet?.looks.merged ?? [];
  if (merged.length > 0) {
    const shown = merged.slice(0, HIDDEN_SHOWN).map((m) => `${m.range} (${m.column})`);
    if (merged.length > shown.length) shown.push(`… and ${n(merged.length - shown.length)} more`);
    lines.push(
      `  merged cells: ${shown.join(', ')}: the value of its first cell applies to every row it covers`,
    );
  }
  const hidden = plan.hidden;
  if (hidden === undefined) return lines;
  const count = hidden.rows.length;
  const refs = hidden.rows.slice(0, HIDDEN_SHOWN).map((h) => h.ref);
  if (count > refs.length) refs.push(`… and ${n(count - refs.length)} more`);
  const filter = plan.sheet?.looks.autoFilter;
  const by = filter ? ` (by hand or by the sheet's filter on ${filter})` : '';
  const what =
    hidden.mode === 'include'
      ? `sent (--include-hidden), counted in the totals`
      : hidden.mode === 'skip'
        ? `left out (--skip-hidden)${skippedReported ? ', reported skipped' : ''}, not in the totals`
        : 'not in the totals; a run refuses them unless --include-hidden or --skip-hidden';
  lines.push(`  ${plural(count, 'row')} hidden${by}: ${what}: ${refs.join(', ')}`);
  return lines;
}

/**
 * The refusal of a file with rows a person does not see and neither --include-hidden nor
 * --skip-hidden (exit 2, nothing sent), each row named by its cell; undefined when there is none.
 */
export function hiddenRefusal(label: string, plan: HiddenView): InputError | undefined {
  const hidden = plan.hidden;
  if (hidden === undefined || hidden.mode !== undefined || hidden.rows.length === 0) return undefined;
  const filter = plan.sheet?.looks.autoFilter;
  const count = hidden.rows.length;
  const sheet = plan.sheet ? ` of the sheet ${quoteName(plan.sheet.name)}` : '';
  return new InputError(
    `${label}: ${plural(count, 'row')}${sheet} ${count === 1 ? 'is' : 'are'} hidden${filter ? ` (the sheet has a filter on ${filter}: rows it filters out are hidden rows)` : ''}; nothing was sent`,
    hidden.rows.map((h) => ({
      file: `${label}:${h.ref}`,
      message: filter ? 'the row is hidden (filtered out, or hidden by hand)' : 'the row is hidden',
    })),
    {
      hint: '--skip-hidden sends only the rows a person sees (the others are reported skipped); --include-hidden sends the hidden rows too',
    },
  );
}

/** `Refunds (the first of 2 sheets)`, `Old (hidden; --include-hidden)`, … */
export function sheetWords(s: SheetFacts): string {
  const notes: string[] = [];
  if (s.state !== 'visible')
    notes.push(
      `${s.state === 'veryHidden' ? 'very hidden' : 'hidden'}${s.named ? ', named by --sheet' : ', read by --include-hidden'}`,
    );
  else if (s.named) notes.push('named by --sheet');
  else if (s.passedOver.length > 0)
    notes.push(
      `the first visible sheet: --skip-hidden passed over the hidden ${s.passedOver.map((x) => quoteName(x)).join(', ')}`,
    );
  else notes.push(s.of === 1 ? 'its only sheet' : `the first of ${s.of} sheets; --sheet reads another`);
  return `${quoteName(s.name)} (${notes.join('; ')})`;
}
