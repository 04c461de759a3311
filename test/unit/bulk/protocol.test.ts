// The per-chunk protocol on its own, one chunk at a time, against the in-memory fake gateway and a
// real journal: what each kind of answer becomes, what is journaled, and what is never sent twice.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wireElement } from '../../../src/bulk/engine/chunk.js';
import {
  CHUNK_REFUSALS,
  ChunkProtocol,
  type ProtocolOptions,
  type StopReason,
} from '../../../src/bulk/engine/protocol.js';
import {
  type BulkRecord,
  type BulkRecordWritten,
  parseBulkRecord,
} from '../../../src/bulk/engine/records.js';
import { type ChunkState, chunkAction, foldRecords, sendsOf } from '../../../src/bulk/engine/run-state.js';
import type { BulkRow, Chunk } from '../../../src/bulk/types.js';
import { createClient, type GatewayClient } from '../../../src/gateway/client.js';
import { createSigner } from '../../../src/gateway/signer.js';
import { createTransport } from '../../../src/gateway/transport.js';
import { wrapClient } from '../../../src/gateway/wrap-client.js';
import { createRun, openRun, readRun } from '../../../src/lifecycle/journal.js';
import { type Fault, fakeGateway } from './fake-gateway.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'payops-protocol-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function chunk(n: number, index = 0): Chunk<BulkRow> {
  return {
    index,
    rows: Array.from({ length: n }, (_, i) => ({
      line: i + 2,
      transaction_id: `T${String(i + 1).padStart(5, '0')}`,
      order_no: `O${i + 1}`,
      currency: 'USD',
      amountMinor: 1000n,
      refundMinor: 1000n,
      refund_reason: 'damaged',
    })),
  };
}

async function setUp(fault: Fault, orders = 10, policy: { settleMs?: number; maxAttempts?: number } = {}) {
  const gw = fakeGateway(orders);
  gw.faults = (i) => (i === 0 ? fault : 'ok');
  const journal = await createRun<BulkRecordWritten>(root, { op: 'refund' });
  const stops: StopReason[] = [];
  const protocol = new ChunkProtocol({
    op: 'refund',
    client: gw.client,
    journal,
    onStop: (reason) => stops.push(reason),
    settleMs: policy.settleMs ?? 0,
    maxAttempts: policy.maxAttempts ?? 3,
    refusalDelayMs: () => 1,
  });
  return { gw, journal, protocol, stops };
}

/** Prepare and send one chunk; the journal's records after it, as a resumed run reads them. */
async function sendOne(s: Awaited<ReturnType<typeof setUp>>, c: Chunk<BulkRow>) {
  const prepared = await s.protocol.prepareMany([{ chunk: c, rows: c.rows }]);
  let released = 0;
  const outcomes = await s.protocol.send(c, undefined, prepared.get(c.index)!, {
    release: () => released++,
    reacquire: async () => () => released++,
  });
  await s.journal.close();
  const { records } = await readRun(root, s.journal.runId, parseBulkRecord);
  return { outcomes, records, released };
}

/** A protocol for `client` over a new journal, with `options` over the defaults. */
async function protocolFor(client: GatewayClient, options: Partial<ProtocolOptions>) {
  const journal = await createRun<BulkRecordWritten>(root, { op: 'refund' });
  const protocol = new ChunkProtocol({
    op: 'refund',
    client,
    journal,
    onStop: () => {},
    settleMs: 0,
    maxAttempts: 3,
    ...options,
  });
  return { journal, protocol };
}

/** Prepares and sends one chunk, its slot always free: the rows' outcomes. */
async function prepareAndSend(protocol: ChunkProtocol, c: Chunk<BulkRow>) {
  const prepared = (await protocol.prepareMany([{ chunk: c, rows: c.rows }])).get(c.index)!;
  return protocol.send(c, undefined, prepared, { release: () => {}, reacquire: async () => () => {} });
}

