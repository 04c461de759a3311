// Payout input → a checked plan: one payout from --request FILE.json or one per row of --file CSV,
// every problem collected (file:line, field) before anything is sent, totals per currency.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, type InputProblem } from '../errors.js';
import { type AmountStyle, addToTotals, formatAmount, parseAmountText } from '../money/amount.js';
import { currencyInfo } from '../money/currency.js';
import type { ColumnMatch } from '../tabular/column-match.js';
import type { SheetFacts } from '../tabular/csv-reader.js';
import type { HiddenRows } from '../tabular/hidden.js';
import type { TableReadAs } from '../tabular/read-as.js';
import { mapColumns, rowToObject } from './columns.js';
import { PAYOUT_SPEC } from './fields.js';
import { duplicatePayouts, payoutFileKey, payoutKey, payoutMatch } from './meaning.js';
import { type CheckedPayout, checkPayout } from './validate.js';

export interface PayoutItem extends CheckedPayout {
  /** Line of the CSV row (the JSON request is line 1). */
  line: number;
  /**
   * Where request_id came from: the input; `journal` when an earlier run of this home gave the same
   * payout one; `derived` from its meaning (meaning.ts derivedRequestId); `generated` at random.
   */
  requestIdFrom: 'input' | 'generated' | 'journal' | 'derived';
  /** Content identity (request_id aside), recorded in the journal so a later run recognises the payout. */
  key?: string;
  /** Account, amount, currency and date (meaning.ts payoutMatch): finds an earlier payout edited since. */
  match?: string;
}

export interface PayoutPlan {
  kind: 'json' | 'csv';
  /** Absolute path. */
  file: string;
  /** As the user wrote it (for messages). */
  displayFile: string;
  sha256: string;
  /** What the payouts mean, whatever the bytes (meaning.ts payoutFileKey). */
  contentKey: string;
  items: PayoutItem[];
  totals: Map<string, bigint>;
  /** CSV: how it was read (decimal mark and why, encoding). */
  readAs?: TableReadAs;
  /** A workbook's sheet read (the plan names it). */
  sheet?: SheetFacts;
  /** The header's row and the columns read under another name (the plan names them). */
  header?: { line: number; matches: ColumnMatch[] };
  /** A workbook's rows a person does not see (tabular/hidden.ts HiddenRows): refused unless a flag says. */
  hidden?: HiddenRows;
}

function fail(file: string, problems: InputProblem[], hint?: string): never {
  const n = problems.length;
  throw new InputError(
    `${file} has ${n} problem${n === 1 ? '' : 's'}; nothing was sent`,
    problems,
    hint === undefined ? undefined : { hint },
  );
}

/**
 * For headers that are no payout field: the --columns line that reads each as the top-level field
 * it is closest to (one not in the file), or the form of that line.
 */
async function mappingHint(unknown: string[], present: Set<string>): Promise<string | undefined> {
  if (unknown.length === 0) return undefined;
  const { closestHeader, columnsFlag } = await import('../tabular/column-match.js');
  const pairs: Array<[string, string]> = [];
  const used = new Set<string>();
  for (const field of PAYOUT_TOP_FIELDS.filter((f) => !present.has(f))) {
    const near = closestHeader(field, unknown, used);
    if (near !== undefined) {
      pairs.push([field, near]);
      used.add(near);
    }
  }
  return pairs.length > 0
    ? `if ${pairs.map(([f, h]) => `${JSON.stringify(h)} is ${f}`).join(' and ')}, add ${columnsFlag(pairs)}`
    : `a column named otherwise is read with ${columnsFlag([['FIELD.PATH', unknown[0]!]])}`;
}

async function readBytes(file: string, display: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read ${display}`, [
      { file: display, message: code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? 'error'})` },
    ]);
  }
}

