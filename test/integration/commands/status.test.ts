// `payops status` (issue 15 item 7): the real binary against a sandbox in this process. What it
// says about the gateway is what the gateway answered: a wrong key, an unregistered IP address and
// a closed port each give their own answer and exit code; unfinished runs are listed with the
// command for each, and `runs resume` without an id takes the only one.
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MID_RUN_LATENCY_MS,
  payops,
  REFUND_HEADER,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from '../bulk/support.js';

const suite = useBulkSuite();

interface Status {
  profile: { name: string; from: string };
  check: { answers: string; keyAccepted: string; queryAllowed: string; problem?: { message: string } };
  settings: Array<{ key: string; value: string; from: string }>;
  readOnly: boolean;
  journal: string;
  attention: Array<{ runId: string; why: string; command: string }>;
}

async function status(extra: Record<string, string> = {}, args: string[] = []) {
  const r = await payops(['status', '--output', 'json', ...args], { env: suite.gw.env(suite.dir, extra) });
  return { code: r.code, stderr: r.stderr, report: JSON.parse(r.stdout) as Status };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('payops status', () => {
  it('all good: exit 0, each setting with where it came from, the sign key only as "set"', async () => {
    const r = await status();
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.check).toMatchObject({ answers: 'yes', keyAccepted: 'yes', queryAllowed: 'yes' });
    const by = Object.fromEntries(r.report.settings.map((s) => [s.key, s]));
    expect(by.base_url!.from).toBe('PAYOPS_BASE_URL');
    expect(by.sign_key).toEqual({ key: 'sign_key', value: 'set', from: 'PAYOPS_SIGN_KEY' });
    expect(by.timeout!.from).toBe('default');
    expect(r.report.journal).toBe(join(suite.dir, 'state', 'runs'));
    const secret = suite.gw.env(suite.dir).PAYOPS_SIGN_KEY!;
    expect(JSON.stringify(r.report)).not.toContain(secret);
  });

  it('a wrong key: the key is refused, exit 4', async () => {
    const r = await status({ PAYOPS_SIGN_KEY: 'not-the-right-key-1234' });
    expect(r.code).toBe(4);
    expect(r.report.check).toMatchObject({ answers: 'yes', keyAccepted: 'no' });
    expect(r.report.check.problem?.message).toMatch(/signature|E1001/);
  });

  it("this machine's IP address not registered for query: exit 4, the key still accepted", async () => {
    const res = await fetch(`${suite.gw.url}/_sandbox/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ registered_ips: ['203.0.113.9'] }),
    });
    expect(res.ok).toBe(true);
    const r = await status();
    expect(r.code).toBe(4);
    expect(r.report.check).toMatchObject({ answers: 'yes', keyAccepted: 'yes', queryAllowed: 'no' });
    expect(r.report.check.problem?.message).toContain('E1003');
  });

  it('a gateway that does not answer: exit 3', async () => {
    const port = await closedPort();
    const r = await status({ PAYOPS_BASE_URL: `http://127.0.0.1:${port}` }, ['--timeout', '2000']);
    expect(r.code).toBe(3);
    expect(r.report.check.answers).toBe('no');
  });

  it('lists an interrupted run with its resume command; `runs resume` alone takes it', async () => {
    const orders = await suite.gw.createOrders(200);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    await suite.gw.faults({ mode: 'none', latency_ms: MID_RUN_LATENCY_MS });
    const env = suite.gw.env(suite.dir);
    const cut = await payops(['refund', file, '--yes', '--output', 'csv', '--concurrency', '1'], {
      env,
      signal: { name: 'SIGINT', afterMs: 0, when: async () => (await suite.gw.ledgerCount()) >= 1 },
    });
    expect(cut.code, cut.stderr).toBe(130);
    await suite.gw.faults({ mode: 'none' });

    const r = await status();
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.attention).toHaveLength(1);
    const [run] = r.report.attention;
    // The same word as `runs list` uses for a run stopped by Ctrl-C.
    expect(run!.why).toBe('interrupted');
    expect(run!.command).toBe(`payops runs resume ${run!.runId}`);

    const resumed = await payops(['runs', 'resume', '--yes', '--output', 'csv'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`run ${run!.runId} (the only unfinished run`);
    const byTx = refundsByTransaction(await suite.gw.ledger());
    expect(byTx.size).toBe(200);
    expect([...byTx.values()].every((l) => l.length === 1)).toBe(true);
    expect((await status()).report.attention).toEqual([]);
  });
});
