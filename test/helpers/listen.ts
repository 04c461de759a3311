// `payops listen` as a child process for integration tests: started on a free port, its address
// read from its own announcement on stderr, its stdout kept line by line; events signed as the
// gateway signs them (design §1.1, §1.9) and posted to it.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSigner } from '../../src/gateway/signer.js';
import { cliEnv, PAYOPS_BIN, REPO_ROOT } from './run-cli.js';

export const SANDBOX_KEY = 'sandbox-sign-key';

export interface Listener {
  url: string;
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
  /** SIGTERM, then wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startListen(
  home: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<Listener> {
  const proc = spawn(process.execPath, [PAYOPS_BIN, 'listen', '--port', '0', ...args], {
    cwd: REPO_ROOT,
    env: cliEnv(home, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /listening on (http:\/\/\S+?)\/? for/.exec(err);
      if (m) {
        resolve({
          url: m[1]!,
          proc,
          stdout: () => out,
          stderr: () => err,
          exited,
          async stop(signal = 'SIGTERM') {
            proc.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`listen exited (${code}) before listening:\n${err}`)));
  });
}

export interface EventInput {
  event_id: string;
  event_type: string;
  created_at?: string;
  merchant_id?: string;
  account_id?: string;
  data?: Record<string, unknown>;
}

/** A signed event body, as the sandbox would send it. */
export function signedEvent(e: EventInput, key = SANDBOX_KEY): string {
  const body: Record<string, unknown> = {
    event_id: e.event_id,
    event_type: e.event_type,
    created_at: e.created_at ?? '2026-12-06T10:00:00+0000',
    merchant_id: e.merchant_id ?? '800001',
    account_id: e.account_id ?? '800001001',
    data: e.data ?? { order_no: 'ORD-1', amount: '12.50', currency: 'USD', payment_status: '2000' },
  };
  body.encryption_data = createSigner(key).sign(body);
  return JSON.stringify(body);
}

export async function postEvent(url: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, text: await res.text() };
}

export function journalLines(home: string): Array<Record<string, unknown>> {
  try {
    return readFileSync(join(home, 'state', 'events', 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  } catch {
    return [];
  }
}

/** Polls an observable condition (a journal line, a request seen) until it holds; fails after `ms`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
