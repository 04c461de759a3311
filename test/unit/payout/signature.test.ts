// Which payout answers the client trusts. gateway-api.md lists a signature on batch and direct-payment
// answers, not on the payout record (which echoes the request fields): an unsigned payout answer is
// read (src/payout/answer.ts checks its fields), a signature that is there must verify, and the other
// endpoints keep their rule (an unsigned refund answer is still an unknown outcome).
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { UnknownOutcomeError } from '../../../src/errors.js';
import { createClient } from '../../../src/gateway/client.js';
import { createSigner } from '../../../src/gateway/signer.js';
import { createTransport } from '../../../src/gateway/transport.js';

const ORIGIN = 'https://gateway.test';
const signer = createSigner('sandbox-sign-key');
const json = { headers: { 'content-type': 'application/json' } };
const REQUEST = {
  request_id: '6f1d2c3b-4a59-4e8f-9b7a-0c1d2e3f4a5b',
  payment_amount: '10.00',
  payment_currency: 'EUR',
  payment_method: 'SWIFT',
};

let mock: MockAgent | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** A client whose gateway answers each /v1/payout with `reply(request body)`. */
async function clientAnswering(reply: (sent: Record<string, unknown>) => Record<string, unknown>) {
  mock = new MockAgent();
  mock.disableNetConnect();
  const transport = await createTransport({ dispatcher: mock, sleep: async () => {} });
  mock
    .get(ORIGIN)
    .intercept({ path: '/v1/payout', method: 'POST' })
    .reply(200, (opts) => JSON.stringify(reply(JSON.parse(String(opts.body)))), json)
    .persist();
  return createClient({ transport, signer, baseUrl: ORIGIN, merchantId: '800001', accountId: '800001001' });
}

/** The answer without its signature: the request echoed (no encryption_data) and a status. */
function echo(sent: Record<string, unknown>, status = 'COMPLETED') {
  const { encryption_data: _sig, ...rest } = sent;
  return { ...rest, status, failure_reason: '', failure_type: '' };
}

describe('payout answer signatures', () => {
  it('reads an unsigned payout answer (signature absent)', async () => {
    const client = await clientAnswering((sent) => echo(sent, 'PENDING'));
    const res = await client.send('payout', REQUEST as never);
    expect(res.signature).toBe('absent');
    expect(res.data.status).toBe('PENDING');
    expect(res.data.request_id).toBe(REQUEST.request_id);
  });

  it('reads an answer whose encryption_data is the echo of the request signature as unsigned', async () => {
    const client = await clientAnswering((sent) => ({
      ...echo(sent),
      encryption_data: sent.encryption_data,
    }));
    const res = await client.send('payout', REQUEST as never);
    expect(res.signature).toBe('absent');
    expect(res.data.status).toBe('COMPLETED');
  });

  it('verifies a signed payout answer', async () => {
    const client = await clientAnswering((sent) => {
      const body = echo(sent);
      return { ...body, encryption_data: signer.sign(body) };
    });
    expect((await client.send('payout', REQUEST as never)).signature).toBe('valid');
  });

  it('a signature that does not verify is an unknown outcome, not an answer', async () => {
    const client = await clientAnswering((sent) => ({ ...echo(sent), encryption_data: 'ab'.repeat(32) }));
    const err = await client.send('payout', REQUEST as never).catch((e) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    expect(err.reason).toBe('bad_signature');
  });

  it('a signed answer altered after signing is an unknown outcome', async () => {
    const client = await clientAnswering((sent) => {
      const body = echo(sent, 'FAILED');
      return { ...body, encryption_data: signer.sign(body), status: 'COMPLETED' };
    });
    const err = await client.send('payout', REQUEST as never).catch((e) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    expect(err.reason).toBe('bad_signature');
  });

  it('other endpoints keep their rule: an unsigned refund answer is still an unknown outcome', async () => {
    mock = new MockAgent();
    mock.disableNetConnect();
    const transport = await createTransport({ dispatcher: mock, sleep: async () => {} });
    mock
      .get(ORIGIN)
      .intercept({ path: '/v1/refund', method: 'POST' })
      .reply(200, JSON.stringify({ return_status: '1', refund_orders: [] }), json);
    const client = createClient({
      transport,
      signer,
      baseUrl: ORIGIN,
      merchantId: '800001',
      accountId: '800001001',
    });
    const err = await client.send('refund', { refund_orders: [] } as never).catch((e) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    expect(err.reason).toBe('missing_signature');
  });
});
