// `payops sandbox` through the real binary (needs `npm run build`): URL on stdout, credentials on
// stderr, clean exit on SIGTERM (0) and SIGINT (130), a non-loopback host refused.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../../bin/payops.js', import.meta.url));
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function start(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'sandbox', ...args], {
    env: { ...process.env, NO_COLOR: '1' },
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
    const timer = setTimeout(() => reject(new Error(`no URL within 10 s; stderr: ${stderr}`)), 10_000);
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

  it('refuses a non-loopback host without --allow-remote (exit 2)', async () => {
    const s = start(['--host', '0.0.0.0', '--port', '0']);
    s.url.catch(() => {});
    const [code] = await s.exit;
    expect(code).toBe(2);
    expect(s.out().stderr).toMatch(/allow-remote/);
  });
});
