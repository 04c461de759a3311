// Card numbers never travel as command-line arguments: they would land in shell history, `ps`
// output and CI logs. This check runs on the raw argv before commander parses it, so a card number
// typed as an argument is refused even when the flag it follows does not exist.
import { UsageError } from '../errors.js';
import { luhnValid } from '../redact.js';

/**
 * True when the text is a card number as people type it: 13–19 digits that pass Luhn, optionally
 * grouped with spaces or dashes. The whole text must be the number, so order numbers and dates
 * that merely contain long digit runs are not caught.
 */
export function isCardLike(text: string): boolean {
  const t = text.trim();
  if (!/^\d[\d -]*\d$/.test(t)) return false;
  const digits = t.replace(/[ -]/g, '');
  return digits.length >= 13 && digits.length <= 19 && luhnValid(digits);
}

/** Positions (0-based) of the arguments that hold a card number, also as `--flag=NUMBER`. */
export function findCardArguments(argv: readonly string[]): number[] {
  const found: number[] = [];
  argv.forEach((arg, i) => {
    const eq = arg.startsWith('-') ? arg.indexOf('=') : -1;
    const value = eq >= 0 ? arg.slice(eq + 1) : arg;
    if (isCardLike(value)) found.push(i);
  });
  return found;
}

/** Throws a usage error (exit 2, nothing sent) when any argument is a card number. Never echoes it. */
export function refuseCardArguments(argv: readonly string[]): void {
  const found = findCardArguments(argv);
  if (found.length === 0) return;
  const which = found.map((i) => `#${i + 1}`).join(', ');
  throw new UsageError(
    `refusing to run: argument ${which} looks like a card number, and card numbers are never taken from the command line`,
    {
      hint:
        'leave the card number out of the arguments: payops asks for it (hidden) on a terminal, or reads it from ' +
        'stdin, one per line: card number, then security code — e.g. `payops pay card … < card.txt`. ' +
        'Clear it from your shell history (e.g. `history -d N`).',
    },
  );
}
