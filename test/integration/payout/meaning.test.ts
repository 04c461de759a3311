// Payouts recognised by what they mean (issue 23 item 1), through the real binary against a sandbox
// on loopback, judged by its ledger: a re-saved, renamed, re-indented or .xlsx copy of a payout file
// pays nobody again; the same file from another PAYOPS_HOME sends the same request_ids (derived from
// meaning), so the gateway's idempotency pays once; duplicate rows are refused; `--force` never makes
// a second request_id for a journaled row; an edited copy is "possibly done" and refused unless
// --force; `--new-request-ids` repeats on purpose.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createXlsxWriter } from '../../../src/output/xlsx-writer.js';
import { jsonRows } from '../../helpers/json-rows.js';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { admin, ledger } from '../pay/support.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

async function payouts() {
  return (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
}

const SAMPLE_CSV = readFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), 'utf8');
const SAMPLE_JSON = readFileSync(join(REPO_ROOT, 'samples', 'payout-request.json'), 'utf8');

function write(name: string, content: string | Buffer): string {
  const file = join(tempDir(), name);
  writeFileSync(file, content);
  return file;
}

/** The sample's rows with columns in another order (last first), CRLF line ends and a BOM. */
function resaved(): string {
  const lines = SAMPLE_CSV.trimEnd().split('\n');
  const moved = lines.map((l) => {
    const cells = l.split(',');
    return [cells[cells.length - 1], ...cells.slice(0, -1)].join(',');
  });
  return `\uFEFF${moved.join('\r\n')}\r\n`;
}

type Row = { line: string; request_id: string; outcome: string; status: string };

async function pay(args: string[], home: string) {
  return runCli(['--yes', '--output', 'json', 'payout', ...args], { env: sandbox.env, home });
}

