// What binds a four-eyes plan to its file (issue 28, docs/approvals.md): `rowsDigest`, the SHA-256
// over the sorted list of each validated row's SHA-256 — bulk rows over the content key's own
// normalised fields (bulk/plan/content-key.ts keyFields), payouts over their meaning
// (payout/meaning.ts payoutMeaningText). Row order, column order, format and spelling of amounts
// do not count, as for the content key; unlike it (a sum of 64-bit FNV hashes, cheap to collide on
// purpose) no one can make another file with the same digest. Computed by `payops plan`, by a run
// given --plan and by `payops approve --file`: never on the path of a run without a plan.
import { createHash } from 'node:crypto';
import { keyFields } from '../bulk/plan/content-key.js';
import type { BulkRow } from '../bulk/types.js';
import { payoutMeaningText } from '../payout/meaning.js';

export const ROWS_DIGEST = /^[0-9a-f]{64}$/;

export class RowsDigest {
  private readonly rows: string[] = [];
  private readonly fields: string[] = ['', '', '', '', '', '', ''];

  /** One row's text, hashed: the list keeps 64 hex characters a row. */
  addText(text: string): void {
    this.rows.push(createHash('sha256').update(text).digest('hex'));
  }

  /** A bulk row: its key fields, NUL between each two (as content-key.ts writes the row's text). */
  addBulk(row: BulkRow): void {
    this.addText(keyFields(row, this.fields).join('\0'));
  }

  /** A payout: its meaning, and the request_id the file gives (another id is another payout). */
  addPayout(request: Record<string, unknown>, inputId: string | undefined): void {
    const meaning = payoutMeaningText(request);
    this.addText(inputId === undefined ? meaning : `${meaning}\0${inputId}`);
  }

  /** SHA-256 (hex) over the sorted row digests, one a line: a list, not a sum, so collision-resistant. */
  digest(): string {
    const hash = createHash('sha256');
    for (const row of [...this.rows].sort()) hash.update(`${row}\n`);
    return hash.digest('hex');
  }
}

/** The rows digest of rows as they come (pass 2's inputRows, a payout plan's items). */
export async function bulkRowsDigest(rows: AsyncIterable<BulkRow>): Promise<string> {
  const d = new RowsDigest();
  for await (const row of rows) d.addBulk(row);
  return d.digest();
}

export function payoutRowsDigest(
  items: Iterable<{ request: Record<string, unknown>; requestIdFrom: string }>,
): string {
  const d = new RowsDigest();
  for (const item of items) {
    d.addPayout(item.request, item.requestIdFrom === 'input' ? String(item.request.request_id) : undefined);
  }
  return d.digest();
}
