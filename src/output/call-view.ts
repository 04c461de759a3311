// Rendering of `payops call` responses: the body on stdout (JSON and XML pretty, HTML as received),
// one status line on stderr.
import type { Context } from '../context.js';
import type { RawResponse } from '../gateway/client.js';
import { redactText } from '../redact.js';

const SIGNATURE_NOTE = {
  valid: 'signature verified',
  absent: 'no signature in the response',
  invalid: 'signature INVALID',
} as const;

export function printRawResponse(ctx: Context, res: RawResponse, format: 'pretty' | 'json'): void {
  // Whatever the gateway echoes, no card number or sign key reaches the terminal.
  const stdout = { write: (text: string) => ctx.io.stdout.write(redactText(text, ctx.secrets)) };
  const isXml =
    res.parsed !== undefined && !/json/i.test(res.contentType) && res.body.trimStart().startsWith('<');
  if (res.parsed !== undefined && (format === 'json' || !isXml)) {
    stdout.write(`${JSON.stringify(res.parsed, null, 2)}\n`);
  } else if (isXml) {
    stdout.write(prettyXml(res.body));
  } else {
    stdout.write(res.body.endsWith('\n') || res.body === '' ? res.body : `${res.body}\n`);
  }
  const type = res.contentType ? ` · ${res.contentType.split(';')[0]}` : '';
  const line = `HTTP ${res.status}${type} · ${res.durationMs} ms · ${SIGNATURE_NOTE[res.signature]}`;
  if (res.signature === 'invalid') ctx.log.warn(line);
  else ctx.log.info(line);
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

/** Text data (a completion script) on stdout as it is. */
export function printText(io: Context['io'], text: string): void {
  io.stdout.write(text);
}
