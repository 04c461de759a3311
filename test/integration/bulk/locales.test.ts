// Issue 14: refund files as LibreOffice writes them in en-US, de-DE and fr-FR (test/fixtures/locales,
// made by its make.sh), through the real binary against the sandbox. Every unambiguous file refunds
// exactly the intended amounts (judged by the sandbox's ledger); every ambiguous or mixed one is
// refused with exit 2, its lines listed, nothing sent. A file's identity is what it means: a German
// copy of an English file, or a Windows-1252 twin of a UTF-8 file, is the same refund run.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LedgerEntry, payops, useBulkSuite } from './support.js';

const suite = useBulkSuite();
const LO = join(import.meta.dirname, '../../fixtures/locales/lo');
const HANDMADE = join(import.meta.dirname, '../../fixtures/locales/handmade');

/** The sheet's rows (make-sheets.py): currency, order amount, refund, as meant (canonical text). */
const INTENDED: Array<[string, string, string]> = [
  ['EUR', '1234.50', '49.99'],
  ['EUR', '12000.00', '12000.00'],
  ['USD', '250.00', '0.50'],
  ['JPY', '12000', '12000'],
  ['USD', '1234567.89', '1000.01'],
];

type Encoding = 'utf-8' | 'windows-1252' | 'utf-16le';

function decode(bytes: Buffer, encoding: Encoding): string {
  return new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes);
}

function encode(text: string, encoding: Encoding): Buffer {
  if (encoding === 'utf-16le') return Buffer.from(text, 'utf16le');
  if (encoding === 'windows-1252') {
    // Only the ASCII ids change; the rest is re-encoded byte for byte from the decoded text.
    const out = Buffer.alloc(text.length);
    const table = new Map<string, number>();
    for (let b = 0; b < 256; b++) table.set(new TextDecoder('windows-1252').decode(Uint8Array.of(b)), b);
    for (let i = 0; i < text.length; i++) out[i] = table.get(text[i]!)!;
    return out;
  }
  return Buffer.from(text, 'utf8');
}

interface Seeded {
  file: string;
  /** Sandbox transaction id per sheet row, in row order. */
  txs: string[];
}

