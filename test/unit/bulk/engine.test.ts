import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chunkRows } from '../../../src/bulk/engine/chunk.js';
import { runEngine } from '../../../src/bulk/engine/engine.js';
import { CHUNK_REFUSALS } from '../../../src/bulk/engine/protocol.js';
import { type BulkRecordWritten, parseBulkRecord } from '../../../src/bulk/engine/records.js';
import { foldRecords } from '../../../src/bulk/engine/run-state.js';
import type { BulkRow, RowOutcome } from '../../../src/bulk/types.js';
import { createRun, openRun, readRun } from '../../../src/lifecycle/journal.js';
import { type Fault, fakeGateway } from './fake-gateway.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'payops-engine-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function refundRows(n: number, from = 1): BulkRow[] {
  return Array.from({ length: n }, (_, i) => ({
    line: i + 2,
    transaction_id: `T${String(i + from).padStart(5, '0')}`,
    order_no: `O${i + from}`,
    currency: 'USD',
    amountMinor: 1000n,
    refundMinor: 1000n,
    refund_reason: 'damaged',
  }));
}

/** The wire element payops sends for a row of refundRows, written out by hand. */
function wire(r: BulkRow) {
  return {
    transaction_id: r.transaction_id,
    order_no: r.order_no,
    currency: 'USD',
    amount: '10.00',
    refund_amount: '10.00',
    refund_reason: 'damaged',
  };
}

function pollingSignal(shouldStop: () => boolean): AbortSignal {
  return {
    get aborted() {
      return shouldStop();
    },
  } as AbortSignal;
}

async function run(
  gw: ReturnType<typeof fakeGateway>,
  rows: BulkRow[],
  opts: { runId?: string; concurrency?: number; shouldStop?: () => boolean; op?: 'refund' | 'capture' } = {},
) {
  const op = opts.op ?? 'refund';
  let journal: Awaited<ReturnType<typeof createRun>>;
  let prior: ReturnType<typeof foldRecords> | undefined;
  if (opts.runId) {
    const opened = await openRun(root, opts.runId, parseBulkRecord);
    journal = opened.journal;
    prior = foldRecords(opened.records);
  } else {
    journal = await createRun(root, { op });
  }
  const emitted: RowOutcome[] = [];
  const result = await runEngine({
    op,
    chunks: chunkRows(rows, 50),
    client: gw.client,
    journal,
    ...(prior ? { prior: prior.chunks } : {}),
    concurrency: opts.concurrency ?? 4,
    settleMs: 0,
    maxAttempts: 3,
    // The engine reads only `aborted`: here it is the test's predicate, polled as SIGINT's would be.
    ...(opts.shouldStop ? { signal: pollingSignal(opts.shouldStop) } : {}),
    emit: (_chunk, outcomes) => {
      emitted.push(...outcomes);
    },
  });
  await journal.close();
  return { result, emitted, runId: journal.runId };
}

function refundsPerOrder(gw: ReturnType<typeof fakeGateway>): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of gw.ledger) m.set(e.transaction_id, (m.get(e.transaction_id) ?? 0) + 1);
  return m;
}

