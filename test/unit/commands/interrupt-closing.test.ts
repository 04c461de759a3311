// Ctrl-C while a run is being closed (review of issue 13): after the requests are over, the results
// file is renamed into place and the journal gets its terminal record and is closed. A SIGINT then
// must be absorbed like the third one during the run — with no listener, Node's default ends the
// process before the run is recorded as ended. Through main(argv, io) in this process against a
// sandbox over loopback: when its terminal record is written, three SIGINTs are emitted and each must
// find payops' listener.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, runIdIn, spyJournalWrites, writeRefunds } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

/**
 * When a run journal's terminal record is written, emits SIGINT three times; keeps the SIGINT
 * listeners payops had beyond `baseline` at each of them.
 */
async function ctrlCWhileClosing(baseline: number) {
  const listeners: number[] = [];
  const spy = await spyJournalWrites((text) => {
    if (text.includes('"type":"finished"')) {
      for (let i = 0; i < 3; i++) {
        listeners.push(process.listenerCount('SIGINT') - baseline);
        process.emit('SIGINT');
      }
    }
    return undefined;
  });
  return { restore: spy.restore, listeners };
}

/** `payops …args` at `home`, Ctrl-C pressed three times as its run is closed; the run must end. */
async function closedDespiteCtrlC(home: string, args: string[]) {
  const fault = await ctrlCWhileClosing(process.listenerCount('SIGINT'));
  let r: Awaited<ReturnType<typeof runMain>>;
  try {
    r = await runMain(args, fakeIo({ home, cwd: home, env: sandbox.env }));
  } finally {
    fault.restore();
  }
  expect(fault.listeners).toHaveLength(3);
  expect(
    fault.listeners.every((n) => n > 0),
    `listeners: ${fault.listeners}`,
  ).toBe(true);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain('the run is ending: its results and journal are being written');
  expect(records(home, runIdIn(r.stderr)).at(-1)?.type).toBe('finished');
}

function records(home: string, runId: string): Array<{ type: string }> {
  return readFileSync(join(home, 'state', 'runs', runId, 'journal.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string });
}

describe.runIf(process.platform === 'linux')('Ctrl-C while the run is being closed', () => {
  it('a refund run absorbs it: the results file and the terminal record are written, exit 0', async () => {
    const orders = await createOrders(sandbox.url, 20);
    const home = tempDir('payops-desk-');
    const file = writeRefunds(home, orders);
    await closedDespiteCtrlC(home, ['refund', '--file', file, '--yes', '--out', 'results.csv']);
    expect(readFileSync(join(home, 'results.csv'), 'utf8').trim().split('\n')).toHaveLength(21);
  });

  it('a payout run the same', async () => {
    const home = tempDir('payops-desk-');
    const file = join(home, 'payouts.csv');
    writeFileSync(
      file,
      [
        'reference,payment_amount,payment_currency,payment_method,beneficiary.entity_type,beneficiary.bank_details.account_name,beneficiary.bank_details.iban,payer.entity_type',
        'C-1,1.00,EUR,SWIFT,COMPANY,Supplier 1,DE89370400440532013000,COMPANY',
      ].join('\n'),
    );
    await closedDespiteCtrlC(home, ['--yes', 'payout', '--file', file]);
  });
});
