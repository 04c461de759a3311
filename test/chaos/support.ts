// Shared by the chaos campaigns and the bad-input / secrets integration tests: the real binary run
// as a child process (always asynchronously — the sandbox may live in this very process), a sandbox
// on loopback, its admin API, CSV helpers and a seeded PRNG so a failing campaign can be replayed.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin/payops.js');
export const SIGN_KEY = 'sandbox-sign-key';

/** Where the campaigns leave their JSON summaries (bench/chaos-tables.js reads them); default the temp dir. */
export const SUMMARY_DIR = process.env.CHAOS_SUMMARY_DIR ?? tmpdir();

/** Writes a campaign's JSON summary into SUMMARY_DIR (created when missing); returns its path. */
export function writeSummary(name: string, data: unknown): string {
  mkdirSync(SUMMARY_DIR, { recursive: true });
  const file = join(SUMMARY_DIR, name);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** `small` (default, CI) or `full` (the documented run): CHAOS_SCALE=full npm run test:chaos. */
export const FULL = process.env.CHAOS_SCALE === 'full';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** True when `killAfterMs` fired before the process ended by itself. */
  killed: boolean;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  input?: string | Buffer;
  cwd?: string;
  /** Send `killSignal` (default SIGKILL) this many ms after spawn (crash campaign). */
  killAfterMs?: number;
  /** Or when this resolves (it is told whether the process has exited meanwhile). */
  killWhen?: (exited: () => boolean) => Promise<void>;
  killSignal?: NodeJS.Signals;
  /** Safety net: SIGKILL after this long and report it; default 120 s. */
  timeoutMs?: number;
}

/** Run `node bin/payops.js ...args` to completion. Never spawnSync: an in-process sandbox must keep serving. */
export function runPayops(args: string[], opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
      env: opts.env,
      cwd: opts.cwd ?? ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let killed = false;
    let exited = false;
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    // Killed means: still running when the signal was sent (by the timer or by killWhen).
    const kill =
      opts.killAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            killed = !exited;
            child.kill(opts.killSignal ?? 'SIGKILL');
          }, opts.killAfterMs);
    void opts
      .killWhen?.(() => exited)
      .then(() => {
        if (exited) return;
        killed = true;
        child.kill(opts.killSignal ?? 'SIGKILL');
      });
    const safety = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('exit', () => {
      exited = true;
    });
    child.on('close', (code, signal) => {
      clearTimeout(kill);
      clearTimeout(safety);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: performance.now() - started,
        killed,
      });
    });
    child.stdin!.on('error', () => {});
    child.stdin!.end(opts.input ?? '');
  });
}

/** Environment for the binary: the sandbox's credentials, its own PAYOPS_HOME, no inherited profile. */
export function payopsEnv(baseUrl: string, home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    PAYOPS_HOME: home,
    PAYOPS_BASE_URL: baseUrl,
    PAYOPS_MERCHANT_ID: '800001',
    PAYOPS_ACCOUNT_ID: '800001001',
    PAYOPS_SIGN_KEY: SIGN_KEY,
    NO_COLOR: '1',
    ...extra,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `payops-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

// ------------------------------------------------------------------------------- the sandbox

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
  currency: string;
  amount: string;
  refund_amount?: string;
  refund_reference_id?: string;
  request_id?: string;
  at?: string;
}

export interface FaultConfig {
  mode:
    | 'none'
    | 'error500'
    | 'drop_before_commit'
    | 'drop_after_commit'
    | 'hang'
    | 'garbage'
    | 'bad_signature'
    | 'commit_late'
    | 'status_zero'
    | 'trickle'
    | 'oversize'
    | 'rate_limit';
  rate?: number;
  /** rate_limit only: requests per second accepted. */
  rps?: number;
  latency_ms?: number;
  paths?: string[];
  /** commit_late only: how long after it arrived a hit request is committed. */
  delay_ms?: number;
  /** Restarts the sandbox's fault generator, so a case meets the same pattern when replayed. */
  seed?: number;
}

export class TestSandbox {
  constructor(
    readonly handle: SandboxHandle,
    readonly url = handle.url,
  ) {}

  static async start(): Promise<TestSandbox> {
    return new TestSandbox(await startSandbox({ host: '127.0.0.1', port: 0 }));
  }

  async admin(path: string, body?: unknown): Promise<string> {
    const res = await fetch(`${this.url}/_sandbox/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`sandbox admin ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return text;
  }

  reset(): Promise<string> {
    return this.admin('reset', {});
  }

  faults(config: FaultConfig): Promise<string> {
    return this.admin('faults', config);
  }

  /** Puts the sandbox's clock `offsetMs` ahead of the real one (negative: behind); 0 resets it. */
  clock(offsetMs: number): Promise<string> {
    return this.admin('clock', { offset_ms: offsetMs });
  }

  /** Commits the sandbox has scheduled under commit_late and not applied yet. */
  async lateCommits(): Promise<number> {
    return (JSON.parse(await this.admin('health')) as { late_commits: number }).late_commits;
  }

  async createOrders(count: number, state = '3000', currency = 'USD'): Promise<Order[]> {
    return JSON.parse(await this.admin('orders', { count, state, currency })) as Order[];
  }

  async orders(): Promise<Order[]> {
    return JSON.parse(await this.admin('orders')) as Order[];
  }

  async ledger(): Promise<LedgerEntry[]> {
    return JSON.parse(await this.admin('ledger')) as LedgerEntry[];
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

// ------------------------------------------------------------------------------- CSV and money

export function readCsv(path: string): Record<string, string>[] {
  return parse(readFileSync(path), { columns: true, bom: true, skip_empty_lines: true }) as Record<
    string,
    string
  >[];
}

export function writeCsv(path: string, header: string[], rows: string[][]): void {
  writeFileSync(path, [header.join(','), ...rows.map((r) => r.join(',')), ''].join('\n'));
}

/** A two-decimal amount string ("12.30") as integer cents; the tests create USD orders only. */
export function cents(amount: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount.trim());
  if (!m) throw new Error(`not a USD amount: ${amount}`);
  return BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
}

export function formatCents(c: bigint): string {
  return `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
}

/** mulberry32: small, seeded, good enough to place faults and kills reproducibly. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ------------------------------------------------------------------------------- request counter

export interface CountingProxy {
  url: string;
  /** Paths of every /v1/ request that reached the proxy (i.e. was sent to the gateway). */
  hits: string[];
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of the sandbox that records every gateway request: "nothing was sent"
 * is then a fact observed on the wire, not inferred from the ledger alone.
 */
export async function countingProxy(target: string): Promise<CountingProxy> {
  const { createServer } = await import('node:http');
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => {
      if (req.url?.startsWith('/v1/')) hits.push(req.url);
      const method = req.method ?? 'GET';
      fetch(`${target}${req.url}`, {
        method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/octet-stream' },
        body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
      })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' });
          res.end(Buffer.from(await r.arrayBuffer()));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
