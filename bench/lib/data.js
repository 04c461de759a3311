// Input files for the bench, written to a temp dir: refund files built from a sandbox's order
// export, and synthetic files for --dry-run (no gateway needed to validate).

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export const REFUND_HEADER = 'transaction_id,order_no,currency,amount,refund_amount,refund_reason';

/**
 * Refund file from `GET /_sandbox/orders?format=csv` text: every order whose payment_status is in
 * `states` (default captured) refunded in full. Returns the number of rows written.
 */
export async function refundFileFromExport(exportCsv, path, { states = ['3000'], limit = Infinity } = {}) {
  const { parse } = await import('csv-parse/sync');
  const lines = parse(exportCsv, { bom: true, skip_empty_lines: true, relax_column_count: true });
  const header = lines[0].map((h) => h.trim().toLowerCase());
  const col = (name) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`order export has no ${name} column: ${header.join(',')}`);
    return i;
  };
  const [t, o, c, a] = ['transaction_id', 'order_no', 'currency', 'amount'].map(col);
  const s = header.indexOf('payment_status');
  const out = createWriteStream(path);
  out.write(`${REFUND_HEADER}\n`);
  let rows = 0;
  for (let i = 1; i < lines.length && rows < limit; i++) {
    const f = lines[i];
    if (s >= 0 && !states.includes(f[s])) continue;
    if (!out.write(`${f[t]},${f[o]},${f[c]},${f[a]},${f[a]},bench\n`)) await once(out, 'drain');
    rows++;
  }
  out.end();
  await once(out, 'finish');
  return rows;
}

/** Synthetic refund file of `rows` distinct orders (for --dry-run: validated, never sent). */
export async function syntheticRefundFile(path, rows) {
  const out = createWriteStream(path);
  out.write(`${REFUND_HEADER}\n`);
  const currencies = ['USD', 'EUR', 'GBP', 'JPY'];
  for (let i = 0; i < rows; i++) {
    const cur = currencies[i % 4];
    const amount =
      cur === 'JPY' ? String(1000 + (i % 9000)) : `${10 + (i % 990)}.${String(i % 100).padStart(2, '0')}`;
    const id = String(i).padStart(9, '0');
    if (!out.write(`T${id},ORD-${id},${cur},${amount},${amount},bench\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}
