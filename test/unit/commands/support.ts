// Shared by the in-process command tests: the check that main() leaves the process as it found it,
// and small CSV and journal helpers.
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import type { ContextOverrides } from '../../../src/context.js';
import { clientFromConfig } from '../../../src/factory.js';
import { type FakeIo, processState, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { createOrders, ledger, type SandboxOrder, setFaults } from '../../helpers/sandbox-admin.js';

/** After every test of the file: no SIGINT/SIGTERM listener, exit code or server left behind. */
export function expectCleanProcess(): void {
  let before: ReturnType<typeof processState>;
  beforeEach(() => {
    before = processState();
  });
  afterEach(async () => {
    // A closed server's handle is released in the close phase of the event loop, after the check
    // phase in which the first setImmediate runs: two turns.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(processState()).toEqual(before);
  });
}

export const REFUND_HEADER = 'transaction_id,order_no,currency,amount,refund_amount,refund_reason';

/** A refund file of 1.00 per order (partial, so the gateway would accept the same file twice). */
export function writeRefunds(dir: string, orders: readonly SandboxOrder[], name = 'refunds.csv'): string {
  const rows = orders.map((o) => `${o.transaction_id},${o.order_no},${o.currency},${o.amount},1.00,test`);
  writeFileSync(join(dir, name), `${[REFUND_HEADER, ...rows].join('\n')}\n`);
  return name;
}

/** Run folders under PAYOPS_HOME `home`. */
export function runIds(home: string): string[] {
  try {
    return readdirSync(join(home, 'state', 'runs')).filter((n) => !n.startsWith('.'));
  } catch {
    return [];
  }
}

/** The run id a plan or summary names on stderr. */
export function runIdIn(stderr: string): string {
  // A new run's id is said once it is confirmed, after any earlier run a note names (issue 27).
  const m = /run id: (\d{8}-\d{6}-[0-9a-f]{4})/.exec(stderr) ?? /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(stderr);
  if (!m) throw new Error(`no run id in:\n${stderr}`);
  return m[1]!;
}

/**
 * The real client, with the sandbox's faults switched on once the run starts sending (its first
 * batch): the look-ups made before a run (preflight) still get their answers, as they would from a
 * gateway that goes bad mid-run.
 */
export function faultsOnceSending(url: string, faults: Record<string, unknown>): ContextOverrides {
  return {
    clientFactory: async (ctx, config) => {
      const real = await clientFromConfig(ctx, config);
      let armed = false;
      return {
        ...real,
        sendBatch: async (op, elements, opts) => {
          if (!armed) {
            armed = true;
            await setFaults(url, faults);
          }
          return real.sendBatch(op, elements, opts);
        },
      };
    },
  };
}

type Write = (this: { fd: number }, ...args: unknown[]) => Promise<unknown>;

/**
 * Watches every write to a run journal through the file handles' shared `write` (the file is told
 * by its descriptor's path, so Linux only): `onWrite` sees the text and may return an error for the
 * write to fail with. `restore()` puts the real `write` back.
 */
export async function spyJournalWrites(onWrite: (text: string) => Error | undefined) {
  const probe = await open(join(tempDir(), 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { write: Write };
  await probe.close();
  const real = proto.write;
  const spy = vi.spyOn(proto, 'write').mockImplementation(function (this: { fd: number }, ...args) {
    let path = '';
    try {
      path = readlinkSync(`/proc/self/fd/${this.fd}`);
    } catch {
      // not on Linux: the tests using this are skipped there
    }
    if (path.endsWith('journal.jsonl')) {
      const data = args[0];
      const text = typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString('utf8') : '';
      const err = onWrite(text);
      if (err) return Promise.reject(err);
    }
    return real.apply(this, args);
  });
  return { restore: () => spy.mockRestore() };
}

/** Makes every write to a run journal fail with `code` once `armed()` says so. */
export async function failJournalWrites(code: string, armed: (text: string) => boolean) {
  let failing = false;
  let failed = 0;
  const spy = await spyJournalWrites((text) => {
    if (!failing && !armed(text)) return undefined;
    failing = true;
    failed++;
    return Object.assign(new Error(`${code}: no space left on device, write`), {
      code,
      errno: -28,
      syscall: 'write',
    });
  });
  return { restore: spy.restore, failed: () => failed };
}

/**
 * A refund run of `n` new orders whose answers were lost after the sandbox committed them, and not
 * reconciled: it ends unfinished (exit 3), every refund made.
 */
export async function unfinishedRun(url: string, io: () => FakeIo, n = 3) {
  const orders = await createOrders(url, n);
  const ids = orders.map((o) => o.transaction_id);
  const file = writeRefunds(io().cwd, orders);
  let first: Awaited<ReturnType<typeof runMain>>;
  try {
    first = await runMain(
      ['refund', '--file', file, '--yes', '--output', 'csv'],
      io(),
      faultsOnceSending(url, { mode: 'drop_after_commit', rate: 1 }),
    );
  } finally {
    await setFaults(url, { mode: 'none' });
  }
  expect(first.code, first.stderr).toBe(3);
  const refunds = (await ledger(url)).filter((e) => e.kind === 'refund' && ids.includes(e.transaction_id));
  expect(refunds).toHaveLength(n);
  return { file, ids, runId: runIdIn(first.stderr) };
}
