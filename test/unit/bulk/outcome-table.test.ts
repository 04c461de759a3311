import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outcomeRows, toOutcomeTable } from '../../../src/bulk/engine/outcome-table.js';
import type { RowOutcome } from '../../../src/bulk/types.js';

const FIELDS = ['refund_status', 'refund_message', 'refund_reference', 'refund_reference_id'];

const rowOutcome = fc
  .record({
    line: fc.integer({ min: 2, max: 1_000_000 }),
    outcome: fc.constantFrom('succeeded', 'failed', 'unknown', 'not_sent'),
    fields: fc.dictionary(fc.constantFrom(...FIELDS), fc.string()),
    detailKind: fc.constantFrom('message', 'own', 'empty'),
    own: fc.string(),
  })
  .map(({ line, outcome, fields, detailKind, own }): RowOutcome => {
    const detail =
      detailKind === 'message' ? (fields.refund_message ?? own) : detailKind === 'own' ? own : '';
    return { line, outcome: outcome as RowOutcome['outcome'], detail, fields };
  });

/** Through the journal: JSON text and back. */
const throughJson = (rows: RowOutcome[]) =>
  outcomeRows(
    JSON.parse(JSON.stringify({ type: 'outcome', chunk: 0, ...toOutcomeTable(rows, 'refund_message') })),
  );

describe('outcome table (journal form of a chunk’s row outcomes)', () => {
  it('gives back exactly the rows it was made of (property)', () => {
    fc.assert(
      fc.property(fc.array(rowOutcome, { maxLength: 60 }), (rows) => {
        expect(throughJson(rows)).toEqual(rows);
      }),
      { numRuns: 300 },
    );
  });

  it('names each field once and does not repeat a detail that is the gateway message', () => {
    const rows: RowOutcome[] = [
      {
        line: 2,
        outcome: 'succeeded',
        detail: '0000:Refund accepted',
        fields: { refund_status: '1', refund_message: '0000:Refund accepted', refund_reference_id: 'T1-01' },
      },
      { line: 3, outcome: 'unknown', detail: 'the gateway answered but returned no result', fields: {} },
    ];
    const t = toOutcomeTable(rows, 'refund_message');
    expect(t).toEqual({
      fields: ['refund_status', 'refund_message', 'refund_reference_id'],
      table: [
        [2, 'succeeded', 0, '1', '0000:Refund accepted', 'T1-01'],
        [3, 'unknown', 'the gateway answered but returned no result', null, null, null],
      ],
      message: 'refund_message',
    });
  });

  it('takes about half the bytes of an object per row for a typical chunk', () => {
    const rows: RowOutcome[] = Array.from({ length: 50 }, (_, i) => ({
      line: i + 2,
      outcome: 'succeeded',
      detail: '0000:Refund accepted',
      fields: {
        refund_status: '1',
        refund_message: '0000:Refund accepted',
        refund_reference: `RF${1000000000 + i}`,
        refund_reference_id: `T${1000000000 + i}-01`,
      },
    }));
    const table = JSON.stringify(toOutcomeTable(rows, 'refund_message')).length;
    expect(table).toBeLessThan(JSON.stringify(rows).length * 0.55);
  });

  it('reads the object-per-row form of older journals', () => {
    const rows: RowOutcome[] = [
      { line: 7, outcome: 'failed', detail: 'E2003:state 5000', fields: { x: 'y' } },
    ];
    expect(outcomeRows({ type: 'outcome', chunk: 1, rows })).toEqual(rows);
  });
});
