import { describe, expect, it } from 'vitest';
import { replayRun } from '../../../src/bulk/engine/replay.js';
import type { ChunkState } from '../../../src/bulk/engine/run-state.js';
import type { BulkRow, Chunk, RowOutcome } from '../../../src/bulk/types.js';

function chunk(index: number, lines: number[]): Chunk<BulkRow> {
  return {
    index,
    rows: lines.map((line) => ({
      line,
      transaction_id: `T${line}`,
      order_no: `O${line}`,
      currency: 'USD',
      amountMinor: 100n,
    })),
  };
}

async function* chunks() {
  yield chunk(0, [2, 3]);
  yield chunk(1, [4, 5]);
  yield chunk(2, [6, 7]);
  yield chunk(3, [8, 9]);
}

describe('replayRun (runs show): the journal alone, no gateway', () => {
  it('settled rows as recorded, sent-but-unanswered rows unknown, the rest not sent', async () => {
    const settled: RowOutcome[] = [
      { line: 2, outcome: 'succeeded', detail: 'ok', fields: { refund_status: '1' } },
      { line: 3, outcome: 'failed', detail: 'E2003', fields: {} },
    ];
    const prior = new Map<number, ChunkState>([
      [0, { rows: settled, open: false, notSent: false }],
      // Sent, then the process died before the answer was journaled.
      [
        1,
        {
          intent: { type: 'intent', chunk: 1, lines: [4, 5], sentAt: 't' },
          open: true,
          notSent: false,
        },
      ],
      // Its intent was written, then the run stopped before sending it.
      [
        2,
        {
          intent: { type: 'intent', chunk: 2, lines: [6, 7], sentAt: 't' },
          open: true,
          notSent: true,
        },
      ],
    ]);
    const seen: Array<[number, string[]]> = [];
    await replayRun({
      chunks: chunks(),
      prior,
      emit: (c, outcomes) => {
        seen.push([c.index, outcomes.map((o) => `${o.line}:${o.outcome}`)]);
      },
    });
    expect(seen).toEqual([
      [0, ['2:succeeded', '3:failed']],
      [1, ['4:unknown', '5:unknown']],
      [2, ['6:not_sent', '7:not_sent']],
      [3, ['8:not_sent', '9:not_sent']],
    ]);
  });
});
