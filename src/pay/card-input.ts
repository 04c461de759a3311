// Reads the card number and security code: a hidden prompt on a terminal, otherwise stdin, one per
// line (card number, then security code); on a terminal also the expiry when no flag gave it, and
// the confirmation before charging. The values live only in memory for the one request; they
// are never put in an error message, a log line or a file.

import { UsageError } from '../errors.js';
import type { GlobalOptions, Io } from '../io.js';
import { confirmOrExit } from '../output/confirm.js';
import { ask } from '../output/prompt.js';
import { terminalSafe } from '../quote.js';
import { luhnValid, maskPan } from '../redact.js';
import { parseExpiry } from './request.js';

export interface CardSecrets {
  /** Digits only. */
  card: string;
  securityCode: string;
}

/** stdin is read up to this many bytes: two short lines fit many times over. */
const STDIN_LIMIT = 4096;

export function normaliseCardNumber(text: string): string | undefined {
  const t = text.trim();
  if (!/^[\d -]+$/.test(t)) return undefined;
  const digits = t.replace(/[ -]/g, '');
  return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? digits : undefined;
}

export function isSecurityCode(text: string): boolean {
  return /^\d{3,4}$/.test(text);
}

/** Checks both values; messages never repeat what was typed. */
export function checkCardSecrets(cardText: string, codeText: string): CardSecrets {
  const card = normaliseCardNumber(cardText);
  if (card === undefined) {
    throw new UsageError('the card number is not valid (it must be 13–19 digits and pass the Luhn check)', {
      hint: 'check the digits and try again; spaces and dashes between groups are fine',
    });
  }
  const securityCode = codeText.trim();
  if (!isSecurityCode(securityCode)) {
    throw new UsageError('the security code must be 3 or 4 digits');
  }
  return { card, securityCode };
}

/** Reads stdin until two non-empty lines are complete (or EOF), so a pipe left open does not hang. */
async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    const complete = text.split(/\r?\n/).slice(0, -1);
    if (complete.filter((l) => l.trim() !== '').length >= 2 || text.length > STDIN_LIMIT) break;
  }
  return text;
}

/** Parses the stdin text: the first two non-empty lines. */
export function secretsFromLines(text: string): CardSecrets {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length < 2) {
    throw new UsageError(
      lines.length === 0
        ? 'no card number on stdin'
        : 'only one line on stdin: expected the card number, then the security code',
      {
        hint: 'on a terminal payops asks for both (hidden); from a script pipe two lines: the card number, then the security code',
      },
    );
  }
  return checkCardSecrets(lines[0]!, lines[1]!);
}

/**
 * The card number and security code (and, when `askExpiry`, the expiry: on a terminal only, as
 * runPay asks for it only there). The expiry is no secret and shows as typed.
 */
export async function readCardSecrets(
  io: Io,
  opts: { askExpiry?: boolean } = {},
): Promise<CardSecrets & { expiry?: { month: string; year: string } }> {
  if (!io.stdin.isTTY) return secretsFromLines(await readStdin(io.stdin));
  // Ctrl-C at any of the prompts: exit 130, nothing was sent (output/prompt.ts).
  return ask(io, async ({ password, input }, streams) => {
    const cardText = await password(
      {
        message: 'Card number',
        mask: '*',
        validate: (v) =>
          normaliseCardNumber(v) !== undefined || 'not a valid card number (13–19 digits, Luhn)',
      },
      streams,
    );
    const codeText = await password(
      { message: 'Security code', mask: '*', validate: (v) => isSecurityCode(v.trim()) || '3 or 4 digits' },
      streams,
    );
    const secrets = checkCardSecrets(cardText, codeText);
    if (!opts.askExpiry) return secrets;
    const expiryText = await input(
      {
        message: 'Expiry (MM/YYYY)',
        validate: (v) => parseExpiry(v) !== undefined || 'a month and year, e.g. 12/2030',
      },
      streams,
    );
    return { ...secrets, expiry: parseExpiry(expiryText)! };
  });
}

/** What a payment is about to do, as the confirmation asks it. */
export type Charge =
  | { kind: 'card'; amount: string; currency: string; card: string; expiry: string }
  | { kind: 'token'; amount: string; currency: string; token: string }
  | { kind: 'apm'; amount: string; currency: string; method: string }
  | { kind: 'checkout'; amount: string; currency: string };

export function chargeQuestion(c: Charge): string {
  const money = `${terminalSafe(c.currency)} ${terminalSafe(c.amount)}`;
  switch (c.kind) {
    case 'card':
      return `Charge ${money} to card ${maskPan(c.card)} (expires ${terminalSafe(c.expiry)})?`;
    case 'token':
      return `Charge ${money} to the stored card of token ${terminalSafe(c.token)}?`;
    case 'apm':
      return `Start a payment of ${money} by ${terminalSafe(c.method)}?`;
    case 'checkout':
      return `Create a hosted checkout for ${money}?`;
  }
}

/**
 * Before any payment is sent: on a terminal the amount, the currency and the card as the receipt
 * will show it (masked), or the token, method or checkout. --yes answers for the person; without a
 * terminal and without --yes it is refused (exit 2, nothing sent), as refunds and payouts are; No
 * ends with nothing sent (exit 2), Ctrl-C too (130).
 */
export async function confirmCharge(io: Io, globals: GlobalOptions, charge: Charge): Promise<void> {
  await confirmOrExit(io, globals, chargeQuestion(charge));
}
