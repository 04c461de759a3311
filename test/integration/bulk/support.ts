// Bulk integration tests: the real binary (child process, never spawnSync — the sandbox lives in
// this process) against a sandbox started here, its admin API, and CSV helpers.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { PAYOPS_BIN, REPO_ROOT } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';

export interface Order {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  payment_status: string;
}

export interface LedgerEntry {
  kind: string;
  transaction_id: string;
  order_no: string;
  amount: string;
  refund_amount?: string;
  refund_reference_id?: string;
  request_id?: string;
}

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * `latency_ms` for tests that signal a run mid-way: each answer takes this long, so a run of a few
 * chunks is still going seconds after the event the test waits on (a refund in the ledger, an
 * intent in the journal), however late a loaded machine delivers the signal. 100–300 ms left well
 * under a second there, and a run could end before its Ctrl-C (issue 25 item 8). A test pays for
 * it only once: the signalled run waits out the one request in flight.
 */
export const MID_RUN_LATENCY_MS = 2_000;

/**
 * Intent records written so far in every journal under PAYOPS_HOME `home`. Not a sign that a
 * request has left: intents are written up to 3×16 chunks ahead of their sends (engine.ts), so a
 * test that needs a request at the gateway waits on the sandbox (ledgerCount) instead.
 */
export function intentsWritten(home: string): number {
  return journalRecords(home, 'intent');
}

/** Records of `type` written so far in every journal under PAYOPS_HOME `home`. */
export function journalRecords(home: string, type: string): number {
  const runs = join(home, 'state', 'runs');
  const pattern = new RegExp(`"type":"${type}"`, 'g');
  let n = 0;
  try {
    for (const id of readdirSync(runs)) {
      try {
        n += (readFileSync(join(runs, id, 'journal.jsonl'), 'utf8').match(pattern) ?? []).length;
      } catch {
        // not created yet
      }
    }
  } catch {
    // no runs yet
  }
  return n;
}

export function tempDir(prefix = 'payops-bulk-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export class Gateway {
  private constructor(readonly sandbox: TestSandbox) {}

  static async start(): Promise<Gateway> {
    return new Gateway(await startTestSandbox());
  }

  get url(): string {
    return this.sandbox.url;
  }

  private async admin(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.url}/_sandbox/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`admin ${path}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  }

  createOrders(count: number, state = '3000', currency = 'USD'): Promise<Order[]> {
    return this.admin('POST', 'orders', { count, state, currency }) as Promise<Order[]>;
  }

  ledger(): Promise<LedgerEntry[]> {
    return this.admin('GET', 'ledger') as Promise<LedgerEntry[]>;
  }

  async faults(config: Record<string, unknown>): Promise<void> {
    await this.admin('POST', 'faults', config);
  }

  async reset(): Promise<void> {
    await this.admin('POST', 'reset', {});
  }

  /** Money movements committed so far: GET /_sandbox/health's count, cheaper to poll than the ledger. */
  async ledgerCount(): Promise<number> {
    return ((await this.admin('GET', 'health')) as { ledger: number }).ledger;
  }

  /**
   * Resolves once the sandbox has no commit_late commit pending: the ledger is then final. Polls the
   * sandbox's own count instead of sleeping out the delay (a loaded machine runs timers late); the
   * deadline is only a safety net against a sandbox that never commits.
   */
  async lateCommitsDone(safetyMs = 30_000): Promise<void> {
    const deadline = Date.now() + safetyMs;
    for (;;) {
      const { late_commits } = (await this.admin('GET', 'health')) as { late_commits: number };
      if (late_commits === 0) return;
      if (Date.now() > deadline)
        throw new Error(`${late_commits} late commits still pending after ${safetyMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  close(): Promise<void> {
    return this.sandbox.close();
  }

  env(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (
        k.startsWith('PAYOPS_') ||
        k === 'NODE_OPTIONS' ||
        k.startsWith('VITEST') ||
        k === 'NODE_EXTRA_CA_CERTS'
      )
        continue;
      env[k] = v;
    }
    return { ...env, ...this.sandbox.env, PAYOPS_HOME: home, NO_COLOR: '1', ...extra };
  }
}

