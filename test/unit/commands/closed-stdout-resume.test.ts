// (review of issue 13) A resumed run whose stdout's reader has gone away (`| head`) keeps its own
// exit code even when it only reconciles — it asks the gateway about the rows whose answers were
// lost and sends nothing. It is a money-moving run all the same: its exit code says how the run
// ended, never the quiet 141 of a pure reader. Through main(argv, io) in this process, against a
// sandbox over loopback; stdout fails every write with EPIPE.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { clientFromConfig } from '../../../src/factory.js';
import { fakeIo } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { ledger } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, unfinishedRun } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

/** A stdout whose reader is gone: every write fails with EPIPE. */
class ClosedPipe extends Writable {
  readonly isTTY = false;
  override _write(_chunk: unknown, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' }));
  }
}

describe('a resume that only reconciles, its stdout closed', () => {
  it("exits with the run's own code (0), not 141", async () => {
    const home = tempDir('payops-desk-');
    const io = () => fakeIo({ home, cwd: home, env: sandbox.env });
    const { ids, runId } = await unfinishedRun(sandbox.url, io);

    const closed = { ...io(), stdout: new ClosedPipe() };
    let batches = 0;
    const code = await main(['runs', 'resume', runId, '--yes', '--output', 'csv'], closed, {
      clientFactory: async (ctx, config) => {
        const real = await clientFromConfig(ctx, config);
        return {
          ...real,
          sendBatch: (op, elements, opts) => {
            batches++;
            return real.sendBatch(op, elements, opts);
          },
        };
      },
    });
    const stderr = closed.stderr.text;
    // Every row was found at the gateway: nothing sent again, the run finished.
    expect(batches).toBe(0);
    const refunds = (await ledger(sandbox.url)).filter(
      (e) => e.kind === 'refund' && ids.includes(e.transaction_id),
    );
    expect(refunds).toHaveLength(3);
    expect(stderr).toMatch(/succeeded\s+3/);
    expect(code, stderr).toBe(0);
  });
});
