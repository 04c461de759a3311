// pay card|apm|checkout through the real binary against a sandbox in this process.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TEST_TOKEN } from '../../../src/sandbox/index.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { CARDS, health, setFaults } from './support.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const ORDER = ['--amount', '12.50', '--currency', 'USD', '--expiry', '12/2035'];

function payCard(card: string, extra: string[] = [], code = '123') {
  return runCli(['--yes', '--output', 'json', 'pay', 'card', ...ORDER, ...extra], {
    env: sandbox.env,
    input: `${card}\n${code}\n`,
  });
}

describe('pay card: the test cards of design.md §1.5', { timeout: 90_000 }, () => {
  it.each([
    ['approved', CARDS.approved, 0, 'approved', '1', '0000'],
    ['declined', CARDS.declined, 1, 'declined', '0', 'E3001'],
    ['insufficient funds', CARDS.insufficient, 1, 'declined', '0', 'E3002'],
    ['3-D Secure challenge', CARDS.threeDs, 3, 'pending', '2', 'E3003'],
    ['held for review', CARDS.review, 3, 'pending', '2', '0000'],
  ])('%s (card %s) → exit %i', async (_name, card, exit, outcome, orderStatus, code) => {
    const r = await payCard(card);
    expect(r.stderr).not.toContain(card);
    expect(r.code, r.stderr).toBe(exit);
    const out = JSON.parse(r.stdout);
    expect(out.outcome).toBe(outcome);
    expect(out.result.order_status).toBe(orderStatus);
    expect(out.result.result_info.startsWith(`${code}:`)).toBe(true);
    expect(out.masked_card).toBe(`${card.slice(0, 6)}******${card.slice(-4)}`);
    expect(out.result.transaction_id).toMatch(/^T\d+/);
    expect(out.order_no).toMatch(/^PO-\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(r.stderr).toContain(`order_no ${out.order_no} (generated)`);
  });

  // design.md §1.1 (issue 24): risk_reasons is a list, signed `risk_reasons[0].name` even with one;
  // the client verifies the sandbox's signature with one reason and with two.
  it.each([
    ['one risk reason', CARDS.approved, 0, [{ name: 'ip_country_match', status: 'ACCEPT' }]],
    [
      'two risk reasons',
      CARDS.review,
      3,
      [
        { name: 'amount_velocity', status: 'REVIEW' },
        { name: 'ip_country_match', status: 'ACCEPT' },
      ],
    ],
  ])('%s: signature verified, risk_reasons a list', async (_name, card, exit, reasons) => {
    const r = await runCli(['--yes', '--output', 'json', 'pay', 'card', ...ORDER], {
      env: sandbox.env,
      input: `${card}\n123\n`,
    });
    expect(r.code, r.stderr).toBe(exit);
    expect(JSON.parse(r.stdout).result.risk_reasons).toEqual(reasons);
    expect(r.stderr).not.toMatch(/signature/i);
  });

  it('a past expiry is refused here, nothing sent (issue 27: it was sent and declined with E3004)', async () => {
    const before = await health(sandbox.url);
    const lastMonth = new Date();
    lastMonth.setDate(1);
    lastMonth.setMonth(lastMonth.getMonth() - 1);
    const mm = String(lastMonth.getMonth() + 1).padStart(2, '0');
    for (const expiry of ['01/20', `${mm}/${lastMonth.getFullYear()}`]) {
      const r = await runCli(
        [
          '--yes',
          '--output',
          'json',
          'pay',
          'card',
          '--amount',
          '5',
          '--currency',
          'EUR',
          '--expiry',
          expiry,
        ],
        { env: sandbox.env, input: `${CARDS.approved}\n123\n` },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/the card expired at the end of \d\d\/20\d\d; nothing was sent/);
      expect(r.stderr).toContain('--expiry');
    }
    // Nothing reached the gateway: no order was created.
    expect((await health(sandbox.url)).orders).toBe(before.orders);
    // This month is still good: the card runs to the end of it.
    const now = new Date();
    const thisMonth = `${String(now.getMonth() + 1).padStart(2, '0')}/${now.getFullYear()}`;
    const ok = await runCli(
      [
        '--yes',
        '--output',
        'json',
        'pay',
        'card',
        '--amount',
        '5',
        '--currency',
        'EUR',
        '--expiry',
        thisMonth,
      ],
      { env: sandbox.env, input: `${CARDS.approved}\n123\n` },
    );
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('a 3-D Secure payment left pending gets its next step; one held for review too (issue 27)', async () => {
    const challenged = await runCli(['--yes', '--output', 'table', 'pay', 'card', ...ORDER], {
      env: sandbox.env,
      input: `${CARDS.threeDs}\n123\n`,
    });
    expect(challenged.code, challenged.stderr).toBe(3);
    const card = challenged.stdout;
    expect(card).toMatch(/Next step\n\s+why\s+the card needs a 3-D Secure challenge/);
    expect(card).toContain('payops pay checkout --amount 12.50 --currency USD --open');
    expect(card).toMatch(/stays pending, nothing charged: payops query --order-no PO-\S+/);
    const review = await runCli(['--yes', '--output', 'table', 'pay', 'card', ...ORDER], {
      env: sandbox.env,
      input: `${CARDS.review}\n123\n`,
    });
    expect(review.code, review.stderr).toBe(3);
    expect(review.stdout).toMatch(/Next step\n\s+why\s+the gateway holds the payment for review/);
    expect(review.stdout).toMatch(/its outcome\s+later with payops query --order-no PO-\S+/);
  });

  it('shows risk, 3-D Secure and recurring fields on the card', async () => {
    const r = await runCli(
      [
        '--yes',
        '--output',
        'table',
        'pay',
        'card',
        '--request',
        'samples/card-request.json',
        '--expiry',
        '12/2035',
        '--order-no',
        `T-${Date.now()}`,
      ],
      { env: sandbox.env, input: `${CARDS.approved}\n123\n` },
    );
    expect(r.code, r.stderr).toBe(0);
    for (const text of [
      'Payment approved',
      '1 approved',
      '424242******4242',
      'threeds_result',
      'authenticated',
      'risk_action',
      'ACCEPT',
      'risk_reasons',
      'Mug of the month',
      'recurring_id',
    ]) {
      expect(r.stdout).toContain(text);
    }
    // The next deduction as every date is shown: local time with its offset, and ISO 8601 UTC
    // (design.md §1.6), never the gateway's bare 20261128135024 (issue 27).
    expect(r.stdout).toMatch(
      /recurring_deduction_time\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d {2}\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/,
    );
    expect(r.stdout).not.toMatch(/\b\d{14}\b/);
    // And on the order's card from `query`.
    const orderNo = /order_no\s+(T-\d+)/.exec(r.stdout)![1]!;
    const q = await runCli(['--output', 'table', 'query', orderNo], { env: sandbox.env });
    expect(q.code, q.stderr).toBe(0);
    expect(q.stdout).toMatch(/next deduction\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d {2}\(/);
  });

  it('refuses a card number given as an argument, before anything is sent', async () => {
    const before = await health(sandbox.url);
    // A card number anywhere, or a card field whatever its value (issue 13: the field is named).
    for (const [args, why] of [
      [['pay', 'card', ...ORDER, CARDS.approved], /looks like a card number/],
      [['pay', 'card', ...ORDER, '--note', '4242 4242 4242 4242'], /\(--note\) looks like a card number/],
      [['pay', 'card', ...ORDER, '--card=4242-4242-4242-4242'], /\(--card\) is a card field/],
      [['pay', CARDS.approved], /looks like a card number/],
    ] as const) {
      const r = await runCli(['--yes', ...args], { env: sandbox.env, input: `${CARDS.approved}\n123\n` });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).toMatch(/stdin/);
      expect(r.stderr + r.stdout).not.toMatch(/4242[ -]?4242[ -]?4242[ -]?4242/);
    }
    expect((await health(sandbox.url)).orders).toBe(before.orders);
  });

  it('refuses card data inside --request and invalid card input, sending nothing', async () => {
    const dir = tempDir();
    const file = join(dir, 'req.json');
    writeFileSync(
      file,
      JSON.stringify({ amount: '1', currency: 'USD', card: CARDS.approved, security_code: '123' }),
    );
    const before = await health(sandbox.url);
    const a = await runCli(['--yes', 'pay', 'card', '--request', file, '--expiry', '12/2035'], {
      env: sandbox.env,
      input: `${CARDS.approved}\n123\n`,
    });
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/card data is never read from a file/);
    const b = await payCard('4242424242424241');
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/Luhn/);
    const c = await payCard(CARDS.approved, [], '12');
    expect(c.code).toBe(2);
    const d = await runCli(['--yes', 'pay', 'card', ...ORDER], { env: sandbox.env, input: '' });
    expect(d.code).toBe(2);
    expect(d.stderr).toMatch(/no card number on stdin/);
    const e = await runCli(
      ['--yes', 'pay', 'card', '--amount', '1,50', '--currency', 'USD', '--expiry', '12/2035'],
      {
        env: sandbox.env,
        input: `${CARDS.approved}\n123\n`,
      },
    );
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/amount/);
    expect((await health(sandbox.url)).orders).toBe(before.orders);
  });

  it('checks --out before paying, and writes the result there', async () => {
    const before = await health(sandbox.url);
    const bad = await runCli(['--yes', '--out', '/nonexistent-dir/r.json', 'pay', 'card', ...ORDER], {
      env: sandbox.env,
      input: `${CARDS.approved}\n123\n`,
    });
    expect(bad.code).toBe(2);
    expect((await health(sandbox.url)).orders).toBe(before.orders);
    const out = join(tempDir(), 'result.json');
    const ok = await runCli(['--yes', '--out', out, 'pay', 'card', ...ORDER], {
      env: sandbox.env,
      input: `${CARDS.approved}\n123\n`,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({
      outcome: 'approved',
      masked_card: '424242******4242',
    });
    expect(ok.stderr).toContain('Payment approved');
  });

  it('a note with edge spaces, markup characters and non-ASCII text is verified as sent (issue 16)', async () => {
    const note = '  padded & <café> "東京" \'x\'  ';
    const r = await payCard(CARDS.approved, ['--note', note]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.outcome).toBe('approved');
    expect(out.result.note).toBe(note);
  });

  it('--token-id charges the stored test token: no card number asked, approved, token echoed (issue 16)', async () => {
    const before = await health(sandbox.url);
    const r = await runCli(
      [
        '--yes',
        '--output',
        'json',
        'pay',
        'card',
        '--amount',
        '9.99',
        '--currency',
        'EUR',
        '--token-id',
        SANDBOX_TEST_TOKEN,
      ],
      { env: sandbox.env, input: '' },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.outcome).toBe('approved');
    expect(out.result.token_id).toBe(SANDBOX_TEST_TOKEN);
    expect(out.masked_card).toBe('424242******4242');
    expect((await health(sandbox.url)).orders).toBe(before.orders + 1);
    // An unknown token is refused by the gateway (nothing charged).
    const bad = await runCli(
      [
        '--yes',
        '--output',
        'json',
        'pay',
        'card',
        '--amount',
        '9.99',
        '--currency',
        'EUR',
        '--token-id',
        'TK-NOPE',
      ],
      { env: sandbox.env, input: '' },
    );
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).result.result_info).toMatch(/^E1005:.*token_id/);
  });

  it('birth_date: the spec shape only (two-digit groups, then the year), on both sides (issue 16)', async () => {
    // 12-31-1990 has the shape; neither side guesses which group is the day.
    const ok = await payCard(CARDS.approved, ['--birth-date', '12-31-1990']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).outcome).toBe('approved');
    const before = await health(sandbox.url);
    const bad = await payCard(CARDS.approved, ['--birth-date', '1990-12-31']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/birth_date/);
    expect((await health(sandbox.url)).orders).toBe(before.orders);
  });

  it('upper-cases country fields before sending: billing_country "us" is approved (issue 16)', async () => {
    const r = await payCard(CARDS.approved, ['--billing-country', 'us', '--delivery-country', 'gb']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('a dry run prints the request and sends nothing', async () => {
    const before = await health(sandbox.url);
    const r = await runCli(
      ['--dry-run', '--output', 'json', 'pay', 'card', ...ORDER, '--shopper-email', 'a@example.com'],
      {
        env: sandbox.env,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      dry_run: true,
      request: { amount: '12.50', shopper_email: 'a@example.com' },
    });
    expect((await health(sandbox.url)).orders).toBe(before.orders);
  });

  it('a lost answer is reported unknown with the order to query, and never sent twice', async () => {
    await setFaults(sandbox.url, { mode: 'drop_after_commit', rate: 1, paths: ['/v1/authorise'] });
    try {
      const before = await health(sandbox.url);
      const r = await payCard(CARDS.approved, ['--order-no', `LOST-${Date.now()}`]);
      expect(r.code).toBe(3);
      const out = JSON.parse(r.stdout);
      expect(out.outcome).toBe('unknown');
      expect(out.unknown.queryCommand).toBe(`payops query --order-no ${out.order_no}`);
      expect(r.stderr).toContain(`payops query --order-no ${out.order_no}`);
      expect((await health(sandbox.url)).orders).toBe(before.orders + 1);
    } finally {
      await setFaults(sandbox.url, { mode: 'none' });
    }
  });

  it('without a sign key it stops (exit 4) before asking for the card', async () => {
    const r = await runCli(['--yes', 'pay', 'card', ...ORDER], {
      env: { ...sandbox.env, PAYOPS_SIGN_KEY: undefined },
      input: '',
    });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toMatch(/no card number/);
  });

  it('a read-only profile refuses (exit 4)', async () => {
    const home = tempDir();
    const set = await runCli(['config', 'set', 'read_only', 'true'], { env: sandbox.env, home });
    expect(set.code, set.stderr).toBe(0);
    const r = await runCli(['--yes', 'pay', 'card', ...ORDER], {
      env: sandbox.env,
      home,
      input: `${CARDS.approved}\n123\n`,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/read-only/);
  });
});

describe('pay apm', () => {
  it('prints the issuer_url on stdout', async () => {
    const r = await runCli(
      ['--yes', '--output', 'table', 'pay', 'apm', '--request', 'samples/apm-request.json'],
      {
        env: sandbox.env,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const url = r.stdout.trim();
    expect(url.startsWith(`${sandbox.url}/`)).toBe(true);
    expect(r.stderr).toContain('issuer_url');
    const page = await fetch(url);
    expect(page.status).toBe(200);
  });

  it('takes the fields and person as flags', async () => {
    const r = await runCli(
      [
        '--yes',
        '--output',
        'json',
        'pay',
        'apm',
        '--payment-method',
        'PIX',
        '--amount',
        '10',
        '--currency',
        'BRL',
        '--person-email',
        'p@example.com',
        '--person-address-country',
        'br',
      ],
      { env: sandbox.env },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ kind: 'apm', outcome: 'pending', payment_method: 'PIX', amount: '10.00' });
    expect(out.issuer_url).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });

  it('requires --payment-method', async () => {
    const r = await runCli(['--yes', 'pay', 'apm', '--amount', '10', '--currency', 'BRL'], {
      env: sandbox.env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/payment_method/);
  });
});

describe('pay checkout', () => {
  it('writes the page and reports the form fields', async () => {
    const out = join(tempDir(), 'checkout.html');
    const r = await runCli(
      [
        '--yes',
        '--output',
        'json',
        '--out',
        out,
        'pay',
        'checkout',
        '--request',
        'samples/checkout-request.json',
        '--first-name',
        'Zoë & "Co"',
      ],
      {
        env: sandbox.env,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/<form/i);
    const result = JSON.parse(r.stdout);
    expect(result.saved_to).toBe(out);
    expect(result.form.method).toBe('POST');
    expect(result.form.action).toContain(sandbox.url);
    const f = result.form.fields;
    expect(f.orderNo).toBe(result.order_no);
    expect(f.orderAmount).toBe('49.90');
    expect(f.orderCurrency).toBe('EUR');
    expect(f.firstName).toBe('Zoë & "Co"');
    for (const name of ['merNo', 'signInfo', 'gbc_id', 'connector_code', 'to_pass_page'])
      expect(f).toHaveProperty(name);
  });
});
