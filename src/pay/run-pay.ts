// `payops pay card|apm|checkout`: flags → checked request → one send → result to output. Loaded
// lazily by src/commands/pay.ts when a pay command runs.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { stateDir } from '../config/paths.js';
import { assertMayMoveMoney } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ExitCode, InputError } from '../errors.js';
import { assertCanConfirm } from '../output/confirm.js';
import { checkOutFile } from '../output/safe-file.js';
import { writeWholeFile } from '../output/sink.js';
import { stdoutColor } from '../output/stdout-color.js';
import { quote } from '../quote.js';
import { parseWaitFlag } from '../wait/duration.js';
import { openEventTail } from '../wait/events-tail.js';
import { confirmCharge, readCardSecrets } from './card-input.js';
import { flagFields, type PaymentKind } from './fields.js';
import { openInBrowser, openUrl, writeTempPage } from './open-url.js';
import { type PayResult, payByApm, payByCard, payByCheckout, payExitCode } from './pay.js';
import { writePayPlan, writePayResult } from './payment-card.js';
import {
  buildPaymentRequest,
  flagValues,
  parseExpiry,
  type RequestSource,
  readRequestFile,
} from './request.js';

export interface PayFlags {
  request?: string;
  expiry?: string;
  open?: boolean;
  /** apm/checkout on the in-process sandbox: keep it serving the printed URLs until Ctrl-C. */
  serve?: boolean;
  /** Wait for the final state (wait-payment.ts): a duration, or true for the default. */
  wait?: string | true;
  [field: string]: unknown;
}

/**
 * Expiry from --expiry (wins) or the request's expiration_month/expiration_year. Missing, it is
 * asked for with the card number when `canAsk` (a terminal): false is returned then.
 */
function applyExpiry(body: Record<string, unknown>, expiry: string | undefined, canAsk: boolean): boolean {
  if (expiry !== undefined) {
    const parsed = parseExpiry(expiry);
    if (!parsed) {
      throw new InputError('--expiry is not a valid expiry date', [
        {
          field: 'expiry',
          message: `${quote(expiry)} is not a month and year`,
          expected: 'MM/YYYY or MM/YY, e.g. 12/2030',
        },
      ]);
    }
    body.expiration_month = parsed.month;
    body.expiration_year = parsed.year;
  }
  const missing = body.expiration_month === undefined || body.expiration_year === undefined;
  if (missing && canAsk) return false;
  if (missing) {
    throw new InputError('the card expiry is missing; nothing was sent', [
      {
        field: 'expiry',
        message: 'is required for a card payment',
        expected: '--expiry MM/YYYY (or expiration_month and expiration_year in --request)',
      },
    ]);
  }
  return true;
}

/**
 * A card whose expiry month has ended is refused here, nothing sent: the gateway would only decline
 * it (E3004) after the operator had typed the card number. A card is good to the end of its month.
 */
function assertNotExpired(body: Record<string, unknown>, where: string, now = new Date()): void {
  const month = Number(body.expiration_month);
  const year = Number(body.expiration_year);
  if (!Number.isInteger(month) || !Number.isInteger(year)) return; // the gateway's schema says
  const passed = year * 12 + month < now.getFullYear() * 12 + now.getMonth() + 1;
  if (!passed) return;
  const shown = `${String(body.expiration_month).padStart(2, '0')}/${String(body.expiration_year)}`;
  throw new InputError(`the card expired at the end of ${shown}; nothing was sent`, [
    {
      field: 'expiry',
      message: `${shown} (${where}) is in the past`,
      expected: 'the expiry printed on the card, this month or later',
    },
  ]);
}

