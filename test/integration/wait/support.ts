// The real binary started as a child the test talks to while it waits: stdout and stderr kept,
// and what the sandbox was asked (its request log, through onRequest) for the test to wait on.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { SandboxRequestEntry } from '../../../src/sandbox/request-log.js';
import { cliEnv, PAYOPS_BIN, REPO_ROOT } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { admin } from '../pay/support.js';

export interface Running {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

export function start(args: string[], home: string, env: Record<string, string>, input?: string): Running {
  const child = spawn(process.execPath, [PAYOPS_BIN, ...args], {
    cwd: REPO_ROOT,
    env: cliEnv(home, env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out.stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    out.stderr += d;
  });
  child.stdin!.on('error', () => {});
  child.stdin!.end(input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child, out, exited };
}

/** Polls `check` (a cheap look at something observable) until it holds; fails after 60 s. */
export async function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export type LoggedSandbox = TestSandbox & { requests: SandboxRequestEntry[] };

export async function loggedSandbox(): Promise<LoggedSandbox> {
  const requests: SandboxRequestEntry[] = [];
  const sandbox = await startTestSandbox({ onRequest: (e) => requests.push(e) });
  return Object.assign(sandbox, { requests });
}

export interface SandboxOrder {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  payment_status: string;
}

/** The order once the sandbox has it (the payment was created), from its admin list. */
export function orderAtSandbox(url: string, orderNo: string): Promise<SandboxOrder> {
  return until(`order ${orderNo} at the sandbox`, async () =>
    (await admin<SandboxOrder[]>(url, '/_sandbox/orders')).find((o) => o.order_no === orderNo),
  );
}

/** What the shopper does on the issuer page: complete (→ 3000 for APM, 2000 for a card) or fail (→ 6000). */
export async function shopper(
  url: string,
  transactionId: string,
  action: 'complete' | 'fail',
): Promise<void> {
  const res = await fetch(`${url}/_sandbox/issuer/${transactionId}/${action}`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`issuer ${action}: HTTP ${res.status}`);
}

/**
 * One event appended to <home>/state/events/events.jsonl exactly as `payops listen` journals it
 * (v, receivedAt, eventId, eventType, createdAt, body: the event's JSON text, design.md §1.9).
 */
export function journalEvent(home: string, eventType: string, data: Record<string, unknown>): void {
  const dir = join(home, 'state', 'events');
  mkdirSync(dir, { recursive: true });
  const eventId = `EV${Math.random().toString(16).slice(2, 14)}`;
  const createdAt = '2026-12-06T01:00:00+0000';
  const body = JSON.stringify({
    event_id: eventId,
    event_type: eventType,
    created_at: createdAt,
    merchant_id: '800001',
    account_id: '800001001',
    data,
    encryption_data: '0'.repeat(64),
  });
  const line = { v: 1, receivedAt: new Date().toISOString(), eventId, eventType, createdAt, body };
  appendFileSync(join(dir, 'events.jsonl'), `${JSON.stringify(line)}\n`);
}

/**
 * A home as a running `payops listen` leaves it: its lock (listen.lock) and an empty journal. The
 * test then writes the events itself (journalEvent), in listen's format.
 */
export function listenerHome(home: string): void {
  mkdirSync(join(home, 'state', 'events'), { recursive: true });
  appendFileSync(join(home, 'state', 'events', 'events.jsonl'), '');
  // The lock as a live listen holds it; its owner is this test process, which is alive.
  const owner = { pid: process.pid, host: hostname(), at: new Date().toISOString() };
  writeFileSync(join(home, 'state', 'events', 'listen.lock'), `${JSON.stringify(owner)}\n`);
}

export const QUERY_PATH = '/v1/retrievalTrans';
