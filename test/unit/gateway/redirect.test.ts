// Issue 13, item 15: a redirect is neither followed nor "not JSON". It names where it points and
// the base_url that would reach the gateway; a money-moving request redirected by 301/307/308 was
// not processed (a definite refusal), by 302/303 maybe (post/redirect/get): a lost answer.
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode, GatewayError, RouteError, UnknownOutcomeError } from '../../../src/errors.js';
import { createClient } from '../../../src/gateway/client.js';
import { createSigner } from '../../../src/gateway/signer.js';
import { createTransport } from '../../../src/gateway/transport.js';

const ORIGIN = 'https://gateway.test';
const capture = {
  capture_orders: [{ transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '10.00' }],
};

let mock: MockAgent | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function setup() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  mock = agent;
  const transport = await createTransport({ dispatcher: agent, sleep: async () => {} });
  const client = createClient({
    transport,
    signer: createSigner('sandbox-sign-key'),
    baseUrl: ORIGIN,
    merchantId: '800001',
    accountId: '800001001',
  });
  return { pool: agent.get(ORIGIN), client };
}

const redirect = (status: number, location?: string) =>
  [status, '', { headers: location === undefined ? {} : { location } }] as const;

describe('a redirect answered by base_url', () => {
  it('to a read: a configuration error naming the target and the base_url to set; asked once', async () => {
    const { pool, client } = await setup();
    let asked = 0;
    pool.intercept({ path: '/v1/retrievalTrans', method: 'POST' }).reply(() => {
      asked++;
      return {
        statusCode: 308,
        data: '',
        responseOptions: { headers: { location: '/api/v1/retrievalTrans' } },
      };
    });
    const err = await client.send('query', { order_no: 'O1' } as never).catch((e) => e);
    expect(err).toBeInstanceOf(RouteError);
    expect(err).not.toBeInstanceOf(GatewayError);
    expect((err as RouteError).exitCode).toBe(ExitCode.config);
    expect((err as Error).message).toBe(
      "the gateway answered /v1/retrievalTrans with a redirect (HTTP 308 Permanent Redirect) to https://gateway.test/api/v1/retrievalTrans; if https://gateway.test/api is your gateway's address, set base_url to it (the request was turned away, not processed)",
    );
    expect((err as RouteError).hint).toContain('payops config set base_url https://gateway.test/api');
    expect((err as Error).message).not.toMatch(/JSON|XML/);
    expect(asked).toBe(1);
  });

  it.each([301, 307, 308])(
    'HTTP %s to a money-moving request: not processed — a definite refusal, not a lost answer',
    async (status) => {
      const { pool, client } = await setup();
      pool
        .intercept({ path: '/v1/capture', method: 'POST' })
        .reply(...redirect(status, 'https://new.test/v1/capture'));
      const err = await client.send('capture', capture as never).catch((e) => e);
      expect(err).toBeInstanceOf(RouteError);
      expect(err).not.toBeInstanceOf(UnknownOutcomeError);
      expect((err as Error).message).toContain(
        "if https://new.test is your gateway's address, set base_url to it",
      );
    },
  );

  it.each([302, 303])(
    'HTTP %s to a money-moving request: maybe processed (post/redirect/get) — a lost answer to reconcile',
    async (status) => {
      const { pool, client } = await setup();
      pool
        .intercept({ path: '/v1/capture', method: 'POST' })
        .reply(...redirect(status, 'https://new.test/v1/capture'));
      const err = await client.send('capture', capture as never).catch((e) => e);
      expect(err).toBeInstanceOf(UnknownOutcomeError);
      expect((err as UnknownOutcomeError).reason).toBe('redirect');
      expect((err as Error).message).toContain('to https://new.test/v1/capture');
      expect((err as UnknownOutcomeError).hint).toContain(
        "if https://new.test is your gateway's address, set base_url to it",
      );
    },
  );

  it('shows no credentials nor control characters of the Location; elsewhere than the API: check base_url', async () => {
    const { pool, client } = await setup();
    pool
      .intercept({ path: '/v1/retrievalTrans', method: 'POST' })
      .reply(...redirect(302, 'https://user:pw@login.test/sso?next=\u001b]0;owned\u0007'));
    const err = await client.send('query', { order_no: 'O1' } as never).catch((e) => e);
    const text = `${(err as Error).message}\n${(err as RouteError).hint}`;
    expect(text).toContain('to https://login.test/sso?next=');
    expect(text).toContain('check base_url');
    expect(text).not.toMatch(/user|pw@|\u001b|\u0007/);

    pool.intercept({ path: '/v1/retrievalTrans', method: 'POST' }).reply(...redirect(307));
    const bare = await client.send('query', { order_no: 'O1' } as never).catch((e) => e);
    expect(bare).toBeInstanceOf(RouteError);
    expect((bare as Error).message).toContain('(HTTP 307 Temporary Redirect) with no address');
  });
});
