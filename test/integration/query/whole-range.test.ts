// `--all`: every record of a date range, through the real binary against the real sandbox, with
// refunds placed at chosen times by the sandbox's admin API (POST /_sandbox/refunds).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunResult, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { type SeededRefund, seedRefunds } from '../../helpers/sandbox-admin.js';

let sandbox: TestSandbox;
const work = tempDir('payops-whole-range-');

function payops(args: string[]): Promise<RunResult> {
  return runCli(args, { env: { ...sandbox.env, TZ: 'UTC', NO_COLOR: '1' }, cwd: work });
}

function requestsTo(stderr: string, path: string): number {
  return stderr.split('\n').filter((l) => l.includes(`POST ${path} → `)).length;
}

const refId = (r: { refund_reference_id: string }) => r.refund_reference_id;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

describe('refunds search --all', () => {
  it('returns exactly the 1,234 refunds of a month, each once, into a CSV file', async () => {
    // A month of refunds, with some outside it on both sides that must not be returned.
    await seedRefunds(sandbox.url, { count: 30, from: '2026-10-31T23:00:00Z', seconds: 3600 });
    const inside = await seedRefunds(sandbox.url, {
      count: 1234,
      from: '2026-11-01T00:00:00Z',
      seconds: 30 * 86_400,
      per_order: 2,
    });
    await seedRefunds(sandbox.url, { count: 30, from: '2026-12-01T00:00:00Z', seconds: 3600 });

    const r = await payops([
      '--verbose',
      'refunds',
      'search',
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-30',
      '--all',
      '--out',
      'november.csv',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/may be missing|there may be more/);
    expect(r.stderr).toMatch(/1,?234 refund records found/);
    // Without --all one request brings 100: the window was cut.
    expect(requestsTo(r.stderr, '/v1/retrievalRefund')).toBeGreaterThan(12);

    const lines = readFileSync(join(work, 'november.csv'), 'utf8').trim().split(/\r?\n/);
    const head = lines[0]!.split(',');
    const at = head.indexOf('refund_reference_id');
    const ids = lines.slice(1).map((l) => l.split(',')[at]!);
    expect(ids).toHaveLength(1234);
    expect(new Set(ids).size).toBe(1234);
    expect([...ids].sort()).toEqual(inside.map(refId).sort());
  });

  it('fetches more than 100 refunds of one second by their orders, and says it cannot prove the second complete', async () => {
    // 150 refunds in one second, on 10 orders (15 each): the newest 100 show every order.
    const crowded = await seedRefunds(sandbox.url, {
      count: 150,
      from: '2026-09-10T10:00:05Z',
      seconds: 1,
      per_order: 15,
    });
    const around = await seedRefunds(sandbox.url, { count: 40, from: '2026-09-10T10:00:06Z', seconds: 60 });
    const r = await payops([
      'refunds',
      'search',
      '--from',
      '2026-09-10 10:00:00',
      '--to',
      '2026-09-10 10:59:59',
      '--all',
      '--output',
      'json',
    ]);
    const rows = JSON.parse(r.stdout) as SeededRefund[];
    const ids = rows.map(refId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...crowded, ...around].map(refId).sort());
    // Never silently complete: the second is named on stderr and the exit code is 1.
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/2026-09-10T10:00:05Z: 150 refund records found/);
    expect(r.stderr).toMatch(/may be missing/);
  });

  it('is refused with a list, or without --from (exit 2, nothing sent)', async () => {
    const withList = await payops(['refunds', 'search', '--transaction-id', 'T1', '--all']);
    expect(withList.code).toBe(2);
    expect(withList.stderr).toMatch(/--all fetches a whole date range/);
    const noFrom = await payops(['refunds', 'search', '--to', '2026-11-30', '--all']);
    expect(noFrom.code).toBe(2);
    expect(noFrom.stderr).toMatch(/--all needs --from/);
  });
});

describe('query --all', () => {
  it('returns every order of a day holding 300, each once', async () => {
    // Orders are stamped with the sandbox's now: 5 batches of 60, an hour apart, on a fixed day.
    const admin = async (path: string, body: unknown) => {
      const res = await fetch(`${sandbox.url}/_sandbox/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.ok).toBe(true);
      return res.json() as Promise<unknown>;
    };
    const orders: Array<{ transaction_id: string }> = [];
    try {
      for (let h = 10; h < 15; h++) {
        await admin('clock', { offset_ms: Date.parse(`2026-08-01T${h}:00:00Z`) - Date.now() });
        orders.push(...((await admin('orders', { count: 60 })) as Array<{ transaction_id: string }>));
      }
    } finally {
      await admin('clock', { offset_ms: 0 });
    }
    const r = await payops([
      'query',
      '--from',
      '2026-08-01',
      '--to',
      '2026-08-01',
      '--all',
      '--output',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ transaction_id: string }>;
    const ids = rows.map((o) => o.transaction_id);
    expect(new Set(ids).size).toBe(300);
    expect([...ids].sort()).toEqual(orders.map((o) => o.transaction_id).sort());
  });
});
