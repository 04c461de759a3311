// Paths, methods and bodies outside the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox());
});
afterAll(() => sandbox.close());

describe('routing', () => {
  it('unknown paths answer 404, other methods 405, with a JSON error', async () => {
    const a = await client.raw('/v1/nope', { method: 'POST', body: '{}' });
    expect(a.status).toBe(404);
    expect(a.json.code).toBe('E1005');
    const b = await client.raw('/v1/refund', { method: 'GET' });
    expect(b.status).toBe(405);
    const c = await client.raw('/_sandbox/ledger', { method: 'DELETE' });
    expect(c.status).toBe(404);
  });

  it('a JSON body that is not an object is 400', async () => {
    const a = await client.raw('/v1/payout', {
      method: 'POST',
      body: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    expect(a.status).toBe(400);
    expect(a.json).toEqual({ code: 'E1005', message: 'E1005:malformed request: body must be a JSON object' });
  });

  it('a body over the size limit is 413', async () => {
    const a = await client.raw('/v1/refund', { method: 'POST', body: 'x'.repeat(9 * 1024 * 1024) });
    expect(a.status).toBe(413);
  });

  it('an empty form body is a rejection naming merchant_id', async () => {
    const a = await client.form('/v1/retrievalTrans', {});
    expect(a.json.return_status).toBe('0');
    expect(a.json.return_message).toBe('E1005:malformed request: merchant_id is required');
  });

  it('the issuer page of an unknown order is 404', async () => {
    const a = await client.raw('/_sandbox/issuer/T0', { method: 'GET' });
    expect(a.status).toBe(404);
    expect(a.json.code).toBe('E2001');
  });
});
