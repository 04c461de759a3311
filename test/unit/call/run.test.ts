// `payops call`'s decisions in-process (main(argv, io) with a fake gateway): which paths confirm,
// the endpoint's per-request limit, and how a batch answer's per-order statuses end the command.
import { describe, expect, it } from 'vitest';
import type { GatewayClient, RawResponse } from '../../../src/gateway/client.js';
import { fakeIo, runMain } from '../../helpers/in-process.js';

const ENV = {
  PAYOPS_BASE_URL: 'https://gateway.invalid',
  PAYOPS_MERCHANT_ID: '800001',
  PAYOPS_ACCOUNT_ID: '800001001',
  PAYOPS_SIGN_KEY: 'a-test-sign-key',
};

/** A client whose raw() answers `parsed` as JSON and counts the requests. */
function answering(parsed: Record<string, unknown>) {
  const sent: string[] = [];
  const client = {
    baseUrl: ENV.PAYOPS_BASE_URL,
    merchantId: ENV.PAYOPS_MERCHANT_ID,
    accountId: ENV.PAYOPS_ACCOUNT_ID,
    send: async () => {
      throw new Error('not used');
    },
    sendBatch: async () => {
      throw new Error('not used');
    },
    raw: async (path: string): Promise<RawResponse> => {
      sent.push(path);
      return {
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify(parsed),
        parsed,
        signature: 'absent',
        durationMs: 1,
      };
    },
    close: async () => {},
  } as unknown as GatewayClient;
  return { client, sent };
}

const ORDER = ['transaction_id=T1', 'order_no=O1', 'currency=USD', 'amount=1.00'];
const elements = (n: number) =>
  Array.from({ length: n }, (_, i) => ORDER.flatMap((f) => ['--data', `capture_orders[${i}].${f}`])).flat();

const run = (argv: string[], parsed: Record<string, unknown>) => {
  const gw = answering(parsed);
  return runMain(argv, fakeIo({ env: ENV }), { clientFactory: () => gw.client }).then((r) => ({
    ...r,
    sent: gw.sent,
  }));
};

const capture = (statuses: Array<string | undefined>) => ({
  return_status: '1',
  capture_orders: statuses.map((s) =>
    s === undefined ? { order_no: 'O1' } : { order_no: 'O1', capture_status: s },
  ),
});

describe('payops call decisions', () => {
  it.each([
    { name: 'every order done', statuses: ['1', '1'], code: 0 },
    { name: 'one refused (status 0)', statuses: ['1', '0'], code: 1 },
    { name: 'one without a status: not known whether applied', statuses: ['1', undefined], code: 3 },
    { name: 'one of an unknown status ("2")', statuses: ['0', '2'], code: 3 },
    { name: 'one element for the two sent', statuses: ['1'], code: 3 },
  ])('a batch answer with $name exits $code', async ({ statuses, code }) => {
    const r = await run(['--yes', 'call', '/v1/capture', ...elements(2)], capture(statuses));
    expect(r.code, r.stderr).toBe(code);
    expect(r.sent).toEqual(['/v1/capture']);
    if (code === 3) expect(r.stderr).toMatch(/no clear capture_status.*not known/);
  });

  it('a batch answer with no per-order results at all exits 3: nothing says what became of the orders', async () => {
    const r = await run(['--yes', 'call', '/v1/capture', ...elements(2)], { return_status: '1' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/2 of 2 orders have no clear capture_status/);
  });

  it("the limit is the endpoint table's: 50 capture elements pass, 51 are refused before sending", async () => {
    expect(
      (await run(['--yes', 'call', '/v1/capture', ...elements(50)], capture(Array(50).fill('1')))).code,
    ).toBe(0);
    const over = await run(['--yes', 'call', '/v1/capture', ...elements(51)], capture([]));
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/at most 50 per request; nothing was sent/);
    expect(over.sent).toEqual([]);
  });

  it.each([
    ['/v1/capture', 2],
    ['/v1/refund', 2],
    ['/v1/payout', 2],
    ['/v1/authorise', 2],
    ['/v1/something-new', 2],
    ['/v1/retrievalTrans', 0],
    ['/v1/retrievalRefund', 0],
  ])('%s without --yes and without a terminal exits %i', async (path, code) => {
    const r = await run(['call', path, '--data', 'order_no=O1'], { return_status: '1' });
    expect(r.code, r.stderr).toBe(code);
    expect(r.sent).toEqual(code === 0 ? [path] : []);
    if (code === 2) expect(r.stderr).toMatch(/--yes/);
  });
});
