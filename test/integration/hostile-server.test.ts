// Issue 13, items 2, 3, 14 and 15, through the real binary: a server that trickles its answer, one
// that sends far more than any answer, a proxy that asks for credentials, a base_url that answers
// with a redirect — for a query and for a bulk refund, judged by the sandbox's ledger.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AuthProxy,
  type HostileServer,
  startAuthProxy,
  startHostileServer,
} from '../helpers/hostile-server.js';
import {
  expectHonest,
  intentsWritten,
  journalRecords,
  payops,
  REFUND_HEADER,
  readResults,
  refundRows,
  useBulkSuite,
  writeCsv,
} from './bulk/support.js';

const suite = useBulkSuite();
const MiB = 1024 * 1024;

const closing: Array<HostileServer | AuthProxy> = [];
afterEach(async () => {
  for (const s of closing.splice(0)) await s.close();
});
async function hostile(...args: Parameters<typeof startHostileServer>) {
  const s = await startHostileServer(...args);
  closing.push(s);
  return s;
}

/** A refund file of `n` captured sandbox orders, each refunded in full. */
async function refundFile(n: number): Promise<{ file: string; ids: string[] }> {
  const orders = await suite.gw.createOrders(n);
  const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
  return { file, ids: orders.map((o) => o.transaction_id) };
}

/** One run of the file, judged by the ledger: every row succeeded, each order refunded once. */
async function expectRefundedOnce(file: string, ids: string[], extra: string[]) {
  const out = join(suite.dir, 'results.csv');
  const started = performance.now();
  const r = await payops(['refund', '--file', file, '--yes', '--out', out, ...extra], {
    env: suite.gw.env(suite.dir),
  });
  expect(r.code, r.stderr).toBe(0);
  const results = readResults(out);
  expect(results.map((x) => x.transaction_id)).toEqual(ids);
  const honest = expectHonest(results, await suite.gw.ledger());
  expect(honest.problems).toEqual([]);
  expect(honest.succeeded).toBe(ids.length);
  return { r, ms: performance.now() - started };
}

const query = (url: string, extra: string[] = [], env: Record<string, string> = {}) =>
  payops(['query', '--order-no', 'ORD-1', ...extra], {
    env: suite.gw.env(suite.dir, { PAYOPS_BASE_URL: url, ...env }),
  });

