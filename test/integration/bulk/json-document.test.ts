// `--output json` for cron (issue 27, item 5): stdout is ONE JSON document in every way a run can
// end — all succeeded (0), some failed (1), bad input with nothing sent (2), interrupted (130), the
// gateway failing (3) — with its run id, counts as numbers and amounts as decimal strings. The
// real binary against the sandbox; money judged by its ledger.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_DOCUMENT_KEYS } from '../../../src/output/run-document.js';
import {
  MID_RUN_LATENCY_MS,
  payops,
  REFUND_HEADER,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from './support.js';

const suite = useBulkSuite();

interface Doc {
  run_id: string | null;
  operation: string;
  gateway: { base_url: string; sandbox: boolean; profile: string } | null;
  rows: Array<Record<string, string>>;
  state: string;
  counts: Record<string, number>;
  totals: Record<string, Record<string, string>>;
  exit_code: number;
  error: { code: string; message: string } | null;
}

/** stdout as the one document it must be: parseable, every key, the exit code the process had. */
function documentOf(r: { code: number | null; stdout: string; stderr: string }): Doc {
  let doc: Doc;
  try {
    doc = JSON.parse(r.stdout) as Doc;
  } catch (err) {
    throw new Error(`stdout is not one JSON document (${err}):\n${r.stdout}\n--- stderr\n${r.stderr}`);
  }
  expect(Object.keys(doc).sort()).toEqual([...RUN_DOCUMENT_KEYS].sort());
  expect(doc.exit_code).toBe(r.code);
  for (const n of Object.values(doc.counts)) expect(typeof n).toBe('number');
  for (const byCurrency of Object.values(doc.totals))
    for (const amount of Object.values(byCurrency)) expect(amount).toMatch(/^-?\d+(\.\d+)?$/);
  return doc;
}

describe('--output json: one document on stdout, whatever the exit (issue 27, item 5)', () => {
  it('0: every row succeeded — rows, counts and totals in the currency digits', async () => {
    const orders = await suite.gw.createOrders(3);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    const r = await payops(['refund', '--file', file, '--yes', '--output', 'json'], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(0);
    const doc = documentOf(r);
    expect(doc).toMatchObject({ operation: 'refund', state: 'finished', error: null });
    expect(doc.run_id).toMatch(/^\d{8}-\d{6}-[0-9a-f]+$/);
    expect(r.stderr).toContain(doc.run_id!);
    expect(doc.gateway).toMatchObject({ sandbox: false });
    expect(doc.counts.succeeded).toBe(3);
    expect(doc.rows.map((x) => x.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    const sum = orders.reduce((s, o) => s + Math.round(Number(o.amount) * 100), 0);
    expect(doc.totals.succeeded!.USD).toBe(`${Math.floor(sum / 100)}.${String(sum % 100).padStart(2, '0')}`);
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(3);
  });

  it('1: some rows failed — counted, each row with its reason', async () => {
    const orders = await suite.gw.createOrders(2);
    const rows = [...refundRows(orders), ['T9999999999', 'ORD-NOPE', 'USD', '1.00', '1.00', 'r']];
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, rows);
    const r = await payops(['refund', '--file', file, '--yes', '--output', 'json'], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(1);
    const doc = documentOf(r);
    expect(doc.state).toBe('finished');
    expect(doc.counts).toMatchObject({ succeeded: 2, failed: 1, not_sent: 0 });
    expect(doc.rows[2]).toMatchObject({ outcome: 'failed' });
    expect(doc.rows[2]!.outcome_detail).toMatch(/E2001/);
  });

  it('2: bad input — nothing sent, no run, rows empty, error set', async () => {
    const file = writeCsv(join(suite.dir, 'bad.csv'), REFUND_HEADER, [
      ['T0000000001', 'ORD-1', 'USD', '10.00', 'ten', 'r'],
    ]);
    const r = await payops(['refund', '--file', file, '--yes', '--output', 'json'], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(2);
    const doc = documentOf(r);
    expect(doc).toMatchObject({ run_id: null, state: 'not_started', rows: [] });
    expect(doc.error?.code).toBe('input');
    expect(doc.error?.message).toMatch(/nothing was sent/);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('2: no --yes without a terminal — refused before sending, the same document', async () => {
    const orders = await suite.gw.createOrders(1);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    const r = await payops(['refund', '--file', file, '--output', 'json'], { env: suite.gw.env(suite.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(documentOf(r)).toMatchObject({ run_id: null, state: 'not_started', error: { code: 'usage' } });
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('130: interrupted — the rows so far, not_sent counted, the resume command in error', async () => {
    const orders = await suite.gw.createOrders(200);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    await suite.gw.faults({ mode: 'none', latency_ms: MID_RUN_LATENCY_MS });
    const r = await payops(['refund', '--file', file, '--yes', '--concurrency', '1', '--output', 'json'], {
      env: suite.gw.env(suite.dir),
      signal: { name: 'SIGINT', afterMs: 0, when: async () => (await suite.gw.ledger()).length >= 1 },
    });
    await suite.gw.faults({ mode: 'none' });
    expect(r.code, r.stderr).toBe(130);
    const doc = documentOf(r);
    expect(doc.state).toBe('interrupted');
    expect(doc.counts.not_sent).toBeGreaterThan(0);
    expect(doc.counts.succeeded).toBe(refundsByTransaction(await suite.gw.ledger()).size);
    expect(doc.rows).toHaveLength(200);
    expect(doc.error?.code).toBe('interrupted');
    expect(doc.error?.message).toMatch(/resume with: payops refund --file \S+ --resume --yes/);
  });

  it('3: the gateway fails mid-run (HTTP 500 on every call) — the run named, rows not settled', async () => {
    const orders = await suite.gw.createOrders(2, '2000');
    const file = writeCsv(
      join(suite.dir, 'capture.csv'),
      ['transaction_id', 'order_no', 'currency', 'amount'],
      orders.map((o) => [o.transaction_id, o.order_no, o.currency, o.amount]),
    );
    // A capture with --no-check: the check before the run would meet the fault first (that exit is
    // the next test's), and refunds never go without it.
    await suite.gw.faults({ mode: 'error500', rate: 1 });
    const r = await payops(['capture', '--file', file, '--yes', '--no-check', '--output', 'json'], {
      env: suite.gw.env(suite.dir),
    });
    await suite.gw.faults({ mode: 'none' });
    expect(r.code, r.stderr).toBe(3);
    const doc = documentOf(r);
    expect(doc.run_id).not.toBeNull();
    expect(['interrupted', 'stopped']).toContain(doc.state);
    expect(doc.counts.succeeded).toBe(0);
    expect(doc.operation).toBe('capture');
    expect(doc.rows).toHaveLength(2);
    expect((await suite.gw.ledger()).filter((e) => e.kind === 'capture')).toEqual([]);
  });

  it('2: a flag commander refuses — still one document, nothing sent', async () => {
    const r = await payops(['refund', '--file', 'x.csv', '--yes', '--settle-time', '0', '--output', 'json'], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(2);
    const doc = documentOf(r);
    expect(doc).toMatchObject({ run_id: null, state: 'not_started', error: { code: 'usage' } });
    expect(doc.error?.message).toMatch(/--settle-time/);
  });

  it('3: the gateway cannot be reached — nothing sent, the transport error in the document', async () => {
    const orders = await suite.gw.createOrders(1);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    // A loopback port nobody listens on (the sandbox's own, once closed, could be reused).
    const env = { ...suite.gw.env(suite.dir), PAYOPS_BASE_URL: 'http://127.0.0.1:9' };
    const r = await payops(['refund', '--file', file, '--yes', '--output', 'json'], { env });
    expect(r.code, r.stderr).toBe(3);
    const doc = documentOf(r);
    expect(doc).toMatchObject({ run_id: null, state: 'not_started', rows: [] });
    expect(doc.error?.code).toBe('transport');
    expect(doc.gateway?.base_url).toBe('http://127.0.0.1:9');
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('--dry-run: state dry_run, nothing sent', async () => {
    const orders = await suite.gw.createOrders(1);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    const r = await payops(['refund', '--file', file, '--dry-run', '--output', 'json'], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(documentOf(r)).toMatchObject({ run_id: null, state: 'dry_run', rows: [], error: null });
  });
});