function finish(
  kind: PayoutPlan['kind'],
  file: string,
  display: string,
  sha256: string,
  items: PayoutItem[],
  problems: InputProblem[],
  /** A workbook's problems re-addressed to cells (csv-reader.ts). */
  locate: (p: InputProblem) => InputProblem = (p) => p,
): PayoutPlan {
  const ids = new Map<string, number>();
  for (const item of items) {
    const id = item.request.request_id;
    if (typeof id !== 'string') continue;
    const first = ids.get(id);
    if (first !== undefined) {
      problems.push({
        file: display,
        line: item.line,
        field: 'request_id',
        message: `repeats the request_id of line ${first}: the gateway would treat both as one payout`,
      });
    } else ids.set(id, item.line);
  }
  // The rows as read, by meaning: the same payout twice in one file is refused, as in bulk files.
  const keyed = items.map((item) => {
    item.key = payoutKey(item.request);
    item.match = payoutMatch(item.request);
    const inputId = item.requestIdFrom === 'input' ? String(item.request.request_id) : undefined;
    return { key: item.key, line: item.line, ...(inputId === undefined ? {} : { inputId }) };
  });
  problems.push(...duplicatePayouts(keyed, display));
  if (problems.length > 0) fail(display, problems.map(locate));
  if (items.length === 0) fail(display, [{ file: display, message: 'holds no payouts' }]);
  const totals = new Map<string, bigint>();
  for (const item of items) addToTotals(totals, item.currency, item.minor);
  return { kind, file, displayFile: display, sha256, contentKey: payoutFileKey(keyed), items, totals };
}

export async function loadPayoutRequest(fileArg: string, cwd: string): Promise<PayoutPlan> {
  const file = resolve(cwd, fileArg);
  const bytes = await readBytes(file, fileArg);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    fail(fileArg, [{ file: fileArg, message: `is not valid JSON: ${(err as Error).message}` }]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    fail(fileArg, [
      {
        file: fileArg,
        message: 'must hold one payout request object',
        expected: 'a JSON object { … }; use --file CSV for many payouts',
      },
    ]);
  }
  const problems: InputProblem[] = [];
  const checked = checkPayout(parsed, problems, { file: fileArg });
  const items: PayoutItem[] = checked
    ? [{ ...checked, line: 1, requestIdFrom: checked.request.request_id ? 'input' : 'generated' }]
    : [];
  return finish('json', file, fileArg, sha256, items, problems);
}

/** Payout problems beyond this many stop the reading: the list is for a person to fix. */
const MAX_PROBLEMS = 1000;

export async function loadPayoutCsv(
  fileArg: string,
  cwd: string,
  given?: TableReadAs,
  sheet?: string,
  /** Where the bytes are read from when not `file` itself: a pipe's copy (tabular/pipe-input.ts). */
  readFrom?: string,
): Promise<PayoutPlan> {
  const file = resolve(cwd, fileArg);
  const path = readFrom ?? file;
  const { readCsv } = await import('../tabular/csv-reader.js');
  const { amountStyle, DEFAULT_READ_AS, matchingOf, settleMark } = await import('../tabular/read-as.js');
  const readAs = await settleMark(fileArg, path, given ?? DEFAULT_READ_AS, [
    'payment_amount',
    'source_amount',
  ]);
  const style = amountStyle(readAs);
  // A CSV file or an .xlsx workbook (csv-reader.ts tells them apart).
  const reader = readCsv({
    file: fileArg,
    path,
    encoding: readAs.encoding,
    decimalMark: style.mark,
    ...(sheet === undefined ? {} : { sheet }),
    ...(readAs.hidden === undefined ? {} : { hidden: readAs.hidden }),
    // "Payment Amount", "Currency" … and a title above the header, as for bulk files.
    matching: matchingOf(readAs, PAYOUT_TOP_FIELDS),
  });
  const header = await reader.header;
  const locate = (await reader.locate) ?? ((p: InputProblem) => p);
  const matched = new Set((header.matches ?? []).map((m) => m.header));
  const named = header.columns.map((c, i) => (matched.has(c) ? header.normalised[i]! : c));
  const map = mapColumns(named, PAYOUT_SPEC, fileArg, header.line);
  if (map.problems.length > 0) {
    const present = new Set(map.columns.flatMap((c) => (c === undefined ? [] : [String(c.segments[0])])));
    const unknown = named.filter((_, i) => map.columns[i] === undefined && named[i]!.trim() !== '');
    fail(fileArg, map.problems, await mappingHint(unknown, present));
  }
  const problems: InputProblem[] = [];
  const items: PayoutItem[] = [];
  const hidden: HiddenRows = { mode: readAs.hidden, rows: [] };
  for await (const row of reader.rows) {
    // A row a person does not see: listed, and checked and paid only with --include-hidden (without
    // a flag, run.ts refuses the file).
    if (row.hidden !== undefined) {
      hidden.rows.push({ line: row.line, ref: row.hidden });
      if (readAs.hidden !== 'include') continue;
    }
    if (row.problems?.length) {
      problems.push(...row.problems);
      continue;
    }
    const values = row.cells;
    const site = { file: fileArg, line: row.line };
    const raw = rowToObject(map, values);
    const bad = localeAmounts(raw, style, problems, site);
    const checked = bad ? undefined : checkPayout(raw, problems, site);
    if (checked) {
      items.push({
        ...checked,
        line: row.line,
        requestIdFrom: checked.request.request_id ? 'input' : 'generated',
      });
    }
    if (problems.length >= MAX_PROBLEMS) break;
  }
  const sha256 = problems.length >= MAX_PROBLEMS ? '' : await reader.sha256;
  const sheetRead = await reader.sheet;
  if (items.length === 0 && problems.length === 0 && hidden.rows.length > 0) {
    const { everyRowHidden } = await import('../tabular/hidden.js');
    throw everyRowHidden(fileArg, hidden.rows, readAs.hidden);
  }
  return {
    ...finish('csv', file, fileArg, sha256, items, problems, locate),
    readAs,
    ...(sheetRead === undefined ? {} : { sheet: sheetRead }),
    header: { line: header.line ?? 1, matches: header.matches ?? [] },
    ...(hidden.rows.length === 0 ? {} : { hidden }),
  };
}

