// Starts the real sandbox gateway on an ephemeral loopback port for a test, and the environment
// that points the CLI at it with the demo credentials.
import {
  SANDBOX_CREDENTIALS,
  type SandboxHandle,
  type SandboxOptions,
  startSandbox,
} from '../../src/sandbox/index.js';

export type TestSandbox = SandboxHandle & {
  /** PAYOPS_* variables for runCli. */
  env: Record<string, string>;
};

export async function startTestSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const handle = await startSandbox({ port: 0, ...opts });
  return Object.assign(handle, {
    env: {
      PAYOPS_BASE_URL: handle.url,
      PAYOPS_MERCHANT_ID: SANDBOX_CREDENTIALS.merchantId,
      PAYOPS_ACCOUNT_ID: SANDBOX_CREDENTIALS.accountId,
      PAYOPS_SIGN_KEY: SANDBOX_CREDENTIALS.signKey,
      // A lost request is concluded at once: the sandbox commits late only when a test asks
      // (fault mode commit_late), and those tests give --settle-time themselves.
      PAYOPS_SETTLE_TIME: '0',
    },
  });
}

/** Run `fn` against a fresh sandbox, closed afterwards whatever happens. */
export async function withSandbox<T>(
  fn: (sandbox: TestSandbox) => Promise<T>,
  opts: SandboxOptions = {},
): Promise<T> {
  const sandbox = await startTestSandbox(opts);
  try {
    return await fn(sandbox);
  } finally {
    await sandbox.close();
  }
}
