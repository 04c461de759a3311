// `payops call` to a path that can move money (issue 23 item 9): it confirms on a terminal and
// needs --yes without one; the endpoint's per-request limit holds before anything is sent; a batch
// answer with an order refused (status 0) exits 1. Judged by the sandbox's ledger and request log.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stateDir } from '../../src/config/paths.js';
import type { SandboxRequestEntry } from '../../src/sandbox/request-log.js';
import { hasScript, screenOf, underPty } from '../helpers/pty-screen.js';
import { cliEnv, runCli, tempDir } from '../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { createOrders, ledger, type SandboxOrder } from '../helpers/sandbox-admin.js';

let sandbox: TestSandbox;
const seen: SandboxRequestEntry[] = [];
const dir = tempDir('payops-call-confirm-');
beforeAll(async () => {
  sandbox = await startTestSandbox({
    onRequest: (e) => {
      if (!e.path.startsWith('/_sandbox/')) seen.push(e);
    },
  });
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(() => {
  seen.length = 0;
});

const COLUMNS = 100;
const CARD = '4242424242424242';
const CODE = '9731';

/** The lines of calls.jsonl in a home. */
function callsOf(home: string): Array<Record<string, unknown>> {
  return readFileSync(join(stateDir({ PAYOPS_HOME: home }), 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A capture body for `orders`, written to a file. */
function captureFile(name: string, orders: readonly SandboxOrder[]): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      capture_orders: orders.map((o) => ({
        transaction_id: o.transaction_id,
        order_no: o.order_no,
        currency: o.currency,
        amount: o.amount,
      })),
    }),
  );
  return file;
}

describe('payops call to a money-moving path (issue 23 item 9)', () => {
  it('without a terminal and without --yes: exit 2 naming --yes, nothing sent', async () => {
    const [order] = await createOrders(sandbox.url, 1, '2000');
    const before = await ledger(sandbox.url);
    const r = await runCli(['call', '/v1/capture', '--json', captureFile('one.json', [order!])], {
      env: sandbox.env,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect(r.stderr).toMatch(/nothing was sent/);
    expect(seen).toEqual([]);
    expect(await ledger(sandbox.url)).toEqual(before);
  });

  it('an unknown path counts as money-moving: --yes needed too', async () => {
    const r = await runCli(['call', '/v1/subscription/cancel', '--data', 'recurring_id=R-1'], {
      env: sandbox.env,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect(seen).toEqual([]);
  });

  it('a read-only path needs no confirmation', async () => {
    const r = await runCli(['call', '/v1/retrievalTrans', '--data', 'order_no=NOPE-1'], { env: sandbox.env });
    expect(r.code, r.stderr).toBe(0);
    expect(seen.map((e) => e.path)).toEqual(['/v1/retrievalTrans']);
  });

  it('with --yes it captures once, and says on stderr what it sent', async () => {
    const [order] = await createOrders(sandbox.url, 1, '2000');
    const before = (await ledger(sandbox.url)).length;
    const r = await runCli(['--yes', 'call', '/v1/capture', '--json', captureFile('yes.json', [order!])], {
      env: sandbox.env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`sending POST ${sandbox.url}/v1/capture (1 element in capture_orders)`);
    const after = await ledger(sandbox.url);
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)).toMatchObject({ kind: 'capture', transaction_id: order!.transaction_id });
    // The record of what was sent and what came back (a raw call has no run journal).
    const lines = callsOf(r.home);
    expect(lines.map((l) => l.type)).toEqual(['sent', 'answer']);
    expect(lines[0]).toMatchObject({
      method: 'POST',
      url: `${sandbox.url}/v1/capture`,
      merchant_id: '800001',
      body: { capture_orders: [{ order_no: order!.order_no }] },
    });
    expect(lines[1]).toMatchObject({
      id: lines[0]!.id,
      http_status: 200,
      signature: 'valid',
      orders: { total: 1, refused: 0, unclear: 0 },
    });
    expect(r.stderr).toContain(`recorded in ${join(stateDir({ PAYOPS_HOME: r.home }), 'calls.jsonl')}`);
  });

  it('the record of a call with card data holds the card masked and no security code', async () => {
    const file = join(dir, 'card.json');
    writeFileSync(
      file,
      JSON.stringify({
        order_no: 'ORD-CALL-CARD',
        amount: '3.00',
        currency: 'USD',
        card: CARD,
        security_code: CODE,
        expiration_month: '12',
        expiration_year: '2035',
      }),
    );
    const r = await runCli(['--yes', 'call', '/v1/authorise', '--json', file], { env: sandbox.env });
    expect(
      seen.map((e) => e.path),
      r.stderr,
    ).toEqual(['/v1/authorise']);
    const text = readFileSync(join(stateDir({ PAYOPS_HOME: r.home }), 'calls.jsonl'), 'utf8');
    expect(text).toContain('424242******4242');
    expect(text).not.toContain(CARD);
    expect(text).not.toContain('security_code');
    expect(r.stdout + r.stderr).not.toContain(CARD);
  });

  it('a refused confirmation and a dry run record nothing', async () => {
    const no = await runCli(['call', '/v1/capture', '--data', 'capture_orders[0].order_no=O1'], {
      env: sandbox.env,
    });
    expect(no.code).toBe(2);
    expect(existsSync(join(stateDir({ PAYOPS_HOME: no.home }), 'calls.jsonl'))).toBe(false);
    const dry = await runCli(
      ['--dry-run', 'call', '/v1/capture', '--data', 'capture_orders[0].order_no=O1'],
      {
        env: sandbox.env,
      },
    );
    expect(dry.code).toBe(0);
    expect(existsSync(join(stateDir({ PAYOPS_HOME: dry.home }), 'calls.jsonl'))).toBe(false);
  });

  it('51 elements to /v1/capture are refused before sending (the limit is 50): exit 2, nothing sent', async () => {
    const orders = await createOrders(sandbox.url, 51, '2000');
    const before = await ledger(sandbox.url);
    const r = await runCli(['--yes', 'call', '/v1/capture', '--json', captureFile('many.json', orders)], {
      env: sandbox.env,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/capture_orders has 51 elements.*at most 50/);
    expect(r.stderr).toMatch(/nothing was sent/);
    expect(seen).toEqual([]);
    expect(await ledger(sandbox.url)).toEqual(before);
  });

  it('an answer with an order refused (capture_status 0) exits 1; the rest is applied', async () => {
    const [order] = await createOrders(sandbox.url, 1, '2000');
    const nope = {
      transaction_id: 'T-NOPE',
      order_no: 'NOPE-1',
      currency: 'USD',
      amount: '1.00',
      payment_status: '',
    };
    const before = (await ledger(sandbox.url)).length;
    const r = await runCli(
      ['--yes', 'call', '/v1/capture', '--json', captureFile('mixed.json', [order!, nope])],
      {
        env: sandbox.env,
      },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/1 of 2 elements were refused \(capture_status 0\)/);
    const out = JSON.parse(r.stdout);
    expect(out.capture_orders.map((o: Record<string, string>) => o.capture_status)).toEqual(['1', '0']);
    expect(await ledger(sandbox.url)).toHaveLength(before + 1);
  });

  describe.skipIf(!hasScript)('on a terminal', () => {
    const onTerminal = (args: string[], answers: Array<[string, string]>) =>
      underPty(args, { env: cliEnv(tempDir(), sandbox.env), columns: COLUMNS, answers, timeoutMs: 20_000 });

    it('asks, naming the request; No sends nothing (exit 2)', async () => {
      const [order] = await createOrders(sandbox.url, 1, '2000');
      const before = await ledger(sandbox.url);
      const r = await onTerminal(
        ['call', '/v1/capture', '--json', captureFile('tty-no.json', [order!])],
        [['Send POST', 'n']],
      );
      const screen = screenOf(r.raw, COLUMNS);
      const text = screen.lines.join('\n');
      expect(r.code, text).toBe(2);
      expect(text).toContain(`Send POST ${sandbox.url}/v1/capture (1 element in capture_orders)?`);
      expect(text).toContain('nothing was sent');
      expect(seen).toEqual([]);
      expect(await ledger(sandbox.url)).toEqual(before);
    });

    it('Yes sends it once', async () => {
      const [order] = await createOrders(sandbox.url, 1, '2000');
      const before = (await ledger(sandbox.url)).length;
      const r = await onTerminal(
        ['call', '/v1/capture', '--json', captureFile('tty-yes.json', [order!])],
        [['Send POST', 'y']],
      );
      expect(r.code, r.raw).toBe(0);
      expect(seen.map((e) => e.path)).toEqual(['/v1/capture']);
      expect(await ledger(sandbox.url)).toHaveLength(before + 1);
    });
  });
});
