// Which header names the columns a command reads: a dashboard's "Transaction ID", "Order No." and
// "Refund Amount" are transaction_id, order_no and refund_amount. A header matches a column when
// their keys are equal (case, spaces, `_`, `-`, `.` left out; `#` read as "no"), or when it is one
// of the column's aliases, or when --columns (or the profile's columns.<command>) maps it. Never a
// guess: two headers that could be one column are refused, naming both. The columns a command
// reads are given by the caller as data (tabular imports no feature).

/** The key two names are compared by: `Order No.` and `order_no` are both `orderno`. */
export function columnKey(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/#/g, 'no')
    .replace(/[\s_\-.:]+/g, '');
}

/**
 * The other names a dashboard gives a column, by column. Small and never overlapping: a header
 * that two columns could claim is refused rather than guessed (ambiguity below).
 */
export const COLUMN_ALIASES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  transaction_id: ['txn id', 'txn', 'transaction', 'transaction no', 'transaction number'],
  order_no: ['order number', 'order', 'order id', 'order ref', 'order reference'],
  // Not "refunded amount": in a dashboard export that is money already refunded, and refunding it
  // again is the one mistake this table must never make.
  refund_amount: ['amount to refund', 'refund', 'refund value'],
  refund_reason: ['reason', 'reason for refund', 'refund note'],
  currency: ['currency code', 'ccy', 'cur'],
  amount: ['order amount', 'amount paid', 'payment amount'],
  review_flag: ['review', 'approve', 'decision'],
});

/** How a column was matched to its header, for the plan. */
export interface ColumnMatch {
  column: string;
  /** The header as written. */
  header: string;
  how: 'name' | 'alias' | 'mapped';
}

/** The result of matching: each header's column name (normalised), and what matched how. */
export interface Matched {
  /** Per header, the name its cells go by: the column it matched, else its own normalised name. */
  names: string[];
  /** Columns matched other than by their own name (aliases and --columns), in header order. */
  matches: ColumnMatch[];
  /** Columns a --columns mapping named whose header is not in the file. */
  unmappedGiven: Array<{ column: string; header: string }>;
  /** A column two headers could be: refused, naming both. */
  ambiguous: Array<{ column: string; headers: [string, string] }>;
}

/**
 * Match `headers` (as written) to `wanted` columns (required and optional, normalised snake_case).
 * `given` maps a column to a header as written (--columns / profile), compared by key.
 */
export function matchColumns(
  headers: readonly string[],
  wanted: readonly string[],
  given: Readonly<Record<string, string>> = {},
): Matched {
  const keys = headers.map(columnKey);
  const names = headers.map((h) => h.trim().toLowerCase());
  const matches: ColumnMatch[] = [];
  const unmappedGiven: Matched['unmappedGiven'] = [];
  const ambiguous: Matched['ambiguous'] = [];
  // Columns payops wrote into a fix file (`runs show --only failed --out fix.csv`: payops_outcome,
  // payops_reason) are the run's notes, never an input: no column, alias or --columns takes them.
  const taken = new Set<number>(headers.flatMap((h, i) => (isPayopsHeader(h) ? [i] : [])));
  // 1. --columns: the header given, by key.
  for (const [column, header] of Object.entries(given)) {
    const k = columnKey(header);
    const at = keys.findIndex((x, i) => x === k && !taken.has(i));
    if (at < 0) {
      unmappedGiven.push({ column, header });
      continue;
    }
    taken.add(at);
    names[at] = column;
    matches.push({ column, header: headers[at]!, how: 'mapped' });
  }
  const mapped = new Set(Object.keys(given));
  // 2. Each wanted column by its own name's key, then by its aliases' keys.
  for (const column of wanted) {
    if (mapped.has(column)) continue;
    const own = columnKey(column);
    const byName = keys.flatMap((k, i) => (k === own && !taken.has(i) ? [i] : []));
    const aliasKeys = new Set((COLUMN_ALIASES[column] ?? []).map(columnKey));
    const byAlias = keys.flatMap((k, i) => (aliasKeys.has(k) && !taken.has(i) ? [i] : []));
    const found = byName.length > 0 ? byName : byAlias;
    if (found.length === 0) continue;
    if (found.length > 1) {
      ambiguous.push({ column, headers: [headers[found[0]!]!, headers[found[1]!]!] });
      continue;
    }
    const at = found[0]!;
    taken.add(at);
    names[at] = column;
    // A header written as the column is (`order_no`, ` Order_No `) is not news for the plan.
    if (headers[at]!.trim().toLowerCase() !== column) {
      matches.push({ column, header: headers[at]!, how: byName.length > 0 ? 'name' : 'alias' });
    }
  }
  return { names, matches, unmappedGiven, ambiguous };
}

/** A column named `payops_*`: what payops wrote into a fix file, read by no command. */
export function isPayopsHeader(header: string): boolean {
  return /^payops_/i.test(header.trim());
}

/** The header most like `column` (by edit distance of keys), for "did you mean"; none when nothing is near. */
export function closestHeader(
  column: string,
  headers: readonly string[],
  exclude: ReadonlySet<string>,
): string | undefined {
  const want = columnKey(column);
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const h of headers) {
    if (exclude.has(h) || isPayopsHeader(h)) continue;
    const k = columnKey(h);
    if (k === '') continue;
    const aliasBest = Math.min(
      distance(want, k),
      ...(COLUMN_ALIASES[column] ?? []).map((a) => distance(columnKey(a), k)),
    );
    // Containment (`refundamt` in …) counts as close.
    const score = k.includes(want) || want.includes(k) ? Math.min(aliasBest, 1) : aliasBest;
    if (score < bestScore) {
      bestScore = score;
      best = h;
    }
  }
  if (best === undefined) return undefined;
  return bestScore <= Math.max(2, Math.floor(want.length / 2)) ? best : undefined;
}

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** A header name as it goes in a `--columns` argument. */
function mapArg(column: string, header: string): string {
  return `${column}=${header}`;
}

/** The `--columns '…'` that maps `pairs`, quoted for a shell. */
export function columnsFlag(pairs: ReadonlyArray<[column: string, header: string]>): string {
  const text = pairs.map(([c, h]) => mapArg(c, h)).join(',');
  return `--columns '${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `--columns 'transaction_id=Txn Ref,order_no=Invoice'` (or the profile's columns.<command>) →
 * column → header. Problems as text (the caller makes the usage error); `known`: the columns the
 * command reads.
 */
export function parseColumnsMap(
  text: string,
  /** The columns the command reads; undefined: any (a payout's field paths, checked when mapped). */
  known: readonly string[] | undefined,
): Record<string, string> | string {
  const out: Record<string, string> = {};
  const seenHeaders = new Map<string, string>();
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) return `${JSON.stringify(part.trim())} is not COLUMN=HEADER (e.g. transaction_id=Txn Ref)`;
    const column = part.slice(0, eq).trim().toLowerCase();
    const header = part.slice(eq + 1).trim();
    if (known === undefined ? !/^[a-z_][a-z0-9_.[\]]*$/.test(column) : !known.includes(column)) {
      return `${JSON.stringify(column)} is not a column this command reads${known === undefined ? '' : ` (it reads ${known.join(', ')})`}`;
    }
    if (header === '') return `${column}= names no header`;
    if (out[column] !== undefined) return `${column} is mapped twice`;
    const k = columnKey(header);
    const before = seenHeaders.get(k);
    if (before !== undefined)
      return `the header ${JSON.stringify(header)} is mapped to both ${before} and ${column}`;
    seenHeaders.set(k, column);
    out[column] = header;
  }
  return out;
}
