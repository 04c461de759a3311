// Secrets never leak (issue 7): a whole session with --debug on every command — configuration with
// the sign key on stdin, a card payment with a canary card number and security code on stdin, a
// bulk refund, queries, runs, a raw call — then every byte it produced is searched: stdout, stderr,
// and every file under PAYOPS_HOME (config, journals, logs) and the working folder. The masked
// card number (first 6, last 4) is allowed; the sign key may live only in the 0600 config file.
// Issue 13 adds card data on the command line (`call --data card=…`, a card number in a note or a
// refund reason: refused, never echoed) and a raw call whose note carries a spaced card number and a
// labelled security code (from stdin: masked in the --debug request, the gateway's echo and stdout).
// Its review adds card fields by other names (card_security=…), card numbers grouped with dots or
// double spaces, JSON text in --json, and a --json file whose card is a JSON number (--debug).
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type RunResult, runPayops, SIGN_KEY, TestSandbox, tempDir, writeCsv } from '../chaos/support.js';

const CARD = '4242424242424242';
const CARD_SPACED = '4242 4242 4242 4242';
const CARD_DASHED = '4242-4242-4242-4242';
const CARD_DOTTED = '4242.4242.4242.4242';
const CARD_DOUBLE_SPACED = '4242  4242  4242  4242';
/** Four digits (the sandbox accepts 3–4) so that a match is not a coincidence. */
const SECURITY_CODE = '8357';
/** The code as a token: not inside a longer run of digits or hex (ids, hashes, timestamps). */
const SECURITY_CODE_RE = new RegExp(`(?<![0-9a-fA-F])${SECURITY_CODE}(?![0-9a-fA-F])`);

let sandbox: TestSandbox;
const dir = tempDir('secrets');
const home = join(dir.path, 'home');

beforeAll(async () => {
  sandbox = await TestSandbox.start();
});
afterAll(async () => {
  await sandbox?.close();
  dir.remove();
});

