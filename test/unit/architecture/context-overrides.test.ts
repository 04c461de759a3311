// The seam in-process command tests use: main(argv, io, { clientFactory, loadConfig }) runs a
// command against a fake gateway, with no build, no child process and no HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import type { ResolvedConfig } from '../../../src/config/resolve.js';
import { createContext } from '../../../src/context.js';
import { fakeGateway } from '../bulk/fake-gateway.js';
import { fakeIo } from '../output/helpers.js';

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

/** An environment that configures a gateway, so the real config resolution starts no sandbox. */
function gatewayEnv(): NodeJS.ProcessEnv {
  home = mkdtempSync(join(tmpdir(), 'payops-overrides-'));
  return {
    PAYOPS_HOME: home,
    PAYOPS_BASE_URL: 'https://gateway.invalid',
    PAYOPS_MERCHANT_ID: '800001',
    PAYOPS_ACCOUNT_ID: '800001001',
    PAYOPS_SIGN_KEY: 'a-test-sign-key',
  };
}

describe('ContextOverrides', () => {
  it('main() runs a command with the injected client and the real config resolution', async () => {
    const gw = fakeGateway(3);
    const { io, stdout } = fakeIo();
    io.env = gatewayEnv();
    const seen: ResolvedConfig[] = [];
    const code = await main(['query', '--transaction-id', 'T00002', '--output', 'json'], io, {
      clientFactory: (_ctx, config) => {
        seen.push(config);
        return gw.client;
      },
    });
    expect(code).toBe(0);
    expect(gw.calls.map((c) => c.op)).toEqual(['query']);
    expect(gw.calls[0]?.body.transaction_id).toBe('T00002');
    expect(JSON.parse(stdout.text())).toMatchObject([{ transaction_id: 'T00002', order_no: 'O2' }]);
    expect(seen.map((c) => [c.baseUrl, c.sources.base_url])).toEqual([['https://gateway.invalid', 'env']]);
  });

  it('loadConfig replaces the config resolution; the client is built once and not closed by the Context', async () => {
    const gw = fakeGateway(1);
    let closed = 0;
    gw.client.close = async () => {
      closed++;
    };
    const config = { profile: 'test', readOnly: false } as ResolvedConfig;
    let built = 0;
    const { io } = fakeIo();
    const ctx = createContext(
      io,
      {},
      {
        loadConfig: async () => config,
        clientFactory: async (_ctx, c) => {
          expect(c).toBe(config);
          built++;
          return gw.client;
        },
      },
    );
    expect(await ctx.config()).toBe(config);
    expect(await ctx.client()).toBe(gw.client);
    expect(await ctx.client()).toBe(gw.client);
    await ctx.close();
    expect(built).toBe(1);
    expect(closed).toBe(0);
  });
});