async function createOrder(currency: string, amount: string) {
  const res = await fetch(`${suite.gw.url}/_sandbox/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count: 1, state: '3000', currency, amount }),
  });
  expect(res.ok).toBe(true);
  return ((await res.json()) as Array<{ transaction_id: string; order_no: string }>)[0]!;
}

/**
 * The fixture with its ids replaced by new sandbox orders of the intended amounts (`orders` reuses
 * the orders of another copy). Only the ASCII ids change; the amounts stay as LibreOffice wrote them.
 */
async function seeded(
  name: string,
  encoding: Encoding,
  orders?: Array<{ transaction_id: string; order_no: string }>,
  dir = LO,
): Promise<Seeded & { orders: Array<{ transaction_id: string; order_no: string }> }> {
  let text = decode(readFileSync(join(dir, name)), encoding);
  const ids = [...text.matchAll(/^\uFEFF?(T[A-Z0-9]+)[;,\t]/gm)].map((m) => m[1]!);
  expect(ids.length, name).toBeGreaterThan(0);
  const made = orders ?? [];
  for (let i = 0; i < ids.length; i++) {
    const [currency, amount] = INTENDED[i] ?? ['EUR', '1234.00'];
    made[i] ??= await createOrder(currency!, amount!);
    // Order numbers are ORD-<id> (LibreOffice sheets) or ORD-<digits of the id> (hand-made files).
    text = text
      .replaceAll(`ORD-${ids[i]}`, made[i]!.order_no)
      .replaceAll(`ORD-${ids[i]!.slice(1)}`, made[i]!.order_no)
      .replaceAll(ids[i]!, made[i]!.transaction_id);
  }
  const file = join(suite.dir, name);
  writeFileSync(file, encode(text, encoding));
  return { file, txs: made.map((o) => o.transaction_id), orders: made };
}

function refundsOf(ledger: LedgerEntry[], txs: string[]): Array<string | undefined> {
  return txs.map((tx) => {
    const found = ledger.filter((e) => e.kind === 'refund' && e.transaction_id === tx);
    return found.length === 1 ? found[0]!.refund_amount : `${found.length} refunds`;
  });
}

const UNAMBIGUOUS: Array<[string, Encoding, string[], RegExp]> = [
  ['en-US.csv', 'utf-8', [], /decimal point \(12\.50\): default \(a comma-separated file\)/],
  ['en-US-plain.csv', 'utf-8', [], /decimal point/],
  ['de-DE.csv', 'utf-8', [], /decimal comma \(12,50\): detected: a semicolon-separated file/],
  [
    'de-DE-windows-1252.csv',
    'windows-1252',
    ['--encoding', 'windows-1252'],
    /decimal comma .* · encoding windows-1252/,
  ],
  ['de-DE-plain-tab.csv', 'utf-8', [], /detected: a tab-separated file/],
  ['fr-FR.csv', 'utf-8', [], /decimal comma/],
  ['fr-FR-utf-16.csv', 'utf-16le', [], /decimal comma/],
];

describe('refund files LibreOffice wrote in en-US, de-DE and fr-FR', () => {
  for (const [name, encoding, flags, plan] of UNAMBIGUOUS) {
    it(`${name}: refunds exactly the intended amounts`, async () => {
      const { file, txs } = await seeded(name, encoding);
      const r = await payops(['refund', '--file', file, '--yes', ...flags], { env: suite.gw.env(suite.dir) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(plan);
      expect(refundsOf(await suite.gw.ledger(), txs)).toEqual(INTENDED.map((x) => x[2]));
    });
  }

  for (const [name, lines, message] of [
    ['en-US-ambiguous.csv', [2, 3], /ambiguous: 1234 \(thousands separator\) or 1\.234 \(decimal comma\)/],
    ['de-DE-ambiguous.csv', [2, 3], /"1\.234" has 3 decimals but EUR has 2/],
    ['de-DE-mixed.csv', [4], /"0\.50" has a decimal point, but the file's decimal mark is a comma/],
  ] as const) {
    it(`${name}: refused with exit 2 and its lines; nothing sent`, async () => {
      const { file, txs } = await seeded(name, 'utf-8');
      const before = (await suite.gw.ledger()).length;
      const r = await payops(['refund', '--file', file, '--yes'], { env: suite.gw.env(suite.dir) });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      for (const line of lines) expect(r.stderr).toContain(`${name}:${line} `);
      expect((await suite.gw.ledger()).length).toBe(before);
      expect(refundsOf(await suite.gw.ledger(), txs).every((x) => x === '0 refunds')).toBe(true);
    });
  }

  // Four runs of the binary: a generous bound for a loaded machine.
  it('a German copy of an English file means the same refunds: refused as already processed', {
    timeout: 120_000,
  }, async () => {
    const en = await seeded('en-US-plain.csv', 'utf-8');
    const first = await payops(['refund', '--file', en.file, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(first.code, first.stderr).toBe(0);
    const after = (await suite.gw.ledger()).length;
    // Same orders, same reasons; amounts written 49,99 in a ; file, and in Windows-1252 bytes.
    for (const [name, encoding, flags] of [
      ['de-DE.csv', 'utf-8', []],
      ['de-DE-windows-1252.csv', 'windows-1252', ['--encoding', 'windows-1252']],
      ['fr-FR-utf-16.csv', 'utf-16le', []],
    ] as const) {
      const copy = await seeded(name, encoding, en.orders);
      const again = await payops(['refund', '--file', copy.file, '--yes', ...flags], {
        env: suite.gw.env(suite.dir),
      });
      expect(again.code, `${name}: ${again.stderr}`).toBe(2);
      expect(again.stderr).toMatch(/already processed by run/);
    }
    expect((await suite.gw.ledger()).length).toBe(after);
  });

  it('hand-made files the corpus refused before issue 14 are read as meant', async () => {
    // european-thousands.csv: EUR 1.234,56 in a ; file, refund 5.
    const { file, txs } = await seeded(
      'european-thousands.csv',
      'utf-8',
      [await createOrder('EUR', '1234.56')],
      HANDMADE,
    );
    const r = await payops(['refund', '--file', file, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(refundsOf(await suite.gw.ledger(), txs)).toEqual(['5.00']);
  });
});

describe('refund_reason is required (design.md §1.7)', () => {
  it('a file without the column: exit 2 naming --refund-reason; with it, the plan counts the rows', async () => {
    const order = await createOrder('USD', '10.00');
    const file = join(suite.dir, 'no-reason.csv');
    writeFileSync(
      file,
      `transaction_id,order_no,currency,amount,refund_amount\n${order.transaction_id},${order.order_no},USD,10.00,4.00\n`,
    );
    const refused = await payops(['refund', '--file', file, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/missing column refund_reason/);
    expect(refused.stderr).toMatch(/--refund-reason TEXT/);
    const r = await payops(['refund', '--file', file, '--refund-reason', 'goodwill', '--yes'], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/refund_reason "goodwill" \(--refund-reason\) given to 1 row without one/);
    expect(refundsOf(await suite.gw.ledger(), [order.transaction_id])).toEqual(['4.00']);
  });

  it('one order by flags without a reason: exit 2 naming the flag; nothing sent', async () => {
    const order = await createOrder('USD', '10.00');
    const before = (await suite.gw.ledger()).length;
    const r = await payops(
      [
        'refund',
        '--transaction-id',
        order.transaction_id,
        '--order-no',
        order.order_no,
        '--currency',
        'USD',
        '--amount',
        '10.00',
        '--refund-amount',
        '1.00',
        '--yes',
      ],
      { env: suite.gw.env(suite.dir) },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--refund-reason.*refund_reason is empty/);
    expect((await suite.gw.ledger()).length).toBe(before);
  });

  it('ids a spreadsheet may have rounded get a warning with their line', async () => {
    const file = join(suite.dir, 'rounded.csv');
    writeFileSync(
      file,
      'transaction_id,order_no,currency,amount,refund_amount,refund_reason\n1234567890123450000,O1,USD,10.00,1.00,r\n',
    );
    const r = await payops(['refund', '--file', file, '--dry-run'], { env: suite.gw.env(suite.dir) });
    expect(r.stderr).toMatch(
      /warning: .*rounded\.csv:2: transaction_id 1234567890123450000 has 19 digits ending in zeros: a spreadsheet may have rounded it/,
    );
  });

  it('a missing file is named as given, never as an absolute path', async () => {
    const r = await payops(['refund', '--file', 'nope.csv', '--dry-run'], { env: suite.gw.env(suite.dir) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: nope\.csv: no such file/m);
    expect(r.stderr).not.toContain(suite.dir);
  });
});
