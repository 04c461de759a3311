// `payops call PATH`: a signed raw request to any path, for endpoints payops has no command for.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { assertMayMoveMoney } from '../config/resolve.js';
import type { Context } from '../context.js';
import { GatewayError, InputError, UsageError } from '../errors.js';
import { authError, errorOfBody } from '../gateway/client.js';
import { endpointByPath } from '../gateway/endpoints.js';
import { printRawResponse } from '../output/call-view.js';
import { quote, quoteName } from '../quote.js';
import { applyData, assertFlat, parseJsonBody } from './body.js';

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

  const config = await ctx.config();
  // Unknown paths may move money (subscription cancel): only known read-only ones pass a read-only profile.
  if (!endpoint || endpoint.moneyMoving) assertMayMoveMoney(config, `payops call ${normalised}`);
  if (endpoint && opts.form === undefined && form)
    ctx.log.verbose(`${normalised} takes a form body: sending form-urlencoded`);

  const client = await ctx.client();
  const res = await client.raw(normalised, body, { form });
  printRawResponse(ctx, res, ctx.globals.output === 'json' ? 'json' : 'pretty');

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
  return 0;
}
