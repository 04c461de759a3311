import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { withSandbox } from '../helpers/sandbox.js';

describe('payops call against the sandbox', () => {
  it('runs against a sandbox started by the test, with the demo credentials from the environment', async () => {
    await withSandbox(async (sandbox) => {
      const r = await runCli(['--yes', 'call', '/v1/retrievalRefund', '--data', 'order_no=NOPE-1'], {
        env: sandbox.env,
      });
      expect(r.stderr).toContain('signature verified');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).return_status).toBe('1');
    });
  });

  it('--sandbox starts an in-process sandbox and signs with its demo key', async () => {
    const r = await runCli([
      '--sandbox',
      '--yes',
      'call',
      '/v1/capture',
      '--data',
      'capture_orders[0].order_no=NOPE-1',
      '--data',
      'capture_orders[0].transaction_id=T-NOPE',
      '--data',
      'capture_orders[0].currency=USD',
      '--data',
      'capture_orders[0].amount=1.00',
    ]);
    expect(r.stderr).toContain('signature verified');
    // The order does not exist: refused per order (capture_status 0), which exits 1 (issue 23 item 9).
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).capture_orders[0].capture_status).toBe('0');
  });

  it('uses the built-in sandbox, and says so, when no gateway is configured at all', async () => {
    const r = await runCli(['--yes', 'call', '/v1/retrievalTrans', '--data', 'order_no=NOPE-1']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no gateway configured: using the built-in sandbox');
    expect(JSON.parse(r.stdout).return_status).toBe('1');
  });
});
