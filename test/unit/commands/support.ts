// Shared by the in-process command tests: the check that main() leaves the process as it found it,
// and small CSV and journal helpers.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { ContextOverrides } from '../../../src/context.js';
import { clientFromConfig } from '../../../src/factory.js';
import { processState } from '../../helpers/in-process.js';
import { type SandboxOrder, setFaults } from '../../helpers/sandbox-admin.js';

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
  const m = /run (?:id: )?(\d{8}-\d{6}-[0-9a-f]{4})/.exec(stderr);
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
