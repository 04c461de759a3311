import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../../src/context.js';
import type { Io } from '../../../src/io.js';
import { createRun } from '../../../src/lifecycle/journal.js';
import { showPayoutRun } from '../../../src/payout/runs.js';
import { jsonRows } from '../../helpers/json-rows.js';

function capture() {
  let text = '';
  const stream = new PassThrough();
  stream.on('data', (d: Buffer) => {
    text += d.toString('utf8');
  });
  return { stream, text: () => text };
}

describe('showPayoutRun', () => {
  it('prints the latest result of each payout from the journal, sending nothing', async () => {
    const home = mkdtempSync(join(tmpdir(), 'payops-runs-'));
    const journal = await createRun(join(home, 'state'), {
      op: 'payout',
      file: '/x/p.csv',
      sha256: 'abc',
      inputKind: 'csv',
    });
    await journal.append([
      { type: 'plan', items: [{ line: 2, request_id: 'r2' }] },
      { type: 'intent', line: 2, request_id: 'r2' },
      { type: 'result', line: 2, request_id: 'r2', outcome: 'unknown', status: '' },
      {
        type: 'result',
        line: 2,
        request_id: 'r2',
        outcome: 'completed',
        status: 'COMPLETED',
        short_reference_id: 'S1',
      },
    ]);
    await journal.close();
    const out = capture();
    const err = capture();
    const io = {
      stdin: new PassThrough(),
      stdout: out.stream,
      stderr: err.stream,
      env: { PAYOPS_HOME: home },
      cwd: home,
    } as unknown as Io;
    const code = await showPayoutRun(createContext(io, { output: 'json' }), journal.runId);
    expect(code).toBe(0);
    const rows = jsonRows(out.text());
    expect(rows).toEqual([
      expect.objectContaining({
        line: '2',
        request_id: 'r2',
        outcome: 'completed',
        short_reference_id: 'S1',
      }),
    ]);
  });

  it('refuses a run that is not a payout run', async () => {
    const home = mkdtempSync(join(tmpdir(), 'payops-runs-'));
    const journal = await createRun(join(home, 'state'), { op: 'refund' });
    await journal.close();
    const io = {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      env: { PAYOPS_HOME: home },
      cwd: home,
    } as unknown as Io;
    await expect(showPayoutRun(createContext(io, {}), journal.runId)).rejects.toThrow(/not a payout run/);
  });
});
