import { describe, expect, it } from 'vitest';
import { noteMoneyMoving } from '../../src/factory.js';
import type { GatewayClient } from '../../src/gateway/client.js';

/** A client that answers everything with nothing: only what reaches it matters here. */
function inert(): GatewayClient & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    baseUrl: 'https://gw.example.com',
    merchantId: 'M',
    accountId: 'A',
    send: async (op) => {
      seen.push(op);
      return {} as never;
    },
    sendBatch: async (op) => {
      seen.push(`batch ${op}`);
      return {} as never;
    },
    raw: async (path) => {
      seen.push(`raw ${path}`);
      return {} as never;
    },
    close: async () => {},
  };
}

describe('noteMoneyMoving (closed stdout exit code, sandbox note)', () => {
  it('notes money-moving operations, batches and raw calls to any path but the read-only ones', async () => {
    const inner = inert();
    let notes = 0;
    const client = noteMoneyMoving(inner, () => notes++);
    expect(client.baseUrl).toBe('https://gw.example.com');
    await client.send('query', {} as never);
    await client.send('refundSearch', {} as never);
    await client.raw('/v1/retrievalTrans', {}, { form: true });
    expect(notes).toBe(0);
    await client.send('payout', {} as never);
    expect(notes).toBe(1);
    await client.sendBatch('refund', []);
    expect(notes).toBe(2);
    await client.raw('/v1/subscription/cancel', {}, { form: false });
    expect(notes).toBe(3);
    // Every call still reaches the client.
    expect(inner.seen).toHaveLength(6);
  });
});