describe('item 2: an answer trickled a byte at a time (each byte well within --timeout)', () => {
  it('query: --timeout bounds the whole exchange — one clear error after the policy’s attempts', async () => {
    const server = await hostile((_r, res, t) => t.trickle(res, 300));
    const started = performance.now();
    // A duration with its unit, as --settle-time takes it: the same 2,000 ms.
    const r = await query(server.url, ['--timeout', '2s']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/no complete answer within 2000 ms/);
    expect(server.requests.length).toBe(3);
    // Before: alive past 25 s (the test's own limit would have killed it).
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('bulk refund: every answer trickled — each lost answer settled at the gateway, every order refunded once', async () => {
    const { file, ids } = await refundFile(120);
    await suite.gw.faults({ mode: 'trickle', paths: ['/v1/refund'] });
    const { ms } = await expectRefundedOnce(file, ids, ['--timeout', '1000']);
    // Three chunks, each lost to the deadline and found applied by refund search.
    expect(journalRecords(suite.dir, 'unknown')).toBe(3);
    expect(ms).toBeLessThan(30_000);
  });
});

describe('item 3: an answer far larger than any gateway answer', () => {
  it('query: cut off at 4 MiB, asked no more often than the retry policy says, one clear error', async () => {
    const server = await hostile((_r, res, t) => t.flood(res, 64 * MiB));
    const r = await query(server.url);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/larger than 4 MiB/);
    // "Downloaded three times": the policy's three attempts — each stopped near 4 MiB, not 64.
    expect(server.requests.length).toBe(3);
    expect(server.bytesWritten).toBeLessThan(3 * 12 * MiB);
  });

  it('bulk refund: an oversized answer is a lost answer, settled at the gateway — every order refunded once', async () => {
    const { file, ids } = await refundFile(120);
    await suite.gw.faults({ mode: 'oversize', paths: ['/v1/refund'] });
    await expectRefundedOnce(file, ids, []);
    expect(journalRecords(suite.dir, 'unknown')).toBe(3);
  });
});

describe('item 14: a proxy that asks for authentication (HTTP 407)', () => {
  const env = (proxy: AuthProxy, credentials: boolean) => ({
    HTTPS_PROXY: credentials ? proxy.url.replace('http://', 'http://alice:hunter2@') : proxy.url,
    // The gateway is remote (a loopback one never goes through a proxy); it is never reached.
    PAYOPS_BASE_URL: 'https://gateway.invalid',
  });

  it('query: exit 4 naming the proxy and what to do — not "interrupted", no password shown', async () => {
    const proxy = await startAuthProxy();
    closing.push(proxy);
    const bare = await query('https://gateway.invalid', [], env(proxy, false));
    expect(bare.code, bare.stderr).toBe(4);
    expect(bare.stderr).toContain(`the proxy at ${proxy.url.slice(7)} asked for authentication`);
    expect(bare.stderr).toMatch(/HTTPS_PROXY=http:\/\/user:password@/);
    expect(bare.stderr).not.toMatch(/interrupted/);

    const wrong = await query('https://gateway.invalid', ['--debug'], env(proxy, true));
    expect(wrong.code, wrong.stderr).toBe(4);
    expect(wrong.stderr).toContain('refused the credentials in HTTPS_PROXY');
    expect(`${wrong.stdout}${wrong.stderr}`).not.toMatch(/hunter2|alice/);
    // Asked once each: a proxy asking for credentials is not asked again.
    expect(proxy.connects).toHaveLength(2);
  });

  it('bulk refund: exit 4 before any run — nothing sent, no row unknown or interrupted', async () => {
    const proxy = await startAuthProxy();
    closing.push(proxy);
    const { file } = await refundFile(60);
    const out = join(suite.dir, 'results.csv');
    const r = await payops(['refund', '--file', file, '--yes', '--out', out], {
      env: suite.gw.env(suite.dir, env(proxy, true)),
    });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('refused the credentials in HTTPS_PROXY');
    expect(r.stderr).not.toMatch(/interrupted|hunter2|alice/);
    expect(intentsWritten(suite.dir)).toBe(0);
    if (existsSync(out)) expect(readResults(out).filter((x) => x.outcome === 'unknown')).toEqual([]);
    expect(await suite.gw.ledger()).toEqual([]);
  });
});

describe('item 15: a base_url answered with a redirect', () => {
  it('query: exit 4, where it points and the base_url to set — not "could not be read"', async () => {
    const target = suite.gw.url;
    const server = await hostile((req, res) =>
      res.writeHead(308, { location: `${target}${req.path}` }).end(),
    );
    const r = await query(server.url);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`redirect (HTTP 308 Permanent Redirect) to ${target}/v1/retrievalTrans`);
    expect(r.stderr).toContain(`if ${target} is your gateway's address, set base_url to it`);
    expect(r.stderr).not.toMatch(/could not be read/);
    expect(server.requests).toHaveLength(1);
  });

  it('bulk refund, everything redirected: exit 4 before any run, nothing sent', async () => {
    const target = suite.gw.url;
    const server = await hostile((req, res) =>
      res.writeHead(301, { location: `${target}${req.path}` }).end(),
    );
    const { file } = await refundFile(60);
    const r = await payops(['refund', '--file', file, '--yes'], {
      env: suite.gw.env(suite.dir, { PAYOPS_BASE_URL: server.url }),
    });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`if ${target} is your gateway's address, set base_url to it`);
    expect(intentsWritten(suite.dir)).toBe(0);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('bulk refund, only the refund path redirected (307): not processed — rows not sent, never unknown; exit 4', async () => {
    const target = suite.gw.url;
    const server = await hostile((req, res, t) => {
      if (req.path === '/v1/refund') res.writeHead(307, { location: `${target}${req.path}` }).end();
      else t.forward(req, res, target);
    });
    const { file } = await refundFile(60);
    const out = join(suite.dir, 'results.csv');
    const r = await payops(['refund', '--file', file, '--yes', '--out', out], {
      env: suite.gw.env(suite.dir, { PAYOPS_BASE_URL: server.url }),
    });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`if ${target} is your gateway's address, set base_url to it`);
    expect(await suite.gw.ledger()).toEqual([]);
    // A definite refusal: nothing to reconcile, the rows left for a resumed run.
    expect(journalRecords(suite.dir, 'unknown')).toBe(0);
    const outcomes = new Set(readResults(out).map((x) => x.outcome));
    expect([...outcomes]).toEqual(['not_sent']);
    // The address is wrong, not the credentials: neither the summary nor the rows say otherwise.
    expect(r.stderr).toContain('stopped: the gateway address or the proxy needs fixing');
    expect(r.stderr).not.toMatch(/credentials/);
    expect(
      readResults(out).every((x) => /fix the address, then resume the run/.test(x.outcome_detail ?? '')),
    ).toBe(true);
  });
});
