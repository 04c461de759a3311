import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthError, GatewayError, GatewayRejectedError, UnknownOutcomeError } from '../../../src/errors.js';
import { assertAccepted, createClient } from '../../../src/gateway/client.js';
import { createSigner } from '../../../src/gateway/signer.js';
import { createTransport } from '../../../src/gateway/transport.js';

const ORIGIN = 'https://gateway.test';
const KEY = 'sandbox-sign-key';
const signer = createSigner(KEY);
const json = { headers: { 'content-type': 'application/json' } };

let mock: MockAgent | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function setup(baseUrl = ORIGIN) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  mock = agent;
  const transport = await createTransport({ dispatcher: agent, sleep: async () => {} });
  const client = createClient({ transport, signer, baseUrl, merchantId: '800001', accountId: '800001001' });
  return { pool: agent.get(ORIGIN), client };
}

function signed(body: Record<string, unknown>) {
  return JSON.stringify({ ...body, encryption_data: signer.sign(body) });
}

const vector1 = {
  capture_orders: [{ transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '10.00' }],
};

describe('client.send', () => {
  it('fills the credentials, signs as design.md vector 1 and verifies the answer', async () => {
    const { pool, client } = await setup();
    let sent: Record<string, unknown> = {};
    const answer = {
      merchant_id: '800001',
      account_id: '800001001',
      return_status: '1',
      return_message: '0000:OK',
      capture_orders: [],
    };
    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(
      200,
      (opts) => {
        sent = JSON.parse(String(opts.body));
        return signed(answer);
      },
      json,
    );
    const res = await client.send('capture', vector1 as never);
    expect(sent.encryption_data).toBe('650f414b96d3ac145071f9be90f689b41e26bad1b185e023604bff9846868e86');
    expect(sent.merchant_id).toBe('800001');
    expect(res.signature).toBe('valid');
    expect(res.data.return_status).toBe('1');
  });

  it('sends form endpoints form-encoded, signed as vector 2, under a base path', async () => {
    const { pool, client } = await setup(`${ORIGIN}/api/`);
    let sent = '';
    let type = '';
    pool.intercept({ path: '/api/v1/retrievalTrans', method: 'POST' }).reply(
      200,
      (opts) => {
        sent = String(opts.body);
        type = (opts.headers as Record<string, string>)['content-type'] ?? '';
        return JSON.stringify({ return_status: '1', orders_list: [] });
      },
      json,
    );
    const res = await client.send('query', { order_no: 'ORD-1,ORD-2' });
    expect(type).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(sent).get('encryption_data')).toBe(
      'f2cd329021058f5b56f133801b4589cafb9ebb67f3fa207e921d30018ddda20a',
    );
    expect(res.signature).toBe('absent');
  });

  it('parses and verifies the XML card result, nested risk_reasons included', async () => {
    const { pool, client } = await setup();
    const fields = {
      merchant_id: '800001',
      order_no: 'O1',
      amount: '010.50',
      risk_reasons: [
        { name: 'velocity', status: 'ok' },
        { name: 'country', status: 'review' },
      ],
    };
    const sig = signer.sign(fields);
    const xml = `<?xml version="1.0"?><respon><merchant_id>800001</merchant_id><order_no>O1</order_no><amount>010.50</amount><risk_reasons><name>velocity</name><status>ok</status></risk_reasons><risk_reasons><name>country</name><status>review</status></risk_reasons><encryption_data>${sig}</encryption_data></respon>`;
    pool
      .intercept({ path: '/v1/authorise', method: 'POST' })
      .reply(200, xml, { headers: { 'content-type': 'application/xml' } });
    const res = await client.send('authorise', { order_no: 'O1' } as never);
    expect(res.signature).toBe('valid');
    expect((res.data as unknown as Record<string, unknown>).amount).toBe('010.50');
  });

  it('verifies the XML result over the values as written: spaces, references, CDATA, non-ASCII (issue 16)', async () => {
    const { pool, client } = await setup();
    const fields = { order_no: 'O2', note: ' café <b> & ', contract_name: '  Zürich  ', connector: 'x' };
    const sig = signer.sign(fields);
    const xml = `<?xml version="1.0"?>\n<respon>\n  <order_no>O2</order_no>\n  <note> caf&#233; &lt;b&gt; &amp; </note>\n  <contract_name><![CDATA[  Zürich  ]]></contract_name>\n  <connector>&#x78;</connector>\n  <encryption_data>${sig}</encryption_data>\n</respon>\n`;
    pool
      .intercept({ path: '/v1/authorise', method: 'POST' })
      .reply(200, xml, { headers: { 'content-type': 'application/xml' } });
    const res = await client.send('authorise', { order_no: 'O2' } as never);
    expect(res.signature).toBe('valid');
    expect((res.data as unknown as Record<string, unknown>).note).toBe(' café <b> & ');
  });

  it('turns a missing or bad signature into UnknownOutcomeError for money-moving operations', async () => {
    const { pool, client } = await setup();
    pool
      .intercept({ path: '/v1/refund', method: 'POST' })
      .reply(200, JSON.stringify({ return_status: '1' }), json);
    const e1 = await client.send('refund', { refund_orders: [] } as never).catch((e) => e);
    expect(e1).toBeInstanceOf(UnknownOutcomeError);
    expect(e1.reason).toBe('missing_signature');

    pool
      .intercept({ path: '/v1/refund', method: 'POST' })
      .reply(200, JSON.stringify({ return_status: '1', encryption_data: 'ab'.repeat(32) }), json);
    const e2 = await client.send('refund', { refund_orders: [] } as never).catch((e) => e);
    expect(e2.reason).toBe('bad_signature');

    pool.intercept({ path: '/v1/refund', method: 'POST' }).reply(200, '<html>oops', json);
    const e3 = await client.send('refund', { refund_orders: [] } as never).catch((e) => e);
    expect(e3.reason).toBe('unparseable');
  });

  it('turns a bad signature on a read-only answer into a GatewayError, after asking three times', async () => {
    const { pool, client } = await setup();
    let asked = 0;
    pool
      .intercept({ path: '/v1/retrievalRefund', method: 'POST' })
      .reply(
        200,
        () => {
          asked++;
          return JSON.stringify({ return_status: '1', encryption_data: '00' });
        },
        json,
      )
      .times(3);
    const err = await client.send('refundSearch', {}).catch((e) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).not.toBeInstanceOf(UnknownOutcomeError);
    expect(asked).toBe(3);
  });

  it('asks a read again when its answer was garbled or wrongly signed once (a read changes nothing)', async () => {
    const { pool, client } = await setup();
    const answer = { return_status: '1', return_message: '0000:OK', refund_orders: [] };
    pool.intercept({ path: '/v1/retrievalRefund', method: 'POST' }).reply(200, '<html>oops', json);
    pool
      .intercept({ path: '/v1/retrievalRefund', method: 'POST' })
      .reply(200, JSON.stringify({ ...answer, encryption_data: 'ab'.repeat(32) }), json);
    pool.intercept({ path: '/v1/retrievalRefund', method: 'POST' }).reply(200, signed(answer), json);
    const res = await client.send('refundSearch', {});
    expect(res.signature).toBe('valid');
    expect(res.data.return_status).toBe('1');
  });

  it('never asks a money-moving request again when its answer is garbled', async () => {
    const { pool, client } = await setup();
    let asked = 0;
    pool
      .intercept({ path: '/v1/refund', method: 'POST' })
      .reply(
        200,
        () => {
          asked++;
          return '<html>oops';
        },
        json,
      )
      .persist();
    const err = await client.send('refund', { refund_orders: [] } as never).catch((e) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    expect(asked).toBe(1);
  });

  it('maps 403 E1003 to an AuthError naming the caller IP, and 4xx {code,message} to GatewayError', async () => {
    const { pool, client } = await setup();
    pool.intercept({ path: '/v1/retrievalTrans', method: 'POST' }).reply(
      403,
      JSON.stringify({
        return_status: '0',
        return_message: 'E1003:caller IP 203.0.113.9 is not registered',
      }),
      json,
    );
    const err = await client.send('query', {}).catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.exitCode).toBe(4);
    expect(err.message).toContain('203.0.113.9');
    expect(err.hint).toMatch(/register/);

    pool
      .intercept({ path: '/v1/authorise', method: 'POST' })
      .reply(404, JSON.stringify({ code: 'E2001', message: 'Record not found' }), json);
    const e2 = await client.send('authorise', {} as never).catch((e) => e);
    expect(e2).toBeInstanceOf(GatewayError);
    expect(e2.code).toBe('E2001');
    expect(e2.status).toBe(404);
  });
});

