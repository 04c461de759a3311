// `payops call PATH`: a signed raw request to any path, for endpoints payops has no command for.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { assertMayMoveMoney } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ExitCode, GatewayError, InputError, UnknownOutcomeError, UsageError } from '../errors.js';
import { authError, errorOfBody, type RawResponse } from '../gateway/client.js';
import { type Endpoint, endpointByPath } from '../gateway/endpoints.js';
import { confirmOrExit } from '../output/confirm.js';
import { quote, quoteName, shownUrl } from '../quote.js';
import { applyData, assertFlat, parseJsonBody } from './body.js';
import { printPreparedRequest, printRawResponse } from './call-view.js';
import { type CallAnswer, type CallRecord, recordCall } from './record.js';

export interface CallOptions {
  json?: string;
  data?: string[];
  form?: boolean;
}

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** Why a file could not be read, in words, without repeating its path (the message names it once). */
const READ_FAILURE: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a folder',
};

/**
 * --json takes a file name or `-`. JSON text given instead (`--json '{"order_no":…}'`) is refused
 * without being read as a path or echoed: it may hold what belongs on stdin only (the argument
 * guard refuses card data in it first, src/argv-guard.ts).
 */
function assertJsonSource(value: string): void {
  if (value === '-') return;
  if (/^\s*[[{]/.test(value) || /[{\n]/.test(value) || value.length > 4096) {
    throw new UsageError('--json takes a file or - (stdin), not JSON text; nothing was sent', {
      hint: 'write the body to a file, or pipe it: printf \'%s\' "$BODY" | payops call PATH --json -',
    });
  }
}

export async function buildCallBody(ctx: Context, opts: CallOptions): Promise<Record<string, unknown>> {
  // Without a prototype, like every object of the body (body.ts).
  let body: Record<string, unknown> = Object.create(null);
  if (opts.json !== undefined) {
    assertJsonSource(opts.json);
    const source = opts.json === '-' ? 'stdin' : opts.json;
    let text: string;
    try {
      text =
        opts.json === '-'
          ? await readStdin(ctx.io.stdin)
          : await readFile(resolve(ctx.io.cwd, opts.json), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      throw new InputError(
        `cannot read ${quoteName(source)}: ${READ_FAILURE[code] ?? (code || 'unreadable')}`,
        [],
        {
          hint: 'give --json a readable file, or - to read the body from stdin',
        },
      );
    }
    body = parseJsonBody(text, source);
  }
  return applyData(body, opts.data ?? []);
}

/** The per-order elements of a batch body (`capture_orders`, …), when the endpoint has them. */
function batchElements(endpoint: Endpoint | undefined, body: Record<string, unknown>): unknown[] | undefined {
  const list = endpoint?.batchArray === undefined ? undefined : body[endpoint.batchArray];
  return Array.isArray(list) ? list : undefined;
}

/**
 * The endpoint's per-request limit, applied before anything is sent: the gateway refuses a longer
 * list whole (E1004), and a refusal of a money-moving request is one more answer to interpret.
 */
function assertWithinLimit(endpoint: Endpoint | undefined, body: Record<string, unknown>): void {
  const list = batchElements(endpoint, body);
  if (!endpoint || endpoint.limit === undefined || list === undefined || list.length <= endpoint.limit)
    return;
  throw new UsageError(
    `${endpoint.batchArray} has ${list.length} elements, but ${endpoint.path} takes at most ${endpoint.limit} per request; nothing was sent`,
    {
      hint: `split the body into requests of ${endpoint.limit} or fewer${
        endpoint.statusField ? `, or use payops ${endpoint.op} --file, which cuts chunks itself` : ''
      }`,
    },
  );
}

/** What a money-moving call sends, in words: for the confirmation and the line said before sending. */
function whatIsSent(
  method: string,
  url: string,
  endpoint: Endpoint | undefined,
  body: Record<string, unknown>,
): string {
  const list = batchElements(endpoint, body);
  const orders =
    list === undefined
      ? ''
      : ` (${list.length} ${list.length === 1 ? 'element' : 'elements'} in ${endpoint?.batchArray})`;
  return `${method} ${shownUrl(url)}${orders}`;
}

/**
 * Reads a batch answer's per-order statuses: 1 done, 0 refused; anything else (absent, another
 * value), an answer with fewer elements than were sent, or none at all, is not a clear answer
 * (issue 23 item 8) and leaves the outcome of those orders unknown.
 */
function batchOutcome(
  endpoint: Endpoint | undefined,
  sent: readonly unknown[] | undefined,
  parsed: unknown,
): { refused: number; unclear: number; total: number } | undefined {
  const field = endpoint?.statusField;
  if (!endpoint?.batchArray || field === undefined || sent === undefined) return undefined;
  const answered =
    parsed && typeof parsed === 'object'
      ? (parsed as Record<string, unknown>)[endpoint.batchArray]
      : undefined;
  const list = Array.isArray(answered) ? answered : [];
  let refused = 0;
  let unclear = Math.max(0, sent.length - list.length);
  for (const el of list) {
    const status = el && typeof el === 'object' ? (el as Record<string, unknown>)[field] : undefined;
    if (status === '0') refused++;
    else if (status !== '1') unclear++;
  }
  return { refused, unclear, total: Math.max(sent.length, list.length) };
}

/** The answer's line in the record; a failure to write it is said, and changes no exit code: the request went. */
async function noteAnswer(ctx: Context, record: CallRecord | undefined, answer: CallAnswer): Promise<void> {
  try {
    await record?.answer(answer);
  } catch (err) {
    ctx.log.warn(`could not record the answer in ${record?.file}: ${(err as Error).message}`);
  }
}

export async function runCall(ctx: Context, path: string, opts: CallOptions): Promise<number> {
  if (/^[a-z]+:\/\//i.test(path)) {
    throw new UsageError(`give a path such as /v1/capture, not a URL (${quote(path)})`, {
      hint: 'the gateway address comes from base_url (--base-url, PAYOPS_BASE_URL or the profile)',
    });
  }
  const normalised = path.startsWith('/') ? path : `/${path}`;
  const endpoint = endpointByPath(normalised);
  const body = await buildCallBody(ctx, opts);
  const form = opts.form ?? endpoint?.requestFormat === 'form';
  if (form) assertFlat(body);
  assertWithinLimit(endpoint, body);
  // Unknown paths may move money (subscription cancel): only the known read-only ones are taken as such.
  const moves = !endpoint || endpoint.moneyMoving;
  const format = ctx.globals.output === 'json' ? 'json' : 'pretty';

  const config = await ctx.config();
  if (endpoint && opts.form === undefined && form)
    ctx.log.verbose(`${normalised} takes a form body: sending form-urlencoded`);

  if (ctx.globals.dryRun) {
    // Signed with the configured key, as it would be sent; no client, no transport: nothing can leave.
    const prepare = (await import('../factory.js')).preparerFromConfig(ctx, config);
    printPreparedRequest(ctx, prepare(normalised, body, form), format);
    ctx.log.info('dry run — nothing was sent');
    return ExitCode.ok;
  }

  if (moves) {
    assertMayMoveMoney(config, `payops call ${normalised}`);
    (await import('../approval/gate.js')).refuseUnplanned(config, `payops call ${normalised}`);
    const what = whatIsSent('POST', `${config.baseUrl ?? ''}${normalised}`, endpoint, body);
    await confirmOrExit(
      ctx.io,
      ctx.globals,
      `Send ${what}?${endpoint ? '' : ' payops does not know this path: it may move money.'} It is sent once, never retried.`,
    );
  }

  const client = await ctx.client();
  let record: CallRecord | undefined;
  if (moves) {
    // What is about to leave: recorded (durably) and said before it leaves (record.ts).
    const url = `${client.baseUrl}${normalised}`;
    record = await recordCall(ctx.io.env, {
      method: 'POST',
      url,
      merchantId: client.merchantId,
      accountId: client.accountId,
      body,
    });
    ctx.log.info(`sending ${whatIsSent('POST', url, endpoint, body)}; recorded in ${record.file}`);
  }
  let res: RawResponse;
  try {
    res = await client.raw(normalised, body, { form });
  } catch (err) {
    await noteAnswer(ctx, record, { type: 'lost', reason: err instanceof Error ? err.message : String(err) });
    throw err;
  }
  const outcome = batchOutcome(endpoint, batchElements(endpoint, body), res.parsed);
  await noteAnswer(ctx, record, {
    type: 'answer',
    http_status: res.status,
    ...(res.parsed && typeof res.parsed === 'object' && 'return_status' in res.parsed
      ? { return_status: (res.parsed as { return_status: unknown }).return_status }
      : {}),
    signature: res.signature,
    ...(outcome ? { orders: outcome } : {}),
  });
  printRawResponse(ctx, res, format);

  const error = errorOfBody(res.parsed);
  if (res.status >= 400 || (res.parsed as { return_status?: unknown } | undefined)?.return_status === '0') {
    const who = { merchantId: client.merchantId, accountId: client.accountId };
    if (error?.code && /^E100[123]$/.test(error.code)) throw authError(error.code, error.text, who);
    if (res.status === 401 || res.status === 403)
      throw authError('E1001', error?.text ?? `HTTP ${res.status}`, who);
    throw new GatewayError(
      `the gateway rejected the request (HTTP ${res.status}${error ? `, ${error.code ? `${quote(error.code)}: ` : ''}${quote(error.text)}` : ''})`,
      {
        status: res.status,
        ...(error?.code ? { code: error.code } : {}),
        hint: 'the response is printed above',
      },
    );
  }
  if (res.signature === 'invalid') {
    throw new GatewayError('the response signature is INVALID: do not trust this answer', {
      code: 'bad_signature',
      hint: 'check that the sign key matches the gateway (payops config set sign_key)',
    });
  }
  if (outcome && endpoint?.statusField && outcome.unclear > 0) {
    throw new UnknownOutcomeError(
      `${outcome.unclear} of ${outcome.total} orders have no clear ${endpoint.statusField} (1 or 0) in the answer: whether they were applied is not known`,
      'unclear_status',
      { hint: 'look the orders up before sending anything again: payops query ORDER_NO …' },
    );
  }
  if (outcome && endpoint?.statusField && outcome.refused > 0) {
    ctx.log.warn(
      `${outcome.refused} of ${outcome.total} ${outcome.total === 1 ? 'element was' : 'elements were'} refused (${endpoint.statusField} 0): see the answer above`,
    );
    return ExitCode.someFailed;
  }
  return ExitCode.ok;
}
