// The gateway check started while pass 1 reads (look-ahead.ts): the same answer as the check after
// pass 1, look-ups already made while the file is still being read, none after the first problem,
// and nothing to stand for the check once the row cache gave up its rows.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LookAhead } from '../../../src/bulk/check/look-ahead.js';
import { lookUpConcurrency, preflight } from '../../../src/bulk/check/preflight.js';
import { planBulk } from '../../../src/bulk/plan/plan.js';
import { RowCache } from '../../../src/bulk/plan/row-cache.js';
import { AuthError, InputError, TransportError } from '../../../src/errors.js';
import { createClient } from '../../../src/gateway/client.js';
import { createSigner } from '../../../src/gateway/signer.js';
import { createTransport } from '../../../src/gateway/transport.js';
import { DEFAULT_READ_AS } from '../../../src/tabular/read-as.js';
import { startHostileServer } from '../../helpers/hostile-server.js';
import { fakeGateway } from './fake-gateway.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payops-look-ahead-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEADER = 'transaction_id,order_no,currency,amount,refund_amount,refund_reason';
const id = (n: number) => `T${String(n).padStart(5, '0')}`;

/** A refund file of `rows` rows over `orders` orders (ids repeat past it); `bad` lines get a bad amount. */
async function refundFile(rows: number, orders: number, bad: number[] = []) {
  const lines: string[] = [HEADER];
  for (let i = 0; i < rows; i++) {
    const n = (i % orders) + 1;
    const line = i + 2;
    lines.push(`${id(n)},O${n},USD,10.00,${bad.includes(line) ? '1.0.0' : i < orders ? '1.00' : '2.00'},dup`);
  }
  const path = join(dir, 'refunds.csv');
  await writeFile(path, `${lines.join('\n')}\n`);
  return { path, label: 'refunds.csv', readAs: DEFAULT_READ_AS };
}

/** Some orders refunded already, as the rows ask (done) or not (another amount). */
function refundedAlready(gw: ReturnType<typeof fakeGateway>, ns: number[]) {
  for (const n of ns) {
    gw.refunds.push({
      transaction_id: id(n),
      order_no: `O${n}`,
      amount: '10.00',
      currency: 'USD',
      refund_amount: n % 2 === 0 ? '1.00' : '3.00',
      refund_reason: 'dup',
      refund_reference_id: `${id(n)}-01`,
      refund_date: '20261123101502',
    });
  }
}