describe('payouts recognised by meaning (issue 23)', { timeout: 120_000 }, () => {
  it('a re-saved, renamed copy (CRLF, BOM, columns moved) from the same home pays nobody twice', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const first = await pay(['--file', write('payouts.csv', SAMPLE_CSV)], home);
    expect(first.code, first.stderr).toBe(0);
    expect(await payouts()).toHaveLength(3);
    const again = await pay(['--file', write('payouts-final (1).csv', resaved())], home);
    expect(again.code, again.stderr).toBe(0);
    expect((jsonRows(again.stdout) as Row[]).every((r) => r.outcome === 'completed')).toBe(true);
    expect(await payouts()).toHaveLength(3);
  });

  it('a re-indented payout-request.json with its keys in another order pays once', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const first = await pay(['--request', write('payout-request.json', SAMPLE_JSON)], home);
    expect(first.code, first.stderr).toBe(0);
    const parsed = JSON.parse(SAMPLE_JSON) as Record<string, unknown>;
    const reversed = Object.fromEntries(Object.entries(parsed).reverse());
    const again = await pay(
      ['--request', write('copy.json', `${JSON.stringify(reversed, null, 4)}\r\n`)],
      home,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(jsonRows(again.stdout)[0].request_id).toBe(jsonRows(first.stdout)[0].request_id);
    expect(await payouts()).toHaveLength(1);
  });

  it('the same rows as an .xlsx after the CSV pay nobody twice', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    expect((await pay(['--file', write('payouts.csv', SAMPLE_CSV)], home)).code).toBe(0);
    const [header, ...rows] = SAMPLE_CSV.trimEnd().split('\n');
    const book = join(tempDir(), 'payouts.xlsx');
    const w = createXlsxWriter(book, header!.split(','));
    await w.ready;
    for (const row of rows) await w.writeCells(row.split(','));
    await w.end();
    const again = await pay(['--file', book], home);
    expect(again.code, again.stderr).toBe(0);
    expect(await payouts()).toHaveLength(3);
  });

  it('the same file from another PAYOPS_HOME sends the same request_ids: the gateway pays once', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const a = await pay(['--file', write('payouts.csv', SAMPLE_CSV)], tempDir());
    expect(a.code, a.stderr).toBe(0);
    const b = await pay(['--file', write('copy.csv', resaved())], tempDir());
    expect(b.code, b.stderr).toBe(0);
    const ids = (r: { stdout: string }) => (jsonRows(r.stdout) as Row[]).map((x) => x.request_id).sort();
    expect(ids(b)).toEqual(ids(a));
    // Derived from meaning: a name-based UUID (version 5 layout).
    for (const id of ids(a))
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await payouts()).toHaveLength(3);
    const json = await pay(['--request', write('payout-request.json', SAMPLE_JSON)], tempDir());
    const json2 = await pay(
      ['--request', write('r.json', JSON.stringify(JSON.parse(SAMPLE_JSON)))],
      tempDir(),
    );
    expect(json2.code, json2.stderr).toBe(0);
    expect(ids(json2)).toEqual(ids(json));
    expect(await payouts()).toHaveLength(4);
  });

  it('a JSON copy with names in NFD and padded values, from another home, sends the same request_id', async () => {
    // The same payout as a person reads it: "Müller" with a combining diaeresis, spaces around a
    // value. Keyed by bytes it got another request_id and the gateway paid it again.
    await admin(sandbox.url, '/_sandbox/reset', {});
    const a = await pay(['--request', write('payout-request.json', SAMPLE_JSON)], tempDir());
    expect(a.code, a.stderr).toBe(0);
    const parsed = JSON.parse(SAMPLE_JSON) as {
      beneficiary: Record<string, unknown> & { bank_details: Record<string, unknown> };
    };
    parsed.beneficiary.company_name = ` ${String(parsed.beneficiary.company_name).normalize('NFD')}  `;
    parsed.beneficiary.bank_details.bank_name = 'Commerzbank ';
    const b = await pay(['--request', write('nfd.json', JSON.stringify(parsed))], tempDir());
    expect(jsonRows(b.stdout)[0].request_id).toBe(jsonRows(a.stdout)[0].request_id);
    expect(await payouts()).toHaveLength(1);
  });

  it('two identical rows in one file are refused with their lines, exit 2, nothing sent', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const lines = SAMPLE_CSV.trimEnd().split('\n');
    const file = write('dup.csv', [...lines, lines[2]].join('\n'));
    const r = await pay(['--file', file], tempDir());
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/dup\.csv:5.*duplicate.*line 3/);
    expect(r.stderr).toContain('nothing was sent');
    expect(await payouts()).toHaveLength(0);
  });

  it('--force after a PENDING payout sends its journaled request_id again, never a second one', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = write(
      'pending.csv',
      [
        'reference,payment_amount,payment_currency,payment_method,beneficiary.entity_type,beneficiary.bank_details.account_name,beneficiary.bank_details.account_number,payer.entity_type',
        'INV-9,98000,JPY,LOCAL,INDIVIDUAL,Taro Yamada,1237777,COMPANY',
      ].join('\n'),
    );
    const first = await pay(['--file', file], home);
    expect(first.code, first.stderr).toBe(3);
    const pendingId = (jsonRows(first.stdout) as Row[])[0]!.request_id;
    const forced = await pay(['--file', file, '--force'], home);
    expect([0, 3]).toContain(forced.code);
    expect((jsonRows(forced.stdout) as Row[])[0]!.request_id).toBe(pendingId);
    // Every run left open is finished: each request_id the gateway holds completes and pays now.
    for (const runId of readdirSync(join(home, 'state', 'runs')).filter((d) => !d.startsWith('.'))) {
      await runCli(['--yes', 'runs', 'resume', runId], { env: sandbox.env, home });
    }
    const paid = await payouts();
    expect(paid.map((e) => e.request_id)).toEqual([pendingId]);
  });

  it('an edited copy (a typo fixed in a name) is possibly done: refused with the earlier payout, --force pays', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const first = await pay(['--file', write('payouts.csv', SAMPLE_CSV)], home);
    expect(first.code, first.stderr).toBe(0);
    const gbpId = (jsonRows(first.stdout) as Row[])[1]!.request_id;
    const runId = readdirSync(join(home, 'state', 'runs')).find((d) => !d.startsWith('.'))!;
    const edited = write(
      'payouts-fixed.csv',
      SAMPLE_CSV.replace('West Widgets Ltd,West Widgets Ltd', 'West Widgets Ltd.,West Widgets Ltd.'),
    );
    const dry = await runCli(['--dry-run', 'payout', '--file', edited], { env: sandbox.env, home });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/possibly done/i);
    expect(dry.stderr).toContain(gbpId);
    const refused = await pay(['--file', edited], home);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/payouts-fixed\.csv:3/);
    expect(refused.stderr).toContain(runId);
    expect(refused.stderr).toContain(gbpId);
    expect(refused.stderr).toContain('COMPLETED');
    expect(await payouts()).toHaveLength(3);
    const forced = await pay(['--file', edited, '--force'], home);
    expect(forced.code, forced.stderr).toBe(0);
    // The two unchanged rows keep their ids (the gateway answers with the payouts it made); the
    // edited one is a new payout.
    expect(await payouts()).toHaveLength(4);
  });

  it('--new-request-ids repeats the payouts on purpose, and the plan says so', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = write('payouts.csv', SAMPLE_CSV);
    expect((await pay(['--file', file], home)).code).toBe(0);
    const dry = await runCli(['--dry-run', 'payout', '--file', file, '--new-request-ids'], {
      env: sandbox.env,
      home,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/--new-request-ids: 3 payouts are sent again as NEW payouts/);
    const again = await pay(['--file', file, '--new-request-ids'], home);
    expect(again.code, again.stderr).toBe(0);
    expect(await payouts()).toHaveLength(6);
    // A plain re-run afterwards pays nobody a third time.
    expect((await pay(['--file', file], home)).code).toBe(0);
    expect(await payouts()).toHaveLength(6);
  });
});