export async function runPay(
  kind: PaymentKind,
  ctx: Context,
  opts: PayFlags,
  _cmd: Command,
): Promise<number> {
  const waitMs = parseWaitFlag(opts.wait);
  const source: RequestSource = { flags: flagValues(flagFields(kind), opts) };
  if (opts.request !== undefined) {
    source.file = opts.request;
    source.fileText = await readRequestFile(opts.request, ctx.io.cwd);
  }
  const { body, generatedOrderNo } = buildPaymentRequest(kind, source);
  // A stored token (--token-id) stands for the card: no number, code or expiry is asked for.
  const token = kind === 'card' && typeof body.token_id === 'string' && body.token_id !== '';
  let haveExpiry = true;
  if (token) {
    body.token_flag ??= 'YES';
    if (opts.expiry !== undefined) applyExpiry(body, opts.expiry, true);
  } else if (kind === 'card') {
    haveExpiry = applyExpiry(body, opts.expiry, Boolean(ctx.io.stdin.isTTY) && !ctx.globals.dryRun);
  }
  if (kind === 'card' && haveExpiry) {
    assertNotExpired(body, opts.expiry !== undefined ? '--expiry' : `${opts.request ?? 'the request'}`);
  }

  await checkOutFile(ctx.io.cwd, ctx.globals.out, [{ flag: '--request', path: opts.request }], ctx.io.env);

  const config = await ctx.config();
  assertMayMoveMoney(config, `pay ${kind}`);
  // A payment is one result: the card is the default on a terminal and in a pipe; scripts ask for
  // --output json (or csv).
  const format = ctx.globals.output ?? 'table';

  if (ctx.globals.dryRun) {
    writePayPlan(ctx.io, kind, body, { format, color: stdoutColor(ctx) });
    return ExitCode.ok;
  }

  // Every payment moves money: without a terminal to confirm on, --yes is required, and the refusal
  // comes before card data is read from stdin (issue 23 item 9: a piped card was charged unasked).
  if (!ctx.globals.yes) assertCanConfirm(ctx.io);
  // Asked for after every other check (the client needs a sign key), so nobody types a card number
  // for a request that would be refused anyway.
  const client = await ctx.client();
  const secrets =
    kind === 'card' && !token ? await readCardSecrets(ctx.io, { askExpiry: !haveExpiry }) : undefined;
  if (secrets?.expiry) {
    body.expiration_month = secrets.expiry.month;
    body.expiration_year = secrets.expiry.year;
    assertNotExpired(body, 'as typed');
  }
  const money = { amount: String(body.amount), currency: String(body.currency) };
  await confirmCharge(
    ctx.io,
    ctx.globals,
    secrets
      ? {
          kind: 'card',
          ...money,
          card: secrets.card,
          expiry: `${String(body.expiration_month)}/${String(body.expiration_year)}`,
        }
      : token
        ? { kind: 'token', ...money, token: String(body.token_id) }
        : kind === 'apm'
          ? { kind: 'apm', ...money, method: String(body.payment_method) }
          : { kind: 'checkout', ...money },
  );
  if (generatedOrderNo) ctx.log.info(`order_no ${String(body.order_no)} (generated)`);
  // Opened before the payment leaves: an event journaled while the answer is on its way is seen.
  const tail = waitMs === undefined ? undefined : await openEventTail(stateDir(ctx.io.env));

  let result: PayResult;
  if (kind === 'card') result = await payByCard(client, body, secrets, generatedOrderNo);
  else if (kind === 'apm') result = await payByApm(client, body, generatedOrderNo);
  else result = await payByCheckout(client, body, generatedOrderNo);

  let savedTo: string | undefined;
  if (result.kind === 'checkout' && result.html !== undefined) {
    if (ctx.globals.out !== undefined) {
      savedTo = resolve(ctx.io.cwd, ctx.globals.out);
      await writeWholeFile(savedTo, result.html);
    }
    if (opts.open) {
      const target = savedTo ?? (await writeTempPage(`checkout-${result.order_no}.html`, result.html));
      if (!(await openInBrowser(target, ctx.io.env)))
        ctx.log.warn(`could not open a browser; the page is in ${target}`);
      savedTo ??= target;
    }
  }
  if (result.kind === 'apm' && result.issuer_url !== undefined && opts.open) {
    const opened = await openUrl(result.issuer_url, ctx.io.env);
    if (opened === 'refused') {
      ctx.log.warn(
        `the issuer_url is not an http(s) address, so payops did not open it: ${quote(result.issuer_url)}; ` +
          'check it before sending the shopper anywhere',
      );
    } else if (opened === 'no-opener') {
      ctx.log.warn('could not open a browser; send the shopper to the issuer_url above');
    }
  }

  const resultFile =
    kind !== 'checkout' && ctx.globals.out !== undefined ? resolve(ctx.io.cwd, ctx.globals.out) : undefined;
  // Waiting: the payment as created (issuer_url, page, 3-D Secure) is for the person, on stderr;
  // stdout gets only the final state.
  const waiting = tail !== undefined && waitMs !== undefined && result.outcome === 'pending';
  await writePayResult(waiting ? { ...ctx.io, stdout: ctx.io.stderr } : ctx.io, result, {
    ...(resultFile === undefined ? {} : { resultFile }),
    format: waiting ? 'table' : format,
    color: stdoutColor(ctx),
    statusLabels: config.statusLabels,
    ...(savedTo === undefined ? {} : { savedTo }),
  });
  if (waiting) {
    const { waitForPayment } = await import('./wait-payment.js');
    // The gateway's id when its answer named one (card, the checkout form); APM answers name none.
    const transactionId =
      result.kind === 'checkout'
        ? result.form?.fields.transaction_id
        : result.kind === 'card'
          ? result.result?.transaction_id
          : undefined;
    return waitForPayment(
      ctx,
      {
        order_no: result.order_no,
        ...(transactionId ? { transaction_id: String(transactionId) } : {}),
        ...(typeof body.notify_url === 'string' ? { notify_url: body.notify_url } : {}),
      },
      {
        client,
        waitMs,
        tail,
        labels: config.statusLabels ?? {},
        what: kind === 'card' ? 'waiting for 3-D Secure or review' : 'waiting for the shopper',
      },
    );
  }
  if (kind !== 'card' && config.sandbox && result.outcome !== 'unknown')
    await sandboxUrls(ctx, opts, config.baseUrl);
  return payExitCode(result);
}

/**
 * The issuer_url or checkout page of an in-process sandbox points at a port that closes when payops
 * exits (issue 27): said so, or with --serve the sandbox keeps serving until Ctrl-C (or SIGTERM).
 */
async function sandboxUrls(ctx: Context, opts: PayFlags, url: string): Promise<void> {
  if (!opts.serve) {
    ctx.log.warn(
      `note: ${url} is the in-process sandbox, which stops when payops exits: the URLs above will not answer after this; keep it serving with --serve (until Ctrl-C), or run \`payops sandbox\` in another terminal and set base_url to it`,
    );
    return;
  }
  ctx.log.warn(`serving the in-process sandbox at ${url} until Ctrl-C`);
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  ctx.log.info('the sandbox has stopped');
}
