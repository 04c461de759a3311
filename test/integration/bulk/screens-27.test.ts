// Issue 27, items 1–4, on a terminal 80 and 130 columns wide (the real binary under a pty, its
// output applied to a model of the terminal): a failed row's reason is shown whole under its row,
// with the order's amount; the fix file carries each row's outcome and reason and, corrected, runs
// as it is (judged by the ledger); tables never cut ids, amounts, codes, dates or statuses; `runs
// list` is one line per run with its gateway and not_sent, filters, and numbers in JSON.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasScript, type Screen, screenOf, underPty } from '../../helpers/pty-screen.js';
import {
  type Order,
  payops,
  REFUND_HEADER,
  readResults,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from './support.js';

const suite = useBulkSuite();
const RUN_ID = /\b\d{8}-\d{6}-[0-9a-f]{4}\b/;

/** The screen as one line of words: a reason wrapped over lines (or inside a box) reads whole. */
function words(s: Screen): string {
  return s.lines
    .map((l) => l.replace(/[│┌┐└┘├┤┬┴┼─]/g, ' '))
    .join(' ')
    .replace(/\s+/g, ' ');
}

function text(s: Screen): string {
  return s.lines.join('\n');
}

/** Orders made through the sandbox's admin API, with an amount of our choosing (long amounts). */
async function ordersOf(body: Record<string, unknown>): Promise<Order[]> {
  const res = await fetch(`${suite.gw.url}/_sandbox/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(await res.text());
  return (await res.json()) as Order[];
}

/** A refund run with an amount the order does not have (E2002) and an order not captured (E2003). */
async function runWithFailures(columns: number) {
  const ok = await suite.gw.createOrders(2, '3000', 'JPY');
  const [authorised] = await suite.gw.createOrders(1, '2000', 'JPY');
  const rows = refundRows([...ok, authorised!], 'customer request');
  rows[0]![3] = '424';
  rows[0]![4] = '424';
  writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, rows);
  const env = suite.gw.env(suite.dir);
  const run = await underPty(['refund', '--file', 'refunds.csv', '--yes'], { columns, env, cwd: suite.dir });
  const reasons = {
    e2002: `E2002:currency or amount does not match the order: the order is ${ok[0]!.amount} JPY`,
    e2003: "E2003:operation not allowed in the order's state: order is 2000 (authorised)",
  };
  return { ok, authorised: authorised!, env, run, reasons };
}

/** One fabricated journal: runs list reads only the header and the last record. */
function fakeRun(home: string, id: string, header: Record<string, unknown>, last?: Record<string, unknown>) {
  const dir = join(home, 'state', 'runs', id);
  mkdirSync(dir, { recursive: true });
  const lines = [
    {
      ...header,
      type: 'header',
      v: 1,
      runId: id,
      createdAt: `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T${id.slice(9, 11)}:${id.slice(11, 13)}:${id.slice(13, 15)}.000Z`,
    },
    ...(last ? [{ ...last, at: '2026-11-28T10:00:00.000Z' }] : []),
  ];
  writeFileSync(join(dir, 'journal.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

const COUNTS = {
  succeeded: 0,
  already_done: 0,
  skipped: 0,
  failed: 0,
  unknown: 0,
  not_sent: 0,
  duplicated: 0,
};

describe.skipIf(!hasScript)('issue 27 screens', { timeout: 180_000 }, () => {
  for (const columns of [80, 130]) {
    it(`at ${columns} columns: a failed row's reason whole under its row, with the order's amount (item 1)`, async () => {
      const { ok, authorised, env, run, reasons } = await runWithFailures(columns);
      const screen = screenOf(run.raw, columns);
      expect(run.code, run.raw).toBe(1);
      expect(screen.wraps, text(screen)).toEqual([]);
      const runId = RUN_ID.exec(text(screen))?.[0];
      expect(runId).toBeDefined();

      const show = await underPty(['runs', 'show', runId!, '--only', 'failed'], { columns, env });
      const shown = screenOf(show.raw, columns);
      expect(show.code, show.raw).toBe(1);
      for (const s of [screen, shown]) {
        expect(s.wraps, text(s)).toEqual([]);
        // The reason whole, not `E2002:curre…`, and on the line(s) right under its row.
        expect(words(s)).toContain(reasons.e2002);
        expect(words(s)).toContain(reasons.e2003);
        const at = s.lines.findIndex((l) => l.includes(ok[0]!.transaction_id));
        expect(s.lines[at + 1], text(s)).toContain('E2002:');
        // The amount the error is about: the file's 424 beside the refund amount.
        expect(s.lines[at]).toMatch(/\bJPY\b.*\b424\b.*\b424\b/);
        expect(s.lines.some((l) => l.includes(authorised.transaction_id))).toBe(true);
        expect(text(s).replace(/SHA-256 [0-9a-f]+…/, '')).not.toContain('…');
      }
      // The succeeded rows' "0000:Refund accepted" is no reason to read.
      expect(words(screen)).not.toContain('0000:Refund accepted');
    });
  }

  it('the fix file carries payops_outcome and payops_reason and, corrected, runs as it is (item 2)', async () => {
    const { ok, authorised, env, run, reasons } = await runWithFailures(80);
    expect(run.code, run.raw).toBe(1);
    const runId = RUN_ID.exec(run.raw)![0];
    const fix = join(suite.dir, 'fix.csv');
    const out = await payops(['runs', 'show', runId, '--only', 'failed', '--out', fix], { env });
    expect(out.code, out.stderr).toBe(1);
    const rows = readResults(fix);
    expect(Object.keys(rows[0]!)).toEqual([...REFUND_HEADER, 'payops_outcome', 'payops_reason']);
    expect(rows.map((r) => [r.transaction_id, r.payops_outcome, r.payops_reason])).toEqual([
      [ok[0]!.transaction_id, 'failed', reasons.e2002],
      [authorised.transaction_id, 'failed', reasons.e2003],
    ]);
    // Corrected as a person would: the amount the reason names; the order that cannot be refunded
    // taken out. The payops_* columns stay.
    const lines = readFileSync(fix, 'utf8').split('\n');
    const corrected = lines
      .filter((l) => !l.startsWith(authorised.transaction_id))
      .map((l) =>
        l.startsWith(ok[0]!.transaction_id)
          ? l.replace(/,424,424,/, `,${ok[0]!.amount},${ok[0]!.amount},`)
          : l,
      );
    writeFileSync(fix, corrected.join('\n'));
    const before = refundsByTransaction(await suite.gw.ledger());
    expect(before.has(ok[0]!.transaction_id)).toBe(false);
    const again = await payops(['refund', '--file', fix, '--yes'], { env });
    expect(again.code, again.stderr).toBe(0);
    const after = refundsByTransaction(await suite.gw.ledger());
    // Exactly the corrected row, once; nothing else moved.
    expect(after.get(ok[0]!.transaction_id)).toHaveLength(1);
    expect(after.get(ok[0]!.transaction_id)![0]!.refund_amount).toBe(ok[0]!.amount);
    expect(after.has(authorised.transaction_id)).toBe(false);
    expect([...after.values()].flat()).toHaveLength([...before.values()].flat().length + 1);
  });

  it('at 80 columns, long data: query, refunds search, runs show, runs list and bulk results cut no id, amount, status or date (item 3)', async () => {
    const columns = 80;
    // Long statuses ("4100 partially refunded"), dates, a long reason, and one order of a long amount.
    const orders = [
      ...(await suite.gw.createOrders(2)),
      ...(await ordersOf({ count: 1, state: '3000', currency: 'USD', amount: '12345678.90' })),
    ];
    const part = (o: Order) => (Number(o.amount) / 10).toFixed(2);
    const rows = refundRows(orders, 'the customer wrote twice that the parcel never arrived at all').map(
      (r, i) => [...r.slice(0, 4), part(orders[i]!), ...r.slice(5)],
    );
    rows.push(['T9999999991', 'ORD-NOPE-1', 'USD', '10.00', '10.00', 'no such order']);
    writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, rows);
    const env = suite.gw.env(suite.dir);
    const bulk = await underPty(['refund', '--file', 'refunds.csv', '--yes'], {
      columns,
      env,
      cwd: suite.dir,
    });
    const runId = RUN_ID.exec(bulk.raw)![0];
    const ids = orders.map((o) => o.transaction_id).join(',');
    const status = '4100 partially refunded';
    const screens: Array<[string, string[], string[]]> = [
      ['bulk results', [], ['T9999999991', '1234567.89', 'USD', 'E2001:']],
      ['query', ['query', '--transaction-id', ids], [status, 'USD 12,345,678.90']],
      [
        'refunds search',
        ['refunds', 'search', '--transaction-id', ids],
        [status, 'USD 1,234,567.89', 'USD 12,345,678.90'],
      ],
      // The issue's own example: two orders of ordinary amounts, `3000 capt…`, `2026-11-2…`.
      ['query of two', ['query', '--transaction-id', ids.split(',').slice(0, 2).join(',')], [status]],
      ['runs show', ['runs', 'show', runId], ['1234567.89', 'succeeded', 'failed']],
      ['runs list', ['runs', 'list'], [runId, 'finished']],
    ];
    for (const [name, args, values] of screens) {
      const r = args.length === 0 ? bulk : await underPty(args, { columns, env, cwd: suite.dir });
      const s = screenOf(r.raw, columns);
      expect(s.wraps, `${name}\n${text(s)}`).toEqual([]);
      for (const v of values)
        expect(
          s.lines.some((l) => l.includes(v)),
          `${name}: ${v}\n${text(s)}`,
        ).toBe(true);
      if (name !== 'runs list') {
        for (const o of name === 'query of two' ? orders.slice(0, 2) : orders) {
          expect(
            s.lines.some((l) => l.includes(o.transaction_id)),
            `${name}\n${text(s)}`,
          ).toBe(true);
        }
      }
      // A date is shown to the minute, whole.
      if (name.startsWith('query') || name === 'refunds search') {
        expect(text(s), name).toMatch(/\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b/);
      }
      // Nothing cut next to a digit or a status word: `3000 capt…`, `2026-11-2…`.
      expect(text(s).replace(/SHA-256 [0-9a-f]+…/, ''), `${name}\n${text(s)}`).not.toMatch(
        /(\d|refunded|captured|succeeded|failed|finished)…|\d…/,
      );
      expect(text(s), name).not.toMatch(/partially…|\bpart…/);
    }
  });

  for (const columns of [80, 130]) {
    it(`at ${columns} columns: runs list is one line per run with gateway, state and not_sent (item 4)`, async () => {
      const home = suite.dir;
      const gateway = {
        baseUrl: 'https://gateway.example.com',
        merchantId: 'm',
        accountId: 'a',
        profile: 'live',
      };
      fakeRun(
        home,
        '20261127-090000-aaaa',
        { op: 'refund', label: 'big.csv', rows: 2000, ...gateway },
        {
          type: 'interrupted',
          reason: 'interrupted',
          counts: { ...COUNTS, succeeded: 997, failed: 3, not_sent: 1000 },
        },
      );
      fakeRun(
        home,
        '20261127-100000-bbbb',
        { op: 'capture', label: 'c.csv', rows: 4, sandbox: true },
        {
          type: 'finished',
          counts: { ...COUNTS, succeeded: 4 },
        },
      );
      fakeRun(
        home,
        '20261127-110000-cccc',
        { op: 'payout', label: 'p.csv', rows: 3, ...gateway },
        {
          type: 'finished',
          counts: { completed: 2, failed: 1, pending: 0, unknown: 0, unsent: 0 },
        },
      );
      const env = suite.gw.env(home);
      const r = await underPty(['runs', 'list'], { columns, env });
      const s = screenOf(r.raw, columns);
      expect(r.code, r.raw).toBe(0);
      expect(s.wraps, text(s)).toEqual([]);
      const line = (id: string) => s.lines.filter((l) => l.includes(id));
      for (const id of ['20261127-090000-aaaa', '20261127-100000-bbbb', '20261127-110000-cccc']) {
        expect(line(id), text(s)).toHaveLength(1);
      }
      const big = line('20261127-090000-aaaa')[0]!;
      // At 80 columns a long gateway address is the one thing cut, after rows and when are left out.
      expect(big).toMatch(/\brefund\b.*\bgateway\.ex.*\binterrupted\b.*\b997\b.*\b3\b.*\b1,000\b/);
      expect(line('20261127-100000-bbbb')[0]).toMatch(/\bcapture\b.*\bsandbox\b.*\bfinished\b.*\b4\b/);
      expect(
        s.lines.some((l) => /\bnot_?\b/.test(l) || l.includes('not_sent')),
        text(s),
      ).toBe(true);
      // Newest first.
      expect(s.lines.findIndex((l) => l.includes('cccc'))).toBeLessThan(
        s.lines.findIndex((l) => l.includes('aaaa')),
      );
      if (columns === 130) {
        expect(big).toContain('gateway.example.com');
        expect(big).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
      }
    });
  }

  it('runs list: --limit, --state, --op, and numbers as numbers in JSON (item 4)', async () => {
    const home = suite.dir;
    fakeRun(
      home,
      '20261127-090000-aaaa',
      { op: 'refund', label: 'big.csv', rows: 2000, baseUrl: 'https://g.example', profile: 'live' },
      {
        type: 'interrupted',
        reason: 'unreachable',
        counts: { ...COUNTS, succeeded: 997, failed: 3, not_sent: 1000 },
      },
    );
    fakeRun(
      home,
      '20261127-100000-bbbb',
      { op: 'capture', label: 'c.csv', rows: 4, sandbox: true },
      {
        type: 'finished',
        counts: { ...COUNTS, succeeded: 4 },
      },
    );
    fakeRun(
      home,
      '20261127-110000-cccc',
      { op: 'refund', label: 'r.csv', rows: 1, sandbox: true },
      {
        type: 'finished',
        counts: { ...COUNTS, succeeded: 1 },
      },
    );
    const env = suite.gw.env(home);
    const json = async (...args: string[]) => {
      const r = await payops(['runs', 'list', '--output', 'json', ...args], { env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    };
    const all = await json();
    expect(all.map((x) => x.id)).toEqual([
      '20261127-110000-cccc',
      '20261127-100000-bbbb',
      '20261127-090000-aaaa',
    ]);
    expect(all[2]).toMatchObject({
      op: 'refund',
      gateway: 'g.example',
      profile: 'live',
      state: 'stopped: gateway unreachable',
      rows: 2000,
      succeeded: 997,
      failed: 3,
      not_sent: 1000,
      created: '2026-11-27T09:00:00.000Z',
    });
    expect(all[1]).toMatchObject({ gateway: 'sandbox', succeeded: 4, not_sent: 0 });
    expect((await json('--limit', '1')).map((x) => x.id)).toEqual(['20261127-110000-cccc']);
    expect((await json('--op', 'refund')).map((x) => x.id)).toEqual([
      '20261127-110000-cccc',
      '20261127-090000-aaaa',
    ]);
    expect((await json('--state', 'stopped')).map((x) => x.id)).toEqual(['20261127-090000-aaaa']);
    expect((await json('--state', 'finished', '--op', 'refund', '--limit', '5')).map((x) => x.id)).toEqual([
      '20261127-110000-cccc',
    ]);
    const bad = await payops(['runs', 'list', '--state', 'done'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--state takes one of finished, interrupted, unfinished, stopped, running, damaged',
    );
    // A typo of an operation is refused too, not read as "no runs match" (a new user's trial).
    const typo = await payops(['runs', 'list', '--op', 'refunds'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--op takes one of refund, capture, cancel, review, payout, not "refunds"');
  });
});
