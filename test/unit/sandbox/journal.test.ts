import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandboxContext } from '../../../src/sandbox/context.js';
import { loadCurrencyDigits } from '../../../src/sandbox/fields.js';
import { JOURNAL_FILE, Journal } from '../../../src/sandbox/journal.js';
import { createOrders, insertOrder } from '../../../src/sandbox/seed.js';
import { Store } from '../../../src/sandbox/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function snapshot(store: Store) {
  return {
    orders: store.orders.map((o) => ({ ...o })),
    refunds: [...store.refunds],
    ledger: [...store.ledger],
    payouts: [...store.payouts],
    seq: store.seq,
  };
}

describe('journal', () => {
  it('replays to the same store, one write per flush', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbj-'));
    dirs.push(dir);
    const currencies = await loadCurrencyDigits();
    const store = new Store();
    const { journal, replayed } = Journal.open(dir, store);
    expect(replayed).toBe(0);
    const ctx = createSandboxContext(store, currencies, []);
    const [a] = createOrders(ctx, { count: 2, state: '2000', currency: 'EUR' });
    insertOrder(ctx, { transaction_id: 'T1', order_no: 'O1', currency: 'JPY', amount: 1000n }, '4100');
    store.setStatus(a!, '3000');
    store.addLedger({
      kind: 'capture',
      transaction_id: a!.transaction_id,
      order_no: a!.order_no,
      currency: 'EUR',
      amount: '1.00',
      at: 'x',
      request_id: 'r',
    });
    store.addPayout('req', { content: 'c', response: { status: 'COMPLETED' } });
    journal.flush();
    const lines = readFileSync(join(dir, JOURNAL_FILE), 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8')).not.toMatch(/\d+n"/);
    journal.close();

    const again = new Store();
    const reopened = Journal.open(dir, again);
    expect(reopened.replayed).toBe(lines.length);
    expect(snapshot(again)).toEqual(snapshot(store));
    expect(again.byOrderNo.get('O1')!.refunded).toBe(500n);
    reopened.journal.close();
  });

  it('reset is journaled too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbj-'));
    dirs.push(dir);
    const store = new Store();
    const { journal } = Journal.open(dir, store);
    const ctx = createSandboxContext(store, await loadCurrencyDigits(), []);
    createOrders(ctx, { count: 3, state: '3000', currency: 'USD' });
    store.reset();
    createOrders(ctx, { count: 1, state: '3000', currency: 'USD' });
    journal.close();
    const again = new Store();
    Journal.open(dir, again).journal.close();
    expect(again.orders).toHaveLength(1);
    expect(again.orders[0]!.transaction_id).toBe(store.orders[0]!.transaction_id);
  });
});
