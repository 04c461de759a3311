// `payops pay apm --open` (issue 13, item 13): the issuer_url comes from an unsigned answer; anything
// but an http(s) address is not opened, and it is shown terminal-safe for the user to check.
import { afterEach, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { type RecordingServer, startRecordingServer } from '../../helpers/recording-server.js';
import { expectCleanProcess } from './support.js';

expectCleanProcess();

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function payApm(issuerUrl: string) {
  server = await startRecordingServer(() => ({
    contentType: 'application/xml',
    body:
      '<respon><merchant_id>800001</merchant_id><account_id>800001001</account_id><order_no>O1</order_no>' +
      `<amount>50.00</amount><currency>BRL</currency><issuer_url>${issuerUrl}</issuer_url></respon>`,
  }));
  const io = fakeIo({
    env: {
      PAYOPS_BASE_URL: server.url,
      PAYOPS_MERCHANT_ID: '800001',
      PAYOPS_ACCOUNT_ID: '800001001',
      PAYOPS_SIGN_KEY: 'sandbox-sign-key',
      // No browser in a test: the opener is never started, but the address is checked first.
      PAYOPS_NO_OPEN: '1',
    },
  });
  return runMain(
    [
      '--yes',
      'pay',
      'apm',
      '--payment-method',
      'PIX',
      '--amount',
      '50.00',
      '--currency',
      'BRL',
      '--order-no',
      'O1',
      '--open',
    ],
    io,
  );
}

describe('pay apm --open', () => {
  it('an https issuer_url: opened (here: no browser, so it says where to send the shopper)', async () => {
    const r = await payApm('https://issuer.example/pay?id=1&amp;next=2');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('https://issuer.example/pay?id=1&next=2');
    expect(r.stderr).toMatch(/could not open a browser/);
  });

  it('a javascript: or file: issuer_url is not opened, and is shown escaped', async () => {
    const r = await payApm('javascript:alert(1)//\u001b]0;pwned\u0007');
    expect(r.stderr).toMatch(/not an http\(s\) address/);
    expect(r.stderr).toContain('javascript:alert(1)//\\x1b]0;pwned\\x07');
    expect(r.stdout + r.stderr).not.toMatch(/\u001b|\u0007/);
  });
});
