// (review of issue 13) A journal whose LAST writes fail — the outcomes and the terminal record, after
// every intent is on disk. Copied helpers from journal-write.test.ts.
// A journal that cannot be written mid-run (a full disk, an I/O error), through main(argv, io) in this
// process against a sandbox over loopback: the failure is injected into the journal's own file
// handle (its writes fail with ENOSPC once the first intents are on disk), so no disk has to fill up.
// The run must stop sending, say the journal could not be written (exit 4), and a resume must end
// every row exactly once — judged by the sandbox's ledger.

import { readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, writeRefunds } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

type Write = (this: { fd: number }, ...args: unknown[]) => Promise<unknown>;

/** Makes every write to a run journal fail with `code` once `armed()` says so. */
async function failJournalWrites(code: string, armed: (text: string) => boolean) {
  const probe = await open(join(tempDir(), 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { write: Write };
  await probe.close();
  const real = proto.write;
  let failing = false;
  let failed = 0;
  const spy = vi.spyOn(proto, 'write').mockImplementation(function (this: { fd: number }, ...args) {
    let path = '';
    try {
      path = readlinkSync(`/proc/self/fd/${this.fd}`);
    } catch {
      // not on Linux: the test is skipped there
    }
    if (path.endsWith('journal.jsonl')) {
      const data = args[0];
      const text = typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString('utf8') : '';
      if (failing || armed(text)) {
        failing = true;
        failed++;
        const err = Object.assign(new Error(`${code}: no space left on device, write`), {
          code,
          errno: -28,
          syscall: 'write',
        });
        return Promise.reject(err);
      }
    }
    return real.apply(this, args);
  });
  return { restore: () => spy.mockRestore(), failed: () => failed };
}

describe.runIf(process.platform === 'linux')('the journal fails only after the last intent', () => {
  it('says the journal could not be written (exit 4), not a clean exit 0', async () => {
    const orders = await createOrders(sandbox.url, 50);
    const home = tempDir('payops-desk-');
    const io = () => fakeIo({ home, cwd: home, env: sandbox.env });
    const file = writeRefunds(home, orders);
    // One chunk: its intent reaches the disk; its outcome and the terminal record do not.
    const fault = await failJournalWrites('ENOSPC', (text) => text.includes('"type":"outcome"'));
    let first: Awaited<ReturnType<typeof runMain>>;
    try {
      first = await runMain(['refund', '--file', file, '--yes', '--output', 'csv'], io());
    } finally {
      fault.restore();
    }
    expect(fault.failed()).toBeGreaterThan(0);
    expect(first.stderr).toMatch(/cannot write the run journal/);
    expect(first.code, first.stderr).toBe(4);
  });
});
