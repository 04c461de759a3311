// The sandbox's demo merchant, its accounts and its public sign key: a leaf that the sandbox's
// handlers and its public face (index.ts) both import, so that neither imports the other.

export const SANDBOX_CREDENTIALS = {
  merchantId: '800001',
  accountId: '800001001',
  signKey: 'sandbox-sign-key',
} as const satisfies { merchantId: '800001'; accountId: '800001001'; signKey: 'sandbox-sign-key' };

/** Second demo account, set to auto-capture: approved card payments go straight to 3000. */
export const SANDBOX_AUTO_CAPTURE_ACCOUNT = '800001002';