function filesUnder(root: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

test('a full --debug session leaks neither the sign key nor the card number nor the security code', async () => {
  // Only PAYOPS_HOME: the credentials come from the profile this session writes.
  const env = { PATH: process.env.PATH, HOME: home, PAYOPS_HOME: home, NO_COLOR: '1' };
  const outputs: Array<{ step: string; r: RunResult }> = [];
  const run = async (step: string, args: string[], input = '', expectCodes = [0]) => {
    // --yes: a payment or a money-moving call without a terminal needs it (issue 23 item 9).
    const r = await runPayops([...args, '--debug', '--yes'], { env, input, cwd: dir.path });
    outputs.push({ step, r });
    expect(expectCodes, `${step}: exit ${r.code}\n${r.stderr.slice(0, 3000)}`).toContain(r.code);
    return r;
  };

  await run('config set base_url', ['config', 'set', 'base_url', sandbox.url]);
  await run('config set merchant_id', ['config', 'set', 'merchant_id', '800001']);
  await run('config set account_id', ['config', 'set', 'account_id', '800001001']);
  await run('config set sign_key (stdin)', ['config', 'set', 'sign_key'], `${SIGN_KEY}\n`);
  await run('config list', ['config', 'list']);
  await run('config get sign_key', ['config', 'get', 'sign_key']);

  const paid = await run(
    'pay card',
    ['pay', 'card', '--amount', '12.50', '--currency', 'USD', '--expiry', '12/2030', '--output', 'json'],
    `${CARD}\n${SECURITY_CODE}\n`,
  );
  // The --debug log really carried the request (masked), so the search below is not vacuous.
  expect(paid.stderr).toContain('/v1/authorise');
  await run(
    'pay card (declined)',
    ['pay', 'card', '--amount', '5.00', '--currency', 'USD', '--expiry', '12/2030'],
    `4000000000000002\n${SECURITY_CODE}\n`,
    [1],
  );

  const orders = await sandbox.createOrders(3, '3000');
  const file = join(dir.path, 'refunds.csv');
  writeCsv(
    file,
    ['transaction_id', 'order_no', 'currency', 'amount', 'refund_amount', 'refund_reason'],
    orders.map((o) => [o.transaction_id, o.order_no, o.currency, o.amount, o.amount, 'secrets test']),
  );
  const refunded = await run('refund', [
    'refund',
    '--file',
    file,
    '--yes',
    '--out',
    join(dir.path, 'results.csv'),
  ]);
  const runId = /run (?:id:? )?(\d{8}-\d{6}-[0-9a-f]+)/.exec(refunded.stderr)?.[1];
  expect(runId, `run id in:\n${refunded.stderr}`).toBeDefined();
  await run('runs show', ['runs', 'show', runId!, '--output', 'json']);
  await run('query', ['query', '--transaction-id', orders[0]!.transaction_id, '--output', 'json']);
  await run('refunds search', ['refunds', 'search', '--transaction-id', orders[0]!.transaction_id]);
  await run('runs list', ['runs', 'list']);
  await run('call', [
    'call',
    '/v1/retrievalTrans',
    '--form',
    '--data',
    `transaction_id=${orders[1]!.transaction_id}`,
  ]);
  expect(await sandbox.ledger()).toHaveLength(3);

  // Card data on the command line: refused (exit 2) for every command, before anything is sent.
  const authorise = ['call', '/v1/authorise', '--data', 'amount=1.00', '--data', 'currency=USD'];
  await run(
    'call --data card= security_code=',
    [...authorise, '--data', `card=${CARD}`, '--data', `security_code=${SECURITY_CODE}`],
    '',
    [2],
  );
  await run(
    'call --data card.number= (dashed)',
    [...authorise, '--data', `card.number=${CARD_DASHED}`],
    '',
    [2],
  );
  await run(
    'call --data note= (spaced card, cvv)',
    [...authorise, '--data', `note=card ${CARD_SPACED} cvv ${SECURITY_CODE}`],
    '',
    [2],
  );
  await run('call --data=security_code=', [...authorise, `--data=security_code=${SECURITY_CODE}`], '', [2]);
  await run(
    'pay card --note (dashed card)',
    [
      'pay',
      'card',
      '--amount',
      '1.00',
      '--currency',
      'USD',
      '--expiry',
      '12/2030',
      '--note',
      `card ${CARD_DASHED}`,
    ],
    `${CARD}\n${SECURITY_CODE}\n`,
    [2],
  );
  await run(
    'refund --refund-reason (spaced card)',
    [
      'refund',
      '--transaction-id',
      orders[2]!.transaction_id,
      '--order-no',
      orders[2]!.order_no,
      '--currency',
      'USD',
      '--amount',
      orders[2]!.amount,
      '--refund-amount',
      '1.00',
      '--refund-reason',
      `card ${CARD_SPACED}`,
      '--yes',
    ],
    '',
    [2],
  );
  await run('call --data card_security=', [...authorise, `--data=card_security=${SECURITY_CODE}`], '', [2]);
  await run('call --data note= (dotted card)', [...authorise, '--data', `note=card ${CARD_DOTTED}`], '', [2]);
  await run(
    'call --data note= (double-spaced card)',
    [...authorise, '--data', `note=card ${CARD_DOUBLE_SPACED}`],
    '',
    [2],
  );
  await run(
    "call --json '{…}' (JSON text with the code)",
    ['call', '/v1/authorise', '--json', `{"security_code":"${SECURITY_CODE}"}`],
    '',
    [2],
  );
  expect(await sandbox.ledger()).toHaveLength(3);

  // The way card data may go through a raw call: the body on stdin. The note holds the card spaced
  // and the code after its label; the sandbox echoes the note in its answer.
  const body = {
    order_no: 'SECRETS-CALL-1',
    amount: '2.00',
    currency: 'USD',
    card: CARD,
    security_code: SECURITY_CODE,
    expiration_month: '12',
    expiration_year: '2030',
    note: `card ${CARD_SPACED} cvv ${SECURITY_CODE}`,
  };
  const called = await run(
    'call --json - (card in the body on stdin)',
    ['call', '/v1/authorise', '--json', '-'],
    JSON.stringify(body),
  );
  expect(called.stderr).toContain('/v1/authorise');
  expect(called.stdout).toContain('<note>card 424242******4242 cvv ****</note>');

  // A body file whose card and code are JSON numbers, and whose note groups the card with dots and
  // double spaces: masked in the --debug request and in the gateway's echo. The file is the user's
  // own input, so it is removed before the search below.
  const bodyFile = join(dir.path, 'body-numbers.json');
  writeFileSync(
    bodyFile,
    `{"order_no":"SECRETS-CALL-2","amount":"2.00","currency":"USD","card":${CARD},` +
      `"security_code":${SECURITY_CODE},"expiration_month":"12","expiration_year":"2030",` +
      `"note":"card ${CARD_DOTTED} or ${CARD_DOUBLE_SPACED} cvv ${SECURITY_CODE}","extra":${CARD}}`,
  );
  const numbers = await run(
    'call --json FILE (card as a JSON number)',
    ['call', '/v1/authorise', '--json', bodyFile],
    '',
    [0, 1],
  );
  rmSync(bodyFile);
  expect(numbers.stderr).toMatch(/> POST \/v1\/authorise .*"card":"424242\*{6}4242"/);
  expect(numbers.stderr).toContain('"extra":"424242******4242"');
  expect(numbers.stdout).toContain('<note>card 424242******4242 or 424242******4242 cvv ****</note>');

  const leaks: string[] = [];
  const search = (where: string, text: string, allowKey = false) => {
    if (!allowKey && text.includes(SIGN_KEY)) leaks.push(`${where}: sign key`);
    if ([CARD, CARD_SPACED, CARD_DASHED, CARD_DOTTED, CARD_DOUBLE_SPACED].some((c) => text.includes(c)))
      leaks.push(`${where}: card number`);
    if (SECURITY_CODE_RE.test(text)) leaks.push(`${where}: security code`);
  };
  for (const { step, r } of outputs) {
    search(`${step} stdout`, r.stdout);
    search(`${step} stderr`, r.stderr);
  }
  const files = filesUnder(dir.path);
  expect(files.some((f) => f.includes('journal'))).toBe(true);
  for (const f of files) {
    const text = readFileSync(f).toString('latin1');
    const name = relative(dir.path, f);
    // The profile holds the key by design; it must be the owner's alone, and hold it once.
    const isConfig = /config\.json$/.test(f) && text.includes('"sign_key"');
    if (isConfig) {
      expect(statSync(f).mode & 0o077, `${name} must be mode 0600`).toBe(0);
      expect(text.split(SIGN_KEY).length - 1, `${name} holds the key once`).toBe(1);
    }
    search(name, text, isConfig);
  }
  expect(leaks).toEqual([]);
}, 180_000);