describe('client.raw', () => {
  it('reports valid / invalid / absent signatures and never throws on HTTP errors', async () => {
    const { pool, client } = await setup();
    pool.intercept({ path: '/v1/x', method: 'POST' }).reply(200, signed({ a: '1' }), json);
    pool
      .intercept({ path: '/v1/x', method: 'POST' })
      .reply(200, JSON.stringify({ a: '1', encryption_data: 'ff' }), json);
    pool
      .intercept({ path: '/v1/x', method: 'POST' })
      .reply(500, '<html>down</html>', { headers: { 'content-type': 'text/html' } });
    expect((await client.raw('/v1/x', {}, { form: false })).signature).toBe('valid');
    expect((await client.raw('/v1/x', {}, { form: false })).signature).toBe('invalid');
    const r3 = await client.raw('/v1/x', {}, { form: true });
    expect(r3).toMatchObject({ status: 500, signature: 'absent', body: '<html>down</html>' });
    expect(r3.parsed).toBeUndefined();
  });
});

describe('assertAccepted', () => {
  it('passes return_status 1, throws AuthError for E1001-3 and GatewayRejectedError otherwise', () => {
    expect(() => assertAccepted({ return_status: '1' })).not.toThrow();
    expect(() => assertAccepted({ return_status: '0', return_message: 'E1001:bad signature' })).toThrow(
      AuthError,
    );
    const err = (() => {
      try {
        assertAccepted({ return_status: '0', return_message: 'E1004:too many orders' });
      } catch (e) {
        return e as GatewayRejectedError;
      }
    })();
    expect(err).toBeInstanceOf(GatewayRejectedError);
    expect(err?.code).toBe('E1004');
    expect(err?.exitCode).toBe(3);
  });
});