/** Polls `check` every 10 ms until it holds; the 30 s deadline is only a safety net. */
async function until(check: () => boolean): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!check()) {
    if (performance.now() > deadline) throw new Error('not true within 30 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('look-ahead', () => {
  it('finds what the check after pass 1 finds, with look-ups made while the file was read', async () => {
    // 12,000 rows (several reads of the file) over 11,500 orders: ids repeat across the cut.
    const source = await refundFile(12_000, 11_500);
    const gw = fakeGateway(11_500);
    refundedAlready(gw, [2, 3, 99, 100, 101, 4_000, 11_499, 11_500]);

    const cache = new RowCache();
    const ahead = new LookAhead('refund', gw.client, cache, 4);
    let duringPass1 = 0;
    const plan = await planBulk('refund', source, {}, cache, ahead);
    duringPass1 = gw.calls.length;
    const early = await ahead.finish();
    const earlyCalls = gw.calls.map((c) => String(c.body.transaction_id));

    gw.calls.length = 0;
    const after = await preflight('refund', gw.client, cache, 4);
    const afterCalls = gw.calls.map((c) => String(c.body.transaction_id));

    expect(plan.rows).toBe(12_000);
    expect(early).toBeDefined();
    expect(duringPass1).toBeGreaterThan(0);
    expect(earlyCalls).toEqual(afterCalls);
    expect(early!.done).toEqual(after.done);
    expect(early!.before).toEqual(after.before);
    expect(early!.done.map((d) => d.line)).toEqual([3, 101, 4_001, 11_501]);
  });

  it('makes no look-up past the first row with a problem', async () => {
    // Line 20,001 is bad: the rows before it may have been looked up, none after it.
    const source = await refundFile(30_000, 30_000, [20_001, 25_000]);
    const gw = fakeGateway(30_000);
    const cache = new RowCache();
    const ahead = new LookAhead('refund', gw.client, cache, 4);
    await expect(planBulk('refund', source, {}, cache, ahead)).rejects.toBeInstanceOf(InputError);
    expect(await ahead.finish()).toBeUndefined();
    await new Promise((r) => setTimeout(r, 50));
    const asked = gw.calls.flatMap((c) => String(c.body.transaction_id).split(','));
    expect(gw.calls.length).toBeGreaterThan(0);
    expect(asked.every((t) => Number(t.slice(1)) < 20_000)).toBe(true);
  });

  it('makes no look-up past --max-orders: a file over it is refused', async () => {
    const source = await refundFile(20_000, 20_000);
    const gw = fakeGateway(20_000);
    const cache = new RowCache();
    const ahead = new LookAhead('refund', gw.client, cache, 4, { maxRows: 3_000 });
    await expect(planBulk('refund', source, { maxOrders: 3_000 }, cache, ahead)).rejects.toBeInstanceOf(
      InputError,
    );
    expect(await ahead.finish()).toBeUndefined();
    await new Promise((r) => setTimeout(r, 50));
    const asked = gw.calls.flatMap((c) => String(c.body.transaction_id).split(','));
    // Rows are cut into look-ups of 100 ids: the one that goes past the limit is not sent.
    expect(asked.every((t) => Number(t.slice(1)) <= 3_000)).toBe(true);
  });

  it('stands for nothing when the row cache gave up keeping rows', async () => {
    const source = await refundFile(3_000, 3_000);
    const gw = fakeGateway(3_000);
    const cache = new RowCache(20_000); // some 300 rows' worth: dropped early in pass 1
    const ahead = new LookAhead('refund', gw.client, cache, 4);
    await planBulk('refund', source, {}, cache, ahead);
    expect(cache.complete).toBe(false);
    expect(await ahead.finish()).toBeUndefined();
  });

  it('stopped, it makes no more tries of a look-up that was waiting to try again', async () => {
    // 5,000 rows: enough batches that look-ups start before pass 1 ends (the pool reads ahead).
    const source = await refundFile(5_000, 5_000);
    const gw = fakeGateway(5_000);
    // Every look-up fails for a passing reason: persist pauses (250 ms, then longer) and tries again.
    let tries = 0;
    const unreachable = {
      ...gw.client,
      send: async () => {
        tries++;
        throw new TransportError('connection refused');
      },
    } as typeof gw.client;
    const cache = new RowCache();
    const ahead = new LookAhead('refund', unreachable, cache, 4);
    await planBulk('refund', source, {}, cache, ahead);
    // Once a look-up has been tried (not after a guessed 50 ms); the deadline is a safety net.
    await until(() => tries > 0);
    ahead.stop();
    const atStop = tries;
    // Nothing to observe for "no more tries": wait past the 250 ms pause (a timer set before this
    // one, so it fires first however late a loaded machine runs timers).
    await new Promise((r) => setTimeout(r, 700));
    expect(tries).toBe(atStop);
    expect(await ahead.finish()).toBeUndefined();
  });

  it('throws what the check throws when the gateway cannot be asked', async () => {
    const source = await refundFile(300, 300);
    const gw = fakeGateway(300);
    const refused = {
      ...gw.client,
      send: async () => {
        throw new AuthError('E1001:invalid signature');
      },
    } as typeof gw.client;
    const cache = new RowCache();
    const ahead = new LookAhead('refund', refused, cache, 4);
    await planBulk('refund', source, {}, cache, ahead);
    await expect(ahead.finish()).rejects.toBeInstanceOf(AuthError);
  });

  it('stopped, a look-up in flight ends at once: nothing keeps the process waiting for its answer', async () => {
    // A gateway that never answers, and a --timeout of a minute: before the stop, look-ups wait.
    const server = await startHostileServer(() => {});
    const transport = await createTransport({ timeoutMs: 60_000 });
    const client = createClient({
      transport,
      signer: createSigner('sandbox-sign-key'),
      baseUrl: server.url,
      merchantId: '800001',
      accountId: '800001001',
    });
    // Sixteen look-ups in flight share the one stop signal: node must not warn of a leak.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const source = await refundFile(5_000, 5_000);
      const cache = new RowCache();
      const ahead = new LookAhead('refund', client, cache, 4);
      await planBulk('refund', source, {}, cache, ahead);
      // Every look-up the pool lets fly has reached the server (it never answers, so no more
      // follow): counted there, not guessed from 300 ms.
      await until(() => server.requests.length >= lookUpConcurrency(4));
      const asked = server.requests.length;
      expect(asked).toBe(lookUpConcurrency(4));
      // The run will not start new (refused, say): the look-ahead is stopped with look-ups in flight.
      ahead.stop();
      expect(await ahead.finish()).toBeUndefined();
      // The pool closes once no request is in flight; it waited for each unanswered one before.
      const started = performance.now();
      await client.close();
      expect(performance.now() - started).toBeLessThan(20_000);
      // A request begun after the stop would arrive within ms over loopback: none may.
      await new Promise((r) => setTimeout(r, 300));
      expect(server.requests.length).toBe(asked);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await server.close();
    }
  }, 90_000);
});
