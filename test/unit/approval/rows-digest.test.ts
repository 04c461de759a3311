// rowsDigest (approval/rows-digest.ts): the same rows in another order and format give the same
// digest; one changed field changes it — over pass 1's own validated rows, as `payops plan` reads them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRowsDigest, RowsDigest } from '../../../src/approval/rows-digest.js';
import { inputRows } from '../../../src/bulk/input.js';
import { planBulk } from '../../../src/bulk/plan/plan.js';

const dir = mkdtempSync(join(tmpdir(), 'rows-digest-'));

async function digestOf(name: string, text: string): Promise<{ digest: string; content: string }> {
  const path = join(dir, name);
  writeFileSync(path, text);
  const plan = await planBulk('refund', { path, label: name }, { maxAmounts: [] }, undefined);
  return { digest: await bulkRowsDigest(inputRows('refund', plan.source)), content: plan.content };
}

const A =
  'transaction_id,order_no,currency,amount,refund_amount,refund_reason\r\n' +
  'T1,O1,USD,10.00,10.00,Goodwill\r\nT2,O2,EUR,5.50,2.00,late\r\nT3,O3,USD,7.00,7.00,damaged\r\n';
// The same rows: other order, columns reordered, LF, lower-case currency, amounts spelled otherwise, reason case.
const B =
  'order_no,transaction_id,amount,currency,refund_reason,refund_amount\n' +
  'O3,T3,7,usd,Damaged,7.0\nO1,T1,10,USD,goodwill,10\nO2,T2,5.5,EUR,Late,2\n';

describe('rowsDigest', () => {
  it('is the same for the same rows in another order and format', async () => {
    const a = await digestOf('a.csv', A);
    const b = await digestOf('b.csv', B);
    expect(a.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(b.digest).toBe(a.digest);
    expect(b.content).toBe(a.content);
  });

  it('changes with one changed field (an amount, a reason, an id)', async () => {
    const a = await digestOf('a.csv', A);
    for (const [name, text] of [
      ['amount.csv', A.replace('T2,O2,EUR,5.50,2.00', 'T2,O2,EUR,5.50,2.01')],
      ['reason.csv', A.replace('late', 'early')],
      ['id.csv', A.replace('T3,O3', 'T4,O3')],
    ] as const) {
      expect((await digestOf(name, text)).digest, name).not.toBe(a.digest);
    }
  });

  it('is a list, not a sum: rows that would cancel out in a sum still differ', () => {
    const one = new RowsDigest();
    one.addText('x');
    one.addText('x');
    const two = new RowsDigest();
    two.addText('x');
    expect(one.digest()).not.toBe(two.digest());
    const three = new RowsDigest();
    three.addText('y');
    three.addText('y');
    expect(three.digest()).not.toBe(one.digest());
  });
});
