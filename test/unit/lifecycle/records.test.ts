import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OutcomeRecord, parseBulkRecord } from '../../../src/bulk/engine/records.js';
import { createRun, readRun } from '../../../src/lifecycle/journal.js';
import { parseHeader, type RawRecord } from '../../../src/lifecycle/records.js';
import { parsePayoutRecord } from '../../../src/payout/records.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'payops-records-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('journal records, parsed once on read', () => {
  it('a bulk run reads back as the typed union: outcome tables become rows', async () => {
    const journal = await createRun(root, { op: 'refund', chunkSize: 50, columns: ['transaction_id'] });
    await journal.append([
      { type: 'intent', chunk: 0, lines: [2, 3], sentAt: '2026-11-23T10:00:00.000Z' },
      {
        type: 'outcome',
        chunk: 0,
        fields: ['refund_status', 'refund_message'],
        table: [
          [2, 'succeeded', 0, '1', 'ok'],
          [3, 'failed', 'why', '0', 'E2001:no'],
        ],
        message: 'refund_message',
      },
      { type: 'unknown', chunk: 1, reason: 'timeout', message: 'no answer' },
      { type: 'not_sent', chunk: 2, message: 'stopped' },
      { type: 'finished', counts: { succeeded: 1, failed: 1 }, money: { succeeded: { USD: '1000' } } },
    ]);
    await journal.close();
    const { header, records } = await readRun(root, journal.runId, parseBulkRecord);
    expect(header.chunkSize).toBe(50);
    expect(header.columns).toEqual(['transaction_id']);
    expect(records.map((r) => r.type)).toEqual(['intent', 'outcome', 'unknown', 'not_sent', 'finished']);
    const outcome = records[1] as OutcomeRecord;
    expect(outcome.rows).toEqual([
      { line: 2, outcome: 'succeeded', detail: 'ok', fields: { refund_status: '1', refund_message: 'ok' } },
      {
        line: 3,
        outcome: 'failed',
        detail: 'why',
        fields: { refund_status: '0', refund_message: 'E2001:no' },
      },
    ]);
    expect(records[4]).toMatchObject({ type: 'finished', counts: { succeeded: 1, failed: 1 } });
  });

  it('a record that is not what its type says is damage, named by its line', async () => {
    const journal = await createRun(root, { op: 'refund' });
    await journal.append({ type: 'intent', chunk: 0, lines: [2], sentAt: 'x' });
    await journal.close();
    await appendFile(
      journal.path,
      `${JSON.stringify({ type: 'intent', chunk: 'zero', lines: [3], sentAt: 'x' })}\n`,
    );
    await appendFile(journal.path, `${JSON.stringify({ type: 'finished' })}\n`);
    await expect(readRun(root, journal.runId, parseBulkRecord)).rejects.toThrow(
      `the journal of run ${journal.runId} cannot be read (line 3: intent record without chunk)`,
    );
    // Read without a parser, the same file is just JSON (records added by hand: no chain link).
    expect((await readRun(root, journal.runId, undefined, { chain: 'report' })).records).toHaveLength(3);
    await expect(readRun(root, journal.runId)).rejects.toThrow(/line 3, intent: has no link/);
  });

  it('a record of a type no payops wrote ("intenT": a flipped byte) is damage, not skipped', async () => {
    const journal = await createRun(root, { op: 'refund' });
    await journal.append([{ type: 'intenT', chunk: 0, lines: [2], sentAt: 'x' }, { type: 'finished' }]);
    await journal.close();
    await expect(readRun(root, journal.runId, parseBulkRecord)).rejects.toThrow(
      /cannot be read \(line 2: a record of unknown type "intenT"\)/,
    );
    expect(() => parsePayoutRecord({ type: 'resulT', line: 2 } as RawRecord)).toThrow(/unknown type/);
  });

  it('payout records: plan, intent and result, checked', () => {
    const raw = (r: object) => r as RawRecord;
    expect(
      parsePayoutRecord(raw({ type: 'plan', items: [{ line: 2, request_id: 'r2', key: 'k' }] })),
    ).toEqual({
      type: 'plan',
      items: [{ line: 2, request_id: 'r2', key: 'k' }],
    });
    expect(
      parsePayoutRecord(raw({ type: 'result', line: 2, outcome: 'completed', status: 'COMPLETED' })),
    ).toMatchObject({
      type: 'result',
      line: 2,
      outcome: 'completed',
      status: 'COMPLETED',
      failure_reason: '',
    });
    expect(() => parsePayoutRecord(raw({ type: 'result', line: 2, outcome: 'maybe' }))).toThrow(/outcome/);
    expect(() => parsePayoutRecord(raw({ type: 'plan', items: [{ line: '2' }] }))).toThrow(/item/);
  });

  it('a header must say what the run is, and when', () => {
    expect(() => parseHeader({ type: 'header', v: 1, runId: 'x', createdAt: 'y' } as RawRecord)).toThrow(
      /op/,
    );
    expect(() => parseHeader({ type: 'intent' } as RawRecord)).toThrow(/header/);
    const h = parseHeader({
      type: 'header',
      v: 1,
      runId: 'x',
      createdAt: 'y',
      op: 'payout',
      inputKind: 'json',
      rows: 'three',
    } as RawRecord);
    expect(h).toEqual({ type: 'header', v: 1, runId: 'x', createdAt: 'y', op: 'payout', inputKind: 'json' });
  });
});