describe('engine', () => {
  it('sends rows in chunks of the limit and emits one outcome per row in input order', async () => {
    const gw = fakeGateway(1000);
    const { emitted, result } = await run(gw, refundRows(1000));
    expect(gw.calls.filter((c) => c.op === 'refund')).toHaveLength(20);
    expect(result.requests).toBe(20);
    expect(emitted.map((o) => o.line)).toEqual(refundRows(1000).map((r) => r.line));
    expect(emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(emitted[0]!.fields.refund_reference_id).toBe('T00001-01');
    expect(gw.ledger).toHaveLength(1000);
  });

  it('never has more than `concurrency` requests in flight', async () => {
    const gw = fakeGateway(500);
    let inFlight = 0;
    let peak = 0;
    const inner = gw.client.send.bind(gw.client);
    gw.client.send = (async (op: never, body: never) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      try {
        return await inner(op, body);
      } finally {
        inFlight--;
      }
    }) as typeof gw.client.send;
    await run(gw, refundRows(500), { concurrency: 3 });
    expect(peak).toBe(3);
  });

  it('reports per-row failures with the gateway message', async () => {
    const gw = fakeGateway(10);
    gw.orders.get('T00003')!.status = '5000';
    const { emitted } = await run(gw, refundRows(10));
    const third = emitted.find((o) => o.line === 4)!;
    expect(third.outcome).toBe('failed');
    expect(third.detail).toMatch(/E2003/);
    expect(emitted.filter((o) => o.outcome === 'succeeded')).toHaveLength(9);
  });

  it('fails every row of a chunk the gateway refuses as malformed, and goes on', async () => {
    const gw = fakeGateway(100);
    gw.faults = (i) => (i === 0 ? 'reject_malformed' : 'ok');
    const { emitted } = await run(gw, refundRows(100), { concurrency: 1 });
    expect(emitted.slice(0, 50).every((o) => o.outcome === 'failed' && /E1005/.test(o.detail))).toBe(true);
    expect(emitted.slice(50).every((o) => o.outcome === 'succeeded')).toBe(true);
  });

  // Issue 16 changed this on purpose: a chunk refused as "temporarily unavailable" (E9001) was not
  // processed, so the run sends it again itself after a pause, instead of leaving it for a resume.
  it('sends a chunk refused as "temporarily unavailable" again within the run', async () => {
    const gw = fakeGateway(100);
    gw.faults = (i) => (i === 0 ? 'reject_whole' : 'ok');
    const first = await run(gw, refundRows(100), { concurrency: 1 });
    expect(first.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(gw.calls.filter((c) => c.op === 'refund')).toHaveLength(3);
    expect(gw.ledger).toHaveLength(100);
  });

  // A gateway refusing every chunk as too busy: each chunk would wait out its whole refusal budget
  // in turn (hours for a big file). The run stops at the first chunk that used it up.
  it('stops when a chunk is still refused after its refusal budget, leaving the rest for a resume', async () => {
    const gw = fakeGateway(500);
    gw.faults = () => 'reject_whole';
    const { emitted, result, runId } = await run(gw, refundRows(500), { concurrency: 1 });
    expect(result.stopped).toBe('busy');
    expect(gw.calls.filter((c) => c.op === 'refund')).toHaveLength(CHUNK_REFUSALS);
    expect(emitted.every((o) => o.outcome === 'not_sent')).toBe(true);
    expect(gw.ledger).toHaveLength(0);
    gw.faults = () => 'ok';
    const resumed = await run(gw, refundRows(500), { runId });
    expect(resumed.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(gw.ledger).toHaveLength(500);
  });

  it('stops at an authentication rejection, leaving every row unsent for a resume', async () => {
    const gw = fakeGateway(200);
    gw.faults = () => 'auth';
    const { emitted, result, runId } = await run(gw, refundRows(200), { concurrency: 1 });
    expect(result.stopped).toBe('auth');
    expect(gw.calls.filter((c) => c.op === 'refund')).toHaveLength(1);
    expect(emitted.every((o) => o.outcome === 'not_sent')).toBe(true);
    expect(emitted[0]!.detail).toMatch(/E1001.*fix the credentials/);
    gw.faults = () => 'ok';
    const resumed = await run(gw, refundRows(200), { runId });
    expect(resumed.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(gw.ledger).toHaveLength(200);
  });

  it('settles a chunk whose answer was lost by asking, and sends again only what was never applied', async () => {
    const gw = fakeGateway(150);
    const faults: Fault[] = ['lost_after_commit', 'lost_before_commit', 'ok'];
    gw.faults = (i) => faults[i] ?? 'ok';
    const { emitted, runId } = await run(gw, refundRows(150), { concurrency: 1 });
    // Chunk 0 found applied; chunk 1 proven not applied and sent again; chunk 2 answered.
    expect(gw.calls.filter((c) => c.op === 'refund')).toHaveLength(4);
    expect(gw.calls.filter((c) => c.op === 'refundSearch')).toHaveLength(2);
    // Committed then lost: found by the search.
    expect(emitted.slice(0, 50).every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(emitted[0]!.fields.refund_reference_id).toBe('T00001-01');
    // Never committed: sent again by payops itself, and refunded — no homework for the operator.
    expect(emitted.slice(50, 100).every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(emitted.slice(100).every((o) => o.outcome === 'succeeded')).toBe(true);
    expect([...refundsPerOrder(gw).values()].every((n) => n === 1)).toBe(true);
    expect(refundsPerOrder(gw).size).toBe(150);
    const { records } = await readRun(root, runId);
    expect(records.filter((r) => r.type === 'unknown')).toHaveLength(2);
    expect(records.filter((r) => r.type === 'reconciled')).toHaveLength(2);
  });

  it('reconciles rows missing from an answer', async () => {
    const gw = fakeGateway(50);
    gw.faults = () => 'drop_one_result';
    const { emitted } = await run(gw, refundRows(50));
    expect(emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(gw.calls.filter((c) => c.op === 'refundSearch')).toHaveLength(1);
  });

  it('stops dispatching when asked, and a resumed run sends only what was not sent', async () => {
    const gw = fakeGateway(500);
    let chunksSeen = 0;
    const first = await run(gw, refundRows(500), { concurrency: 2, shouldStop: () => ++chunksSeen > 3 });
    expect(first.result.stopped).toBe('interrupted');
    const sentFirst = gw.calls.filter((c) => c.op === 'refund').length;
    expect(sentFirst).toBeLessThan(10);
    expect(first.emitted.some((o) => o.outcome === 'not_sent')).toBe(true);
    expect(first.emitted).toHaveLength(500);

    const second = await run(gw, refundRows(500), { runId: first.runId });
    expect(second.result.stopped).toBeUndefined();
    expect(gw.calls.filter((c) => c.op === 'refund')).toHaveLength(10);
    expect(second.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(gw.ledger).toHaveLength(500);
  });

  it.each([
    ['as written now (rows named by line)', false],
    ['as older versions wrote it (with its wire elements)', true],
  ])(
    'after a crash, reconciles an intent without outcome and never re-sends it: intent %s',
    async (_, withElements) => {
      const gw = fakeGateway(100);
      const journal = await createRun(root, { op: 'refund' });
      // Simulate: intent of chunk 0 written, request committed at the gateway, process killed.
      const rows = refundRows(100);
      const elements = rows.slice(0, 50).map(wire);
      await journal.append({
        type: 'intent',
        chunk: 0,
        lines: rows.slice(0, 50).map((r) => r.line),
        ...(withElements ? { elements } : {}),
        sentAt: new Date().toISOString(),
      });
      await gw.client.send('refund', { refund_orders: elements } as never);
      await journal.close();
      gw.calls.length = 0;

      const resumed = await run(gw, rows, { runId: journal.runId });
      expect(gw.calls.filter((c) => c.op === 'refund')).toHaveLength(1);
      expect(gw.calls.filter((c) => c.op === 'refundSearch')).toHaveLength(1);
      expect(resumed.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
      expect([...refundsPerOrder(gw).values()].every((n) => n === 1)).toBe(true);
      expect(gw.ledger).toHaveLength(100);
    },
  );

  it('after a crash, sends the rows the gateway never processed, once, after checking', async () => {
    const gw = fakeGateway(100);
    const journal = await createRun(root, { op: 'refund' });
    const rows = refundRows(100);
    // Intent of chunk 0 written; only its first 10 rows reached the gateway before the crash.
    await journal.append({
      type: 'intent',
      chunk: 0,
      lines: rows.slice(0, 50).map((r) => r.line),
      sentAt: new Date().toISOString(),
    });
    await gw.client.send('refund', { refund_orders: rows.slice(0, 10).map(wire) } as never);
    await journal.close();
    gw.calls.length = 0;

    const resumed = await run(gw, rows, { runId: journal.runId });
    const refundCalls = gw.calls.filter((c) => c.op === 'refund');
    // The 40 unprocessed rows of chunk 0, then chunk 1.
    expect(refundCalls.map((c) => (c.body.refund_orders as unknown[]).length).sort()).toEqual([40, 50]);
    expect(resumed.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(resumed.emitted.map((o) => o.line)).toEqual(rows.map((r) => r.line));
    expect([...refundsPerOrder(gw).values()].every((n) => n === 1)).toBe(true);
    expect(gw.ledger).toHaveLength(100);
    // A second resume has nothing left to do.
    gw.calls.length = 0;
    const again = await run(gw, rows, { runId: journal.runId });
    expect(gw.calls).toEqual([]);
    expect(again.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
  });

  it('rows lost on every attempt are left not_sent; a resumed run checks them first, then sends them once', async () => {
    const gw = fakeGateway(50);
    gw.faults = (i) => (i < 3 ? 'lost_before_commit' : 'ok');
    const first = await run(gw, refundRows(50));
    expect(gw.calls.filter((c) => c.op === 'refund')).toHaveLength(3);
    // Sent again twice each, counted once each: what the summary reports.
    expect(first.result.resent).toBe(50);
    expect(
      first.emitted.every((o) => o.outcome === 'not_sent' && /not applied after 3 requests/.test(o.detail)),
    ).toBe(true);
    expect(gw.ledger).toHaveLength(0);
    gw.calls.length = 0;
    const again = await run(gw, refundRows(50), { runId: first.runId });
    expect(gw.calls.map((c) => c.op)).toEqual(['refundSearch', 'refund']);
    expect(gw.ledger).toHaveLength(50);
    expect(again.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
  });

  it('an intent written ahead but not sent when the run stops is sent on resume', async () => {
    const gw = fakeGateway(300);
    // All six chunks get their intents in one append (a batch is 16 chunks) before chunk 0 is
    // dispatched; the stop comes once chunk 0 is on its way, so 1 to 5 have intents but are never
    // sent.
    const first = await run(gw, refundRows(300), { concurrency: 2, shouldStop: () => gw.calls.length >= 1 });
    expect(first.result.stopped).toBe('interrupted');
    expect(gw.calls).toHaveLength(1);
    const { records } = await readRun(root, first.runId);
    expect(records.filter((r) => r.type === 'intent').map((r) => r.chunk)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(records.filter((r) => r.type === 'not_sent').map((r) => r.chunk)).toEqual([1, 2, 3, 4, 5]);
    expect(first.emitted.filter((o) => o.outcome === 'succeeded')).toHaveLength(50);
    expect(first.emitted.filter((o) => o.outcome === 'not_sent')).toHaveLength(250);
    const second = await run(gw, refundRows(300), { runId: first.runId });
    expect(second.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect([...refundsPerOrder(gw).values()].every((n) => n === 1)).toBe(true);
    expect(gw.ledger).toHaveLength(300);
    // Nothing was reconciled: the journal said exactly what was and was not sent.
    expect(gw.calls.filter((c) => c.op === 'refundSearch')).toHaveLength(0);
  });

  it('reads a chunk’s rows only when it is sent, and releases the chunk once its outcomes are emitted', async () => {
    // The intents are written up to 48 chunks ahead; rows built that early, or kept past their
    // outcomes, were promoted to V8's old generation (docs/performance.md).
    const gw = fakeGateway(2000);
    const events: string[] = [];
    const chunks = [];
    for await (const c of chunkRows(refundRows(2000), 50)) {
      let read = false;
      chunks.push({
        index: c.index,
        lines: c.rows.map((r) => r.line),
        get rows() {
          if (!read) events.push(`rows ${c.index}`);
          read = true;
          return c.rows;
        },
        release: () => {
          events.push(`release ${c.index}`);
          read = false;
        },
      });
    }
    const journal = await createRun<BulkRecordWritten>(root, { op: 'refund' });
    await runEngine({
      op: 'refund',
      chunks,
      client: gw.client,
      journal,
      concurrency: 4,
      settleMs: 0,
      maxAttempts: 3,
      emit: async (chunk) => {
        events.push(`emit ${chunk.index}`);
        await new Promise((resolve) => setImmediate(resolve));
      },
    });
    await journal.close();
    const at = (e: string) => events.indexOf(e);
    for (const c of chunks) {
      expect(at(`emit ${c.index}`) + 1).toBe(at(`release ${c.index}`));
      // Read when it is sent: by then the chunk `concurrency` places earlier was emitted.
      if (c.index >= 5) expect(at(`rows ${c.index}`)).toBeGreaterThan(at(`emit ${c.index - 5}`));
    }
    expect(gw.ledger).toHaveLength(2000);
  });

  it('writes the intents of 16 chunks with one append (one fsync), whatever the concurrency', async () => {
    // A run sends no faster than the chunks one fsync covers: on a disk whose fsync takes 10 ms,
    // batches of the concurrency's 4 held 100,000 refunds to 58 % of the ceiling.
    const gw = fakeGateway(2000);
    const appends: number[] = [];
    const journal = await createRun<BulkRecordWritten>(root, { op: 'refund' });
    const append = journal.append.bind(journal);
    journal.append = (records) => {
      const list = Array.isArray(records) ? records : [records];
      const intents = list.filter((r) => r.type === 'intent').length;
      if (intents > 0) appends.push(intents);
      return append(records);
    };
    await runEngine({
      op: 'refund',
      chunks: chunkRows(refundRows(2000), 50),
      client: gw.client,
      journal,
      concurrency: 4,
      settleMs: 0,
      maxAttempts: 3,
      emit: () => {},
    });
    await journal.close();
    expect(appends).toEqual([16, 16, 8]);
    expect(gw.ledger).toHaveLength(2000);
  });

  it('marks chunks that never reached the gateway as not sent and sends them on resume', async () => {
    const gw = fakeGateway(100);
    gw.faults = (i) => (i === 1 ? 'unreachable' : 'ok');
    const first = await run(gw, refundRows(100), { concurrency: 1 });
    expect(first.result.stopped).toBe('unreachable');
    expect(first.emitted.slice(50).every((o) => o.outcome === 'not_sent')).toBe(true);
    gw.faults = () => 'ok';
    const second = await run(gw, refundRows(100), { runId: first.runId });
    expect(second.emitted.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(gw.ledger).toHaveLength(100);
  });

  it('reconciles captures by the order state', async () => {
    const gw = fakeGateway(60, '2000');
    gw.orders.get('T00002')!.status = '5000';
    gw.faults = (i) => (i === 0 ? 'lost_after_commit' : 'ok');
    const rows = refundRows(60).map(({ refundMinor: _r, refund_reason: _s, ...r }) => r);
    const { emitted } = await run(gw, rows, { op: 'capture', concurrency: 1 });
    expect(emitted[0]!.outcome).toBe('succeeded');
    expect(emitted[0]!.detail).toMatch(/3000 captured/);
    expect(emitted[1]!.outcome).toBe('failed');
    expect(emitted[1]!.detail).toMatch(/5000 cancelled/);
    expect(gw.calls.filter((c) => c.op === 'query')).toHaveLength(1);
  });
});
