// Rendering of `payops call` responses: the body on stdout (JSON and XML pretty, HTML as received),
// one status line on stderr. Whatever the gateway sends, no card number, security code or sign key
// reaches the terminal — masked by field where the field is known, so identifiers and timestamps that
// happen to pass Luhn (a transaction_date) are printed as they are — and nothing in it can drive the
// terminal (control characters and bidi controls are shown escaped).
import type { Context } from '../context.js';
import type { PreparedRequest, RawResponse } from '../gateway/client.js';
import { jsonTerminalSafe, terminalSafe } from '../quote.js';
import { redactBody, redactSecrets, redactWireBody } from '../redact.js';

const SIGNATURE_NOTE = {
  valid: 'signature verified',
  absent: 'no signature in the response',
  invalid: 'signature INVALID',
} as const;

export function printRawResponse(ctx: Context, res: RawResponse, format: 'pretty' | 'json'): void {
  const write = (text: string) => ctx.io.stdout.write(redactSecrets(text, ctx.secrets));
  const isXml =
    res.parsed !== undefined && !/json/i.test(res.contentType) && res.body.trimStart().startsWith('<');
  if (res.parsed !== undefined && (format === 'json' || !isXml)) {
    write(`${jsonTerminalSafe(JSON.stringify(redactBody(res.parsed), null, 2))}\n`);
  } else if (isXml) {
    write(terminalSafe(redactWireBody(prettyXml(res.body), 'application/xml')));
  } else {
    const body = terminalSafe(redactWireBody(res.body, res.contentType));
    write(body.endsWith('\n') || body === '' ? body : `${body}\n`);
  }
  const type = res.contentType ? ` · ${res.contentType.split(';')[0]}` : '';
  const line = `HTTP ${res.status}${type} · ${res.durationMs} ms · ${SIGNATURE_NOTE[res.signature]}`;
  if (res.signature === 'invalid') ctx.log.warn(line);
  else ctx.log.info(line);
}

/**
 * `payops --dry-run call`: the signed request as it would go, not sent. Card numbers show masked
 * (first 6, last 4), security codes and secret fields not at all, the sign key never (it is not in
 * the request: encryption_data is an HMAC over the body, which is safe to show).
 */
export function printPreparedRequest(ctx: Context, req: PreparedRequest, format: 'pretty' | 'json'): void {
  const write = (text: string) => ctx.io.stdout.write(redactSecrets(text, ctx.secrets));
  const body = redactBody(req.body);
  const form = /x-www-form-urlencoded/.test(req.headers['content-type'] ?? '');
  if (format === 'json') {
    const out = {
      dry_run: true,
      method: req.method,
      url: req.url,
      headers: req.headers,
      body,
      ...(form ? { wire: redactWireBody(req.text, req.headers['content-type']) } : {}),
    };
    write(`${jsonTerminalSafe(JSON.stringify(out, null, 2))}\n`);
    return;
  }
  const lines = [
    `${req.method} ${req.url}`,
    ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`),
    '',
  ];
  write(terminalSafe(`${lines.join('\n')}\n`));
  // A form body is shown as its fields too: the wire text alone is hard to read.
  if (form) write(`${terminalSafe(redactWireBody(req.text, req.headers['content-type']))}\n\n`);
  write(`${jsonTerminalSafe(JSON.stringify(body, null, 2))}\n`);
}

/** Indent XML one element per line; text content kept exactly. */
export function prettyXml(xml: string): string {
  const tokens = xml
    .replace(/>\s+</g, '><')
    .trim()
    .split(/(?=<)|(?<=>)/);
  const lines: string[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.startsWith('</')) {
      depth = Math.max(0, depth - 1);
      lines.push(`${'  '.repeat(depth)}${t}`);
    } else if (t.startsWith('<?') || t.startsWith('<!') || t.endsWith('/>')) {
      lines.push(`${'  '.repeat(depth)}${t}`);
    } else if (t.startsWith('<')) {
      const text = tokens[i + 1];
      const close = tokens[i + 2];
      if (text !== undefined && !text.startsWith('<') && close?.startsWith('</')) {
        lines.push(`${'  '.repeat(depth)}${t}${text}${close}`);
        i += 2;
      } else if (text?.startsWith('</')) {
        lines.push(`${'  '.repeat(depth)}${t}${text}`);
        i += 1;
      } else {
        lines.push(`${'  '.repeat(depth)}${t}`);
        depth++;
      }
    } else {
      lines.push(`${'  '.repeat(depth)}${t}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