export interface RunOpts {
  env: NodeJS.ProcessEnv;
  /** Send this signal after `afterMs`, or (with `when`) once `when()` is true, checked every 10 ms. */
  signal?: { name: NodeJS.Signals; afterMs: number; when?: () => boolean | Promise<boolean> };
  timeoutMs?: number;
}

export function payops(args: string[], opts: RunOpts): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [PAYOPS_BIN, ...args], {
      cwd: REPO_ROOT,
      env: opts.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timers: NodeJS.Timeout[] = [setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000)];
    if (opts.signal) {
      const { name, afterMs, when } = opts.signal;
      if (when) {
        // One check at a time: a slow one (the sandbox's ledger on a loaded machine) is not overlapped.
        let checking = false;
        let sent = false;
        const poll = setInterval(async () => {
          if (checking || sent) return;
          checking = true;
          try {
            if (await when()) {
              sent = true;
              clearInterval(poll);
              child.kill(name);
            }
          } finally {
            checking = false;
          }
        }, 10);
        timers.push(poll);
      } else timers.push(setTimeout(() => child.kill(name), afterMs));
    }
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const t of timers) {
        clearTimeout(t);
        clearInterval(t);
      }
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin!.on('error', () => {});
    child.stdin!.end();
  });
}

export const REFUND_HEADER = [
  'transaction_id',
  'order_no',
  'currency',
  'amount',
  'refund_amount',
  'refund_reason',
];

export function csvText(header: string[], rows: string[][]): string {
  const cell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return `${[header, ...rows].map((r) => r.map(cell).join(',')).join('\n')}\n`;
}

export function writeCsv(path: string, header: string[], rows: string[][]): string {
  writeFileSync(path, csvText(header, rows));
  return path;
}

export function refundRows(orders: Order[], reason = 'customer request'): string[][] {
  return orders.map((o) => [o.transaction_id, o.order_no, o.currency, o.amount, o.amount, reason]);
}

export function readResults(path: string): Record<string, string>[] {
  return parse(readFileSync(path, 'utf8'), { columns: true, bom: true }) as Record<string, string>[];
}

/** Refund ledger entries per transaction id. */
export function refundsByTransaction(ledger: LedgerEntry[]): Map<string, LedgerEntry[]> {
  const m = new Map<string, LedgerEntry[]>();
  for (const e of ledger) {
    if (e.kind !== 'refund') continue;
    const list = m.get(e.transaction_id) ?? [];
    list.push(e);
    m.set(e.transaction_id, list);
  }
  return m;
}

/** Every row's outcome agrees with the ledger, and nothing was refunded twice. */
export function expectHonest(
  results: Record<string, string>[],
  ledger: LedgerEntry[],
): { succeeded: number; failed: number; other: number; problems: string[] } {
  const moved = refundsByTransaction(ledger);
  const problems: string[] = [];
  let succeeded = 0;
  let failed = 0;
  let other = 0;
  for (const [tid, list] of moved) if (list.length > 1) problems.push(`${tid} refunded ${list.length} times`);
  for (const r of results) {
    const refunded = (moved.get(r.transaction_id!) ?? []).length === 1;
    if (r.outcome === 'succeeded') {
      succeeded++;
      if (!refunded) problems.push(`${r.transaction_id} reported succeeded, not in the ledger`);
    } else if (r.outcome === 'failed') {
      failed++;
      if (refunded) problems.push(`${r.transaction_id} reported failed, but refunded`);
    } else {
      other++;
      problems.push(`${r.transaction_id} outcome ${r.outcome}`);
    }
  }
  return { succeeded, failed, other, problems };
}

/**
 * The set-up every bulk suite shares: one sandbox for the file, reset before each test, and a
 * scratch folder per test (removed after it). Read `suite.gw` and `suite.dir` inside tests.
 */
export function useBulkSuite(): { readonly gw: Gateway; readonly dir: string } {
  let gw: Gateway | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    gw = await Gateway.start();
  });
  afterAll(async () => {
    await gw?.close();
  });
  beforeEach(async () => {
    await gw!.reset();
    dir = tempDir();
  });
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get gw() {
      return gw!;
    },
    get dir() {
      return dir!;
    },
  };
}
