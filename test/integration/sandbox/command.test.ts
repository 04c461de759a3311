// `payops sandbox` through the real binary (needs `npm run build`): URL on stdout, credentials on
// stderr, clean exit on SIGTERM (0) and SIGINT (130), a non-loopback host refused.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { signed } from './helpers.js';
import { Receiver } from './notify-receiver.js';

const BIN = fileURLToPath(new URL('../../../bin/payops.js', import.meta.url));
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'sandbox', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const url = new Promise<string>((resolve, reject) => {
    // A safety net on an event it watches for (the URL line): a start on a loaded machine takes seconds.
    const timer = setTimeout(() => reject(new Error(`no URL within 30 s; stderr: ${stderr}`)), 30_000);
    const check = () => {
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    };
    child.stdout.on('data', check);
    child.on('exit', () => reject(new Error(`exited early: ${stderr}`)));
  });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, url, exit, out: () => ({ stdout, stderr }) };
}

describe('payops sandbox', () => {
  it('prints its URL, serves, and exits 0 on SIGTERM', async () => {
    const s = start(['--port', '0', '--seed', '10', '--samples']);
    const url = await s.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${url}/_sandbox/health`);
    expect(await health.json()).toMatchObject({ status: 'ok', orders: 70 });
    s.child.kill('SIGTERM');
    const [code] = await s.exit;
    expect(code).toBe(0);
    const { stdout, stderr } = s.out();
    expect(stdout.trim()).toBe(url);
    expect(stderr).toContain('800001');
    expect(stderr).toContain('800001001');
  });

  // Issue 15: how to point payops at it, once, and one line per request, like `stripe listen`.
  it('prints the export lines and logs one line per request (none with --quiet)', async () => {
    const demo = {
      PAYOPS_MERCHANT_ID: '800001',
      PAYOPS_ACCOUNT_ID: '800001001',
      PAYOPS_SIGN_KEY: 'sandbox-sign-key',
    };
    // A shell that already ran the exports: the log masks that key, the announcement must not.
    const s = start(['--port', '0', '--samples'], demo);
    const url = await s.url;
    // stderr and stdout are two pipes: the announcement may arrive after the URL.
    await expect.poll(() => s.out().stderr, { timeout: 30_000 }).toContain('Requests are logged');
    const { stderr: banner } = s.out();
    expect(banner).toContain(`  export PAYOPS_BASE_URL=${url}\n`);
    expect(banner).toContain('  export PAYOPS_MERCHANT_ID=800001\n');
    expect(banner).toMatch(/^ {2}export PAYOPS_ACCOUNT_ID=800001001\b/m);
    expect(banner).toMatch(/^ {2}export PAYOPS_SIGN_KEY=sandbox-sign-key\b/m);
    expect(banner).toContain('payops query --order-no ORD-1001');
    expect(banner.split(url).length - 1).toBe(1);

    const q = await runCli(['query', '--order-no', 'ORD-1001', '--output', 'json'], {
      env: { ...demo, PAYOPS_BASE_URL: url },
    });
    expect(q.code, q.stderr).toBe(0);
    await fetch(`${url}/v1/nowhere`, { method: 'POST', body: '{}' });
    await expect.poll(() => s.out().stderr, { timeout: 30_000 }).toMatch(/nowhere/);
    const lines = s.out().stderr.slice(banner.length).trim().split('\n');
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d {2}POST \/v1\/retrievalTrans {2}200 ok · 1 order · \d+ ms$/);
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d {2}POST \/v1\/nowhere {2}404 E1005 · \d+ ms$/);
    // Built from the answer, never the request: no order number, no signature.
    expect(lines.join('\n')).not.toMatch(/ORD-1001|encryption_data/);
    s.child.kill('SIGTERM');
    await s.exit;

    const quiet = spawn(process.execPath, [BIN, '--quiet', 'sandbox', '--port', '0'], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    children.push(quiet);
    let out = '';
    let err = '';
    quiet.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    quiet.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    await expect.poll(() => out, { timeout: 30_000 }).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n/);
    const quietUrl = out.trim();
    await fetch(`${quietUrl}/_sandbox/health`);
    quiet.kill('SIGTERM');
    await once(quiet, 'exit');
    expect(err).not.toMatch(/health|export/);
  });

  it('exits 130 on SIGINT', async () => {
    const s = start(['--port', '0']);
    await s.url;
    s.child.kill('SIGINT');
    const [code] = await s.exit;
    expect(code).toBe(130);
  });

  it('a port in use is a usage error (exit 2) with a hint', async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const s = start(['--port', String(port)]);
      s.url.catch(() => {});
      const [code] = await s.exit;
      expect(code).toBe(2);
      expect(s.out().stderr).toMatch(/EADDRINUSE/);
      expect(s.out().stderr).toMatch(/--port 0/);
    } finally {
      busy.close();
    }
  });

  it('--notify-retries and --notify-timeout set the delivery schedule; a bad one is a usage error (exit 2)', async () => {
    const s = start([
      '--port',
      '0',
      '--quiet',
      '--notify-retries',
      '20ms,1s,2m',
      '--notify-timeout',
      '500ms',
    ]);
    const url = await s.url;
    const settings = await (await fetch(`${url}/_sandbox/notify-faults`)).json();
    expect(settings).toMatchObject({ retries_ms: [20, 1000, 120_000], timeout_ms: 500, drop: false });
    s.child.kill('SIGTERM');
    expect((await s.exit)[0]).toBe(0);
    const none = start(['--port', '0', '--notify-retries', 'none']);
    const noneUrl = await none.url;
    expect(await (await fetch(`${noneUrl}/_sandbox/notify-faults`)).json()).toMatchObject({ retries_ms: [] });
    none.child.kill('SIGTERM');
    await none.exit;
    for (const bad of [
      ['--notify-retries', '20,40'],
      ['--notify-retries', '1s,,2s'],
      ['--notify-timeout', '0s'],
    ]) {
      const b = start(['--port', '0', ...bad]);
      b.url.catch(() => {});
      const [code] = await b.exit;
      expect(code).toBe(2);
      expect(b.out().stderr).toContain(bad[0]);
    }
  });

  it('logs one line per notification attempt, naming the receiver by its origin alone', async () => {
    const receiver = await Receiver.start((r) => (r.n === 1 ? 503 : 200));
    try {
      const s = start(['--port', '0', '--notify-retries', '10ms']);
      const url = await s.url;
      const body = signed({
        order_no: `LOG-${Date.now()}`,
        currency: 'USD',
        amount: '5.00',
        card: '4242424242424242',
        expiration_month: '12',
        expiration_year: String(new Date().getUTCFullYear() + 2),
        security_code: '123',
        notify_url: `${receiver.url}?token=s3cret`,
      });
      await fetch(`${url}/v1/authorise`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const origin = new URL(receiver.url).origin;
      await expect
        .poll(() => s.out().stderr, { timeout: 30_000 })
        .toMatch(new RegExp(`notify payment\\.approved T\\d+ → ${origin}  200 · attempt 2 · \\d+ ms`));
      expect(s.out().stderr).toMatch(
        new RegExp(`notify payment\\.approved T\\d+ → ${origin}  503 · \\d+ ms`),
      );
      expect(s.out().stderr).not.toContain('s3cret');
      s.child.kill('SIGTERM');
      await s.exit;
    } finally {
      await receiver.close();
    }
  });

  it('refuses a non-loopback host without --allow-remote (exit 2)', async () => {
    const s = start(['--host', '0.0.0.0', '--port', '0']);
    s.url.catch(() => {});
    const [code] = await s.exit;
    expect(code).toBe(2);
    expect(s.out().stderr).toMatch(/allow-remote/);
  });
});
