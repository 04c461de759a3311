// The JSON run document's schema, pinned (issue 27, item 5): cron jobs parse it, so a key added,
// removed or renamed — at the top, in `gateway`, in `error`, or in a run's `counts` — fails here
// and must be a deliberate change (docs/bulk.md "The JSON run document" says the same keys).
import { describe, expect, it } from 'vitest';
import { OUTCOMES } from '../../../src/bulk/report/results.js';
import { createRunDocument, gatewayFacts, RUN_DOCUMENT_KEYS } from '../../../src/output/run-document.js';
import { PAYOUT_OUTCOMES } from '../../../src/payout/document.js';
import { capture } from './helpers.js';

const GATEWAY = {
  baseUrl: 'https://gw.example.com',
  merchantId: 'M1',
  accountId: 'A1',
  profile: 'live',
  sandbox: false,
};

async function written(
  fill: (doc: ReturnType<typeof createRunDocument>) => Promise<void>,
  outcomes: readonly string[] = OUTCOMES,
) {
  const out = capture();
  const doc = createRunDocument(out, 'refund', outcomes);
  await fill(doc);
  await new Promise((r) => setImmediate(r));
  return { text: out.text(), json: JSON.parse(out.text()) as Record<string, unknown> };
}

describe('the JSON run document', () => {
  it('has exactly these keys, in this order, and no others', async () => {
    const { json } = await written(async (doc) => {
      doc.runId = '20261128-120000-abcd';
      doc.gateway = gatewayFacts(GATEWAY);
      doc.row({ order_no: 'ORD-1', outcome: 'succeeded' });
      await doc.finish({
        state: 'finished',
        exit_code: 0,
        error: null,
        totals: { succeeded: { USD: '10.00' } },
      });
    });
    expect(Object.keys(json)).toEqual([
      'run_id',
      'operation',
      'gateway',
      'rows',
      'state',
      'counts',
      'totals',
      'exit_code',
      'error',
    ]);
    expect(Object.keys(json)).toEqual([...RUN_DOCUMENT_KEYS]);
    expect(Object.keys(json.gateway as object)).toEqual([
      'base_url',
      'merchant_id',
      'account_id',
      'profile',
      'sandbox',
    ]);
    // The counts of a bulk run: every outcome, as numbers, counted from the rows when not given.
    expect(json.counts).toEqual({
      succeeded: 1,
      already_done: 0,
      skipped: 0,
      failed: 0,
      unknown: 0,
      not_sent: 0,
      duplicated: 0,
    });
    expect(json.totals).toEqual({ succeeded: { USD: '10.00' } });
  });

  it('a payout run counts completed, failed, pending, unknown, not_sent', async () => {
    const { json } = await written(
      (doc) => doc.finish({ state: 'finished', exit_code: 0, error: null, counts: { completed: 2 } }),
      PAYOUT_OUTCOMES,
    );
    expect(json.counts).toEqual({ completed: 2, failed: 0, pending: 0, unknown: 0, not_sent: 0 });
  });

  it('before anything ran: run_id and gateway null, rows empty, error {code, message}', async () => {
    const { json } = await written((doc) =>
      doc.finish({ state: 'not_started', exit_code: 2, error: { code: 'input', message: 'x.csv: bad' } }),
    );
    expect(json).toMatchObject({ run_id: null, gateway: null, rows: [], state: 'not_started', exit_code: 2 });
    expect(Object.keys(json.error as object)).toEqual(['code', 'message']);
  });

  it('finishes once; rows after the end are dropped; card numbers in a row are masked', async () => {
    const { json, text } = await written(async (doc) => {
      doc.row({ note: '4111 1111 1111 1111', outcome: 'failed' });
      await doc.finish({ state: 'finished', exit_code: 1, error: null });
      await doc.finish({ state: 'stopped', exit_code: 3, error: null });
      doc.row({ outcome: 'succeeded' });
    });
    expect(json.exit_code).toBe(1);
    expect(json.rows).toHaveLength(1);
    expect(text).not.toContain('4111 1111 1111 1111');
  });
});