/** A payout's top-level single-value fields: the columns a dashboard's names are matched to. */
export const PAYOUT_TOP_FIELDS = Object.entries(PAYOUT_SPEC.fields)
  .filter(([, f]) => f.type !== 'object' && f.type !== 'array')
  .map(([name]) => name);

/**
 * Amounts written in the file's style (`1.250,00` in a comma file) made canonical (`1250.00`)
 * before the request's schema sees them; true when one was refused (its problem pushed).
 */
function localeAmounts(
  raw: Record<string, unknown>,
  style: AmountStyle,
  problems: InputProblem[],
  site: { file: string; line: number },
): boolean {
  if (style.mark === '.' && !style.established) return false;
  let bad = false;
  for (const [field, curField] of [
    ['payment_amount', 'payment_currency'],
    ['source_amount', 'source_currency'],
  ] as const) {
    const text = raw[field];
    const info = typeof raw[curField] === 'string' ? currencyInfo(String(raw[curField]).trim()) : undefined;
    if (typeof text !== 'string' || text.trim() === '' || info === undefined) continue;
    const r = parseAmountText(text, info.code, info.minorDigits, style);
    if (r.ok) raw[field] = formatAmount(r.minor, info.code);
    else {
      bad = true;
      const message = r.hint === undefined ? r.message : `${r.message}; ${r.hint}`;
      problems.push({ ...site, field, message, expected: r.expected });
    }
  }
  return bad;
}

/** What the user is asked to confirm (and what --dry-run shows). */
export interface PayoutPlanSummary {
  plan: PayoutPlan;
  /** Payouts that will be sent now. */
  toSend: number;
  /** Payouts a resumed run already settled (not sent again). */
  settled: number;
  /** The profile whose settings are used; '' for the in-process sandbox's demo credentials. */
  profile: string;
  /** False when every setting came from flags or the environment: no profile is named then. */
  profileUsed?: boolean;
  merchantId?: string;
  accountId?: string;
  baseUrl: string;
  /** What the payouts sent now total, per currency (a resume: those left, not the whole file). */
  totalsToSend?: Map<string, bigint>;
  /** The earlier run whose request_ids are reused, and for how many payouts. */
  reusedFrom?: { runId: string; createdAt: string; count: number };
  resume?: boolean;
  /** Payouts that keep the request_id another earlier run of this home gave the same content. */
  fromEarlierRuns?: number;
  /** Payouts under a new request_id that match an earlier payout (account, amount, currency, date). */
  possiblyDone?: Array<{ line: number; earlier: string[] }>;
  /** --new-request-ids, and how many of the payouts were made (or may have been) before. */
  newRequestIds?: { repeats: number };
  force?: boolean;
}
