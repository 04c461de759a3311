// Renders an error for a person on stderr: what went wrong, where (file:line, field), and what to
// do next. Stack traces only with --debug.
//
// The last safety net before the terminal: messages quote user and gateway text through quote()
// (src/quote.ts) where they are built, and whatever still carries a control character — a file
// name, a library's message that echoes its input (JSON.parse), a message built elsewhere — is
// shown escaped here, with line breaks and tabs kept. Card numbers and secrets are masked.

import { InputError, PayopsError } from '../errors.js';
import type { Io } from '../io.js';
import { terminalSafe } from '../quote.js';
import { redactText } from '../redact.js';
import { fitLines } from './summary.js';
import { tone } from './tone.js';

const MAX_PROBLEMS_SHOWN = 50;

export function reportError(
  err: unknown,
  io: Io,
  opts: { debug: boolean; secrets?: string[]; color?: boolean },
): void {
  const secrets = opts.secrets ?? [];
  const lines: string[] = [];
  const message = err instanceof Error ? err.message : String(err);
  lines.push(`error: ${message}`);
  const problems = err instanceof InputError ? err.problems : undefined;
  if (Array.isArray(problems)) {
    for (const p of problems.slice(0, MAX_PROBLEMS_SHOWN)) {
      const where = [
        p.file && p.line ? `${p.file}:${p.line}` : (p.file ?? (p.line ? `line ${p.line}` : undefined)),
        p.field,
      ]
        .filter(Boolean)
        .join(' ');
      const line = `${where ? `${where}: ` : ''}${p.message}${p.expected ? ` (expected ${p.expected})` : ''}`;
      // A one-problem error often says exactly its problem ("x.csv: no such file"): once is enough.
      if (problems.length === 1 && line === message) continue;
      lines.push(`  ${line}`);
    }
    if (problems.length > MAX_PROBLEMS_SHOWN) {
      lines.push(`  … and ${problems.length - MAX_PROBLEMS_SHOWN} more problems`);
    }
  }
  if (err instanceof PayopsError && err.hint) lines.push(`hint: ${err.hint}`);
  if (!(err instanceof PayopsError) && !opts.debug) {
    lines.push('hint: this is unexpected; run again with --debug and report the output');
  }
  if (opts.debug && err instanceof Error && err.stack) lines.push(err.stack);
  // Wrapped at spaces to the terminal (a command to copy stays whole); a stack trace as it is.
  const text = lines.join('\n').split('\n');
  const fitted = opts.debug ? text : fitLines(text, io.stderr.columns);
  io.stderr.write(`${tone(terminalSafe(redactText(fitted.join('\n'), secrets)), Boolean(opts.color))}\n`);
}
