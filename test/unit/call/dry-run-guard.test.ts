// The backstop of --dry-run (issue 23 item 6): every client an invocation gets under --dry-run, an
// injected one too, refuses a request that can move money before handing it over; read-only
// look-ups (a bulk dry run's check at the gateway) go through.
import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../../../src/config/resolve.js';
import { createContext } from '../../../src/context.js';
import { UsageError } from '../../../src/errors.js';
import { fakeGateway } from '../bulk/fake-gateway.js';
import { fakeIo } from '../output/helpers.js';

const CONFIG = { profile: 'test', readOnly: false } as ResolvedConfig;

function clientOf(dryRun: boolean) {
  const gw = fakeGateway(2);
  const { io } = fakeIo();
  const ctx = createContext(
    io,
    { dryRun },
    { loadConfig: async () => CONFIG, clientFactory: () => gw.client },
  );
  return { gw, client: ctx.client() };
}

const ELEMENT = { transaction_id: 'T00001', order_no: 'O1', currency: 'USD', amount: '10.00' };

describe('--dry-run: the client refuses what can move money', () => {
  it('a batch, a money-moving send and a raw call to a money-moving or unknown path are refused, nothing reaches the gateway', async () => {
    const { gw, client } = clientOf(true);
    const c = await client;
    await expect(c.sendBatch('capture', [ELEMENT])).rejects.toThrow(UsageError);
    await expect(c.sendBatch('capture', [ELEMENT])).rejects.toThrow(
      /--dry-run sends nothing.*nothing was sent/,
    );
    await expect(c.send('payout', {} as never)).rejects.toThrow(/--dry-run sends nothing/);
    await expect(c.raw('/v1/refund', {}, { form: false })).rejects.toThrow(/--dry-run sends nothing/);
    await expect(c.raw('/v1/subscription/cancel', {}, { form: false })).rejects.toThrow(/--dry-run/);
    expect(gw.calls).toEqual([]);
  });

  it('read-only look-ups go through', async () => {
    const { gw, client } = clientOf(true);
    const c = await client;
    await c.send('query', { transaction_id: 'T00001' } as never);
    expect(gw.calls.map((x) => x.op)).toEqual(['query']);
  });

  it('without --dry-run the same client sends', async () => {
    const { gw, client } = clientOf(false);
    const c = await client;
    await c.sendBatch('capture', [ELEMENT]);
    expect(gw.calls.map((x) => x.op)).toEqual(['capture']);
  });
});