describe('ChunkProtocol', () => {
  it('a chunk whose request cannot be built sends nothing and leaves its rows not_sent, with the intent closed', async () => {
    // Rows are read when the request is built, after the intent is on disk (engine.ts writes
    // intents ahead): a failure there must end the chunk as never sent, not as a lost answer.
    const s = await setUp('ok');
    const c = chunk(3);
    const prepared = (await s.protocol.prepareMany([{ chunk: c }])).get(c.index)!;
    const broken = {
      ...prepared,
      rows: () => {
        throw new Error('row 3 could not be read');
      },
    };
    const outcomes = await s.protocol.send(c, undefined, broken, {
      release: () => {},
      reacquire: async () => () => {},
    });
    await s.journal.close();
    expect(s.gw.calls).toHaveLength(0);
    expect(outcomes.map((o) => o.outcome)).toEqual(['not_sent', 'not_sent', 'not_sent']);
    const { records } = await readRun(root, s.journal.runId, parseBulkRecord);
    expect(records.map((r) => r.type)).toEqual(['intent', 'not_sent']);
    // A resumed run sends them, without asking the gateway first: no request ever left.
    expect(chunkAction(foldRecords(records).chunks.get(0))).toBe('send');
  });

  it('an answered chunk: one request, every row succeeded, intent then outcome in the journal', async () => {
    const s = await setUp('ok');
    const { outcomes, records, released } = await sendOne(s, chunk(10));
    expect(s.gw.ledger).toHaveLength(10);
    expect(outcomes.map((o) => o.outcome)).toEqual(Array(10).fill('succeeded'));
    expect(records.map((r) => r.type)).toEqual(['intent', 'outcome']);
    expect(s.protocol.requests).toBe(1);
    expect(released).toBeGreaterThan(0);
    expect(foldRecords(records).chunks.get(0)?.open).toBe(false);
  });

  it('a lost answer after the gateway committed: reconciled, never sent again', async () => {
    const s = await setUp('lost_after_commit');
    const { outcomes, records } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(s.gw.calls.map((c) => c.op)).toEqual(['refund', 'refundSearch']);
    expect(s.gw.ledger).toHaveLength(10);
    expect(records.map((r) => r.type)).toEqual(['intent', 'unknown', 'reconciled']);
  });

  it('a lost answer before the gateway committed: proven not applied, sent again by itself, refunded once', async () => {
    const s = await setUp('lost_before_commit');
    const { outcomes, records } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    // Settle time 0: the first search is already conclusive.
    expect(s.gw.calls.map((c) => c.op)).toEqual(['refund', 'refundSearch', 'refund']);
    expect(s.gw.ledger).toHaveLength(10);
    expect(records.map((r) => r.type)).toEqual(['intent', 'unknown', 'reconciled', 'intent', 'outcome']);
    // The resent intent is the second request for each row: a resumed run counts it.
    const state = foldRecords(records).chunks.get(0)!;
    expect(sendsOf(state, 2)).toBe(2);
  });

  it('not found before the settle time: asks again once it has passed, freeing the slot meanwhile', async () => {
    const s = await setUp('lost_before_commit', 10, { settleMs: 300 });
    const started = performance.now();
    const { outcomes, released } = await sendOne(s, chunk(10));
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(s.gw.calls.map((c) => c.op)).toEqual(['refund', 'refundSearch', 'refundSearch', 'refund']);
    expect(s.gw.ledger).toHaveLength(10);
    // Freed for the wait, taken again to send: two slots used and both given back.
    expect(released).toBe(2);
  });

  it('a late commit inside the settle time is found, not sent again: refunded once', async () => {
    const s = await setUp('commit_late', 10, { settleMs: 400 });
    s.gw.lateMs = 150;
    const { outcomes } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(s.gw.calls.filter((c) => c.op === 'refund')).toHaveLength(1);
    expect(s.gw.ledger).toHaveLength(10);
  });

  it('a late commit after the settle time: sent again, and the double is reported duplicated once seen', async () => {
    const s = await setUp('commit_late', 1, { settleMs: 50, maxAttempts: 2 });
    s.gw.faults = () => 'commit_late';
    s.gw.lateMs = 400;
    // Half of the order, so that the gateway can apply it twice.
    const half = { index: 0, rows: chunk(1).rows.map((r) => ({ ...r, refundMinor: 500n })) };
    const { outcomes, records } = await sendOne(s, half);
    // Two requests, neither found in time: left for a resumed run, which checks before sending.
    expect(s.gw.calls.filter((c) => c.op === 'refund')).toHaveLength(2);
    expect(outcomes[0]!.outcome).toBe('not_sent');
    expect(outcomes[0]!.detail).toMatch(/not applied after 2 requests/);
    await new Promise((r) => setTimeout(r, 600));
    expect(s.gw.ledger).toHaveLength(2);
    const state = foldRecords(records).chunks.get(0)!;
    expect(chunkAction(state)).toBe('reconcile');
    const { journal } = await openRun<BulkRecord, BulkRecordWritten>(root, s.journal.runId, parseBulkRecord);
    const resumed = new ChunkProtocol({
      op: 'refund',
      client: s.gw.client,
      journal,
      onStop: () => {},
      settleMs: 0,
      maxAttempts: 3,
      before: {},
    });
    const after = await resumed.settleEarlier(half, state, {
      release: () => {},
      reacquire: async () => () => {},
    });
    await journal.close();
    expect(after[0]!.outcome).toBe('duplicated');
    expect(after[0]!.detail).toMatch(/refunded 2 times .*T00001-01, T00001-02/);
    expect(s.gw.ledger).toHaveLength(2);
  });

  it('a resumed chunk with a row to settle and rows never sent: settles the one, then sends them all once', async () => {
    const s = await setUp('ok', 4);
    const c = chunk(4);
    const state: ChunkState = {
      intent: { type: 'intent', chunk: 0, lines: [2], sentAt: new Date().toISOString() },
      rows: [
        { line: 2, outcome: 'unknown', detail: 'sent, no answer', fields: {} },
        ...[3, 4, 5].map((line) => ({
          line,
          outcome: 'not_sent' as const,
          detail: 'not sent yet',
          fields: {},
        })),
      ],
      open: false,
      notSent: false,
    };
    const outcomes = await s.protocol.settleEarlier(c, state, {
      release: () => {},
      reacquire: async () => () => {},
    });
    expect(s.gw.calls.map((call) => call.op)).toEqual(['refundSearch', 'refund']);
    expect((s.gw.calls[1]!.body.refund_orders as unknown[]).length).toBe(4);
    expect(outcomes.map((o) => o.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(s.gw.ledger).toHaveLength(4);
  });

  it('after a crash, waits the settle time from the resume, not from the intent (written ahead of its send)', async () => {
    const s = await setUp('ok', 4, { settleMs: 400 });
    const c = chunk(4);
    // The crashed process wrote the intent long ago, sent it just before dying, and the gateway
    // commits it 150 ms later.
    s.gw.faults = () => 'commit_late';
    s.gw.lateMs = 150;
    await s.gw.client
      .send('refund', { refund_orders: c.rows.map((r) => wireElement('refund', r)) as never })
      .catch(() => undefined);
    s.gw.faults = () => 'ok';
    s.gw.calls.length = 0;
    const state: ChunkState = {
      intent: {
        type: 'intent',
        chunk: 0,
        lines: [2, 3, 4, 5],
        sentAt: new Date(Date.now() - 3_600_000).toISOString(),
      },
      open: true,
      notSent: false,
    };
    const outcomes = await s.protocol.settleEarlier(c, state, {
      release: () => {},
      reacquire: async () => () => {},
    });
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(s.gw.calls.filter((call) => call.op === 'refund')).toHaveLength(0);
    expect(s.gw.ledger).toHaveLength(4);
  });

  it('the journal bounds when a request left: its lost answer, else the end of its process, never the intent', () => {
    const intent = { type: 'intent' as const, chunk: 0, lines: [2], sentAt: '2026-11-23T10:00:00.000Z' };
    const lost = foldRecords([
      intent,
      { type: 'unknown', chunk: 0, reason: 'http_500', message: '500', at: '2026-11-23T10:00:12.000Z' },
    ]).chunks.get(0)!;
    expect(lost.sentBy).toBe('2026-11-23T10:00:12.000Z');
    const ended = foldRecords([
      intent,
      { type: 'interrupted', reason: 'interrupted', at: '2026-11-23T10:00:20.000Z' } as never,
    ]).chunks.get(0)!;
    expect(ended.sentBy).toBe('2026-11-23T10:00:20.000Z');
    expect(foldRecords([intent]).chunks.get(0)!.sentBy).toBeUndefined();
  });

  it('counts the settle time from when the answer was lost, not from when the attempt began (a request can leave late)', async () => {
    const gw = fakeGateway(1);
    gw.faults = (i) => (i === 0 ? 'commit_late' : 'ok');
    gw.lateMs = 100;
    // The request leaves 300 ms after the attempt begins (a connection retried by the transport).
    const client: GatewayClient = {
      ...gw.client,
      sendBatch: async (op, els, o) => {
        await new Promise((r) => setTimeout(r, 300));
        return gw.client.sendBatch(op, els, o);
      },
    };
    const { journal, protocol } = await protocolFor(client, { settleMs: 250, before: {} });
    const c = { index: 0, rows: chunk(1).rows.map((r) => ({ ...r, refundMinor: 500n })) };
    const out = await prepareAndSend(protocol, c);
    await new Promise((r) => setTimeout(r, 500));
    await journal.close();
    expect(out[0]!.outcome).toBe('succeeded');
    expect(gw.ledger).toHaveLength(1);
  });

  it('a row an earlier request may have reached is asked about on resume even when its latest request never left', () => {
    const records: BulkRecord[] = [
      { type: 'intent', chunk: 0, lines: [2], sentAt: '2026-01-01T00:00:00.000Z' },
      { type: 'unknown', chunk: 0, reason: 'http_5xx', message: '500', at: '2026-01-01T00:00:01.000Z' },
      {
        type: 'reconciled',
        chunk: 0,
        rows: [{ line: 2, outcome: 'not_sent', detail: 'sent again', fields: {} }],
      },
      { type: 'intent', chunk: 0, lines: [2], sentAt: '2026-01-01T00:00:31.000Z' },
      { type: 'not_sent', chunk: 0, message: 'HTTP 429' },
    ];
    const state = foldRecords(records).chunks.get(0)!;
    expect(sendsOf(state, 2)).toBe(1);
    expect(chunkAction(state)).toBe('reconcile');
  });

  it('gives up after --max-attempts requests per row: not_sent, for a resumed run', async () => {
    const s = await setUp('lost_before_commit', 10, { maxAttempts: 2 });
    s.gw.faults = () => 'lost_before_commit';
    const { outcomes } = await sendOne(s, chunk(10));
    expect(s.gw.calls.filter((c) => c.op === 'refund')).toHaveLength(2);
    expect(
      outcomes.every((o) => o.outcome === 'not_sent' && /not applied after 2 requests/.test(o.detail)),
    ).toBe(true);
    expect(s.gw.ledger).toHaveLength(0);
  });

  it('an unreachable gateway: rows not sent, the run is told to stop', async () => {
    const s = await setUp('unreachable');
    const { outcomes, records } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'not_sent')).toBe(true);
    expect(s.stops).toEqual(['unreachable']);
    expect(records.map((r) => r.type)).toEqual(['intent', 'not_sent']);
  });

  it('a second Ctrl-C before the request left (still connecting): rows not sent, nothing to settle', async () => {
    // The real client and transport over a connection that never comes: undici writes a request only
    // after onConnect, so an abort before it proves nothing left (InterruptedError, not a lost answer).
    const dispatcher = {
      dispatch: () => true,
      close: async () => {},
    } as unknown as Dispatcher;
    const transport = await createTransport({ dispatcher, timeoutMs: 60_000 });
    const real = createClient({
      transport,
      signer: createSigner('k'.repeat(32)),
      baseUrl: 'https://gateway.test',
      merchantId: '800001',
      accountId: '800001001',
    });
    const now = new AbortController();
    const reads: string[] = [];
    const client = wrapClient(real, (call, opts) => {
      if (call.kind !== 'batch') reads.push(call.kind);
      return { ...opts, signal: now.signal };
    });
    const { journal, protocol } = await protocolFor(client, {
      settleMs: 60_000,
      signal: now.signal,
      stopping: () => now.signal.aborted,
    });
    setTimeout(() => now.abort(), 20);
    const outcomes = await prepareAndSend(protocol, chunk(10));
    await journal.close();
    const { records } = await readRun(root, journal.runId, parseBulkRecord);
    expect(outcomes.every((o) => o.outcome === 'not_sent' && /interrupted before/.test(o.detail))).toBe(true);
    expect(records.map((r) => r.type)).toEqual(['intent', 'not_sent']);
    // A resumed run sends the chunk at once: no question to the gateway, no settle time to wait.
    expect(reads).toEqual([]);
    expect(chunkAction(foldRecords(records).chunks.get(0))).toBe('send');
  });

  it('a chunk refused whole as temporarily unavailable (E9001) is sent again after a pause: refunded once (issue 16)', async () => {
    const s = await setUp('reject_whole');
    s.gw.faults = (i) => (i < 2 ? 'reject_whole' : 'ok');
    const { outcomes, records } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(s.gw.calls.filter((c) => c.op === 'refund')).toHaveLength(3);
    expect(s.gw.ledger).toHaveLength(10);
    expect(records.map((r) => r.type)).toEqual(['intent', 'outcome']);
    expect(s.stops).toEqual([]);
  });

  it('a chunk refused whole every time: not_sent after the refusal budget, for a resumed run (issue 16)', async () => {
    const s = await setUp('reject_whole');
    s.gw.faults = () => 'reject_whole';
    const { outcomes } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'not_sent' && /E9001/.test(o.detail))).toBe(true);
    expect(s.gw.calls.filter((c) => c.op === 'refund')).toHaveLength(CHUNK_REFUSALS);
    expect(s.gw.ledger).toHaveLength(0);
  });

  it('refused credentials: rows not processed, the run stops for auth', async () => {
    const s = await setUp('auth');
    const { outcomes } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'not_sent' && /credentials/.test(o.detail))).toBe(true);
    expect(s.stops).toEqual(['auth']);
  });

  it('a malformed request refused whole: every row failed with the gateway message', async () => {
    const s = await setUp('reject_malformed');
    const { outcomes } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'failed' && /E1005/.test(o.detail))).toBe(true);
    expect(s.stops).toEqual([]);
  });

  it('HTTP 409 after the batch was applied: a lost answer, settled at the gateway: refunded once, succeeded (issue 23)', async () => {
    const s = await setUp('http409_after_commit');
    const { outcomes, records } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(s.gw.ledger).toHaveLength(10);
    expect(s.gw.calls.filter((c) => c.op === 'refund')).toHaveLength(1);
    expect(records.find((r) => r.type === 'unknown')).toMatchObject({ reason: 'http_409' });
    expect(s.stops).toEqual([]);
  });

  it('HTTP 409 with E9001 after the batch was applied: not taken for a refusal, never sent again blindly (issue 23)', async () => {
    const s = await setUp('http409_e9001_after_commit');
    const { outcomes } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(s.gw.ledger).toHaveLength(10);
    expect(s.gw.calls.filter((c) => c.op === 'refund')).toHaveLength(1);
  });

  it('HTTP 400 with nothing applied: proven not applied at the gateway, sent again, refunded once (issue 23)', async () => {
    const s = await setUp('http400_before_commit');
    const { outcomes } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(s.gw.ledger).toHaveLength(10);
    expect(s.gw.calls.filter((c) => c.op === 'refund')).toHaveLength(2);
  });

  it('HTTP 400 every time: never failed, not_sent after --max-attempts, nothing moved (issue 23)', async () => {
    const s = await setUp('http400_before_commit');
    s.gw.faults = () => 'http400_before_commit';
    const { outcomes } = await sendOne(s, chunk(10));
    expect(outcomes.every((o) => o.outcome === 'not_sent' && /HTTP 400/.test(o.detail))).toBe(true);
    expect(s.gw.calls.filter((c) => c.op === 'refund')).toHaveLength(3);
    expect(s.gw.ledger).toHaveLength(0);
  });

  it('return_status 0 with per-order results: each row takes its own status (the spec: they are independent)', async () => {
    const s = await setUp('status_zero', 5);
    // Rows 6..10 name orders the gateway does not have: refused per order, the first five refunded.
    const { outcomes, records } = await sendOne(s, chunk(10));
    expect(s.gw.ledger).toHaveLength(5);
    expect(outcomes.slice(0, 5).every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(outcomes.slice(5).every((o) => o.outcome === 'failed' && /E2001/.test(o.detail))).toBe(true);
    expect(records.map((r) => r.type)).toEqual(['intent', 'outcome']);
    expect(s.gw.calls.map((c) => c.op)).toEqual(['refund']);
  });

  it('settles a chunk a crashed process left open: sends only the rows the gateway never saw', async () => {
    const s = await setUp('ok');
    const c = chunk(10);
    await s.protocol.prepareMany([{ chunk: c, rows: c.rows }]);
    // The crashed process got its first 4 rows to the gateway.
    await s.gw.client.send('refund', {
      refund_orders: c.rows.slice(0, 4).map((r) => ({
        transaction_id: r.transaction_id,
        order_no: r.order_no,
        currency: 'USD',
        amount: '10.00',
        refund_amount: '10.00',
        refund_reason: 'damaged',
      })),
    } as never);
    await s.journal.close();
    s.gw.calls.length = 0;

    const { records } = await readRun(root, s.journal.runId, parseBulkRecord);
    const state = foldRecords(records).chunks.get(0)!;
    const { journal: resumedJournal } = await openRun<BulkRecord, BulkRecordWritten>(
      root,
      s.journal.runId,
      parseBulkRecord,
    );
    const protocol = new ChunkProtocol({
      op: 'refund',
      client: s.gw.client,
      journal: resumedJournal,
      onStop: () => {},
      settleMs: 0,
      maxAttempts: 3,
    });
    const outcomes = await protocol.settleEarlier(c, state, {
      release: () => {},
      reacquire: async () => () => {},
    });
    await resumedJournal.close();
    expect(s.gw.calls.map((call) => call.op)).toEqual(['refundSearch', 'refund']);
    expect((s.gw.calls[1]!.body.refund_orders as unknown[]).length).toBe(6);
    expect(outcomes.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(s.gw.ledger).toHaveLength(10);
  });

  it('a stopped run marks a prepared chunk not sent, and sends nothing', async () => {
    const s = await setUp('ok');
    const c = chunk(10);
    await s.protocol.prepareMany([{ chunk: c, rows: c.rows }]);
    const outcomes = s.protocol.unsend(c, undefined);
    await s.journal.close();
    expect(outcomes.every((o) => o.outcome === 'not_sent')).toBe(true);
    expect(s.gw.calls).toEqual([]);
    const { records } = await readRun(root, s.journal.runId, parseBulkRecord);
    expect(records.map((r) => r.type)).toEqual(['intent', 'not_sent']);
    expect(foldRecords(records).chunks.get(0)?.notSent).toBe(true);
  });
});
