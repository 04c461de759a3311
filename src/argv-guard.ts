// Card data never travels as command-line arguments: it would land in shell history, `ps` output and
// CI logs. This check runs on the raw argv of every command before commander parses it
// (src/commands/argv-guard.ts), so card data is refused even where the flag does not exist.
//
// Each argument is judged with the field it sets, when there is one: `--note X` and `--note=X` set
// note, `--data a.b=X` sets a.b, `config set KEY X` sets KEY. Card fields (card, security_code, cvv,
// card_security, cardNumber … — redact.ts's cardFieldKind — at any depth of a --data path, or as a
// flag) are refused whatever their value. A value that holds a card number (src/redact.ts: 13–19
// digits from 2–6, Luhn, plain or grouped) is refused, except in fields the spec defines as numeric
// identifiers or timestamps (a CNPJ in document passes Luhn). A value that is JSON text (`--json
// '{"security_code":"737"}'`) is judged field by field the same way.
import { UsageError } from './errors.js';
import {
  cardFieldKind,
  containsCardNumber,
  findCardNumbers,
  isIdentifierField,
  longNumbersAsStrings,
} from './redact.js';

/**
 * True when the whole text is one card number as people type it: 13–19 digits starting 2–6 that pass
 * Luhn, plain or grouped as cards are printed (4-4-4-4, 4-6-5 …; see findCardNumbers). A run id such
 * as 20261124-000125-4567 is digits and dashes too, but not grouped like a card.
 */
export function isCardLike(text: string): boolean {
  const t = text.trim();
  const spans = findCardNumbers(t);
  return spans.length === 1 && spans[0]!.start === 0 && spans[0]!.end === t.length;
}

export interface CardArgument {
  /** Position in argv (0-based). */
  index: number;
  /** The field it sets as the user wrote it: `--note`, `--data card`, `merchant_id`; none for a bare argument. */
  field?: string;
  why: 'card field' | 'card number';
}

/** Flags of payops itself that take a date (query --from 20261122134707: 14 digits, one in ten Luhn-valid). */
const DATE_FLAGS: ReadonlySet<string> = new Set(['from', 'to']);

/** `card.number`, `list[0].security_code`, `--security-code` → ['card', 'number'] … in snake case. */
function segmentsOf(path: string): string[] {
  return path
    .split(/[.[\]]+/)
    .filter((s) => s !== '' && !/^\d+$/.test(s))
    .map((s) => s.replace(/-/g, '_'));
}

const isCardSegment = (segment: string) => cardFieldKind(segment) !== undefined;

/** The verdict on one value that sets `path` (undefined for a bare argument). */
function judge(
  index: number,
  field: string | undefined,
  path: string | undefined,
  value: string,
): CardArgument | undefined {
  const segments = path === undefined ? [] : segmentsOf(path);
  const at = field === undefined ? {} : { field };
  if (segments.some(isCardSegment)) return { index, ...at, why: 'card field' };
  if (/^\s*[[{]/.test(value)) {
    const inJson = judgeJson(index, field, path, value);
    if (inJson !== NOT_JSON) return inJson;
  }
  const last = segments[segments.length - 1];
  if (last !== undefined && (isIdentifierField(last) || DATE_FLAGS.has(last))) return undefined;
  return containsCardNumber(value) ? { index, ...at, why: 'card number' } : undefined;
}

const NOT_JSON = Symbol('not JSON');

/**
 * JSON text given as an argument: each value judged with the path that holds it, under the flag
 * (`--json security_code`, `--data body.card`), so identifiers inside pass as they do in --data.
 * Text that does not parse is refused when something in it reads as a card field's key (`{'cvv':
 * 737}`), else it is NOT_JSON and judged as text.
 */
function judgeJson(
  index: number,
  field: string | undefined,
  path: string | undefined,
  text: string,
): CardArgument | undefined | typeof NOT_JSON {
  let parsed: unknown;
  try {
    parsed = JSON.parse(longNumbersAsStrings(text));
  } catch {
    for (const m of text.matchAll(/([A-Za-z_][\w-]*)["']?\s*:/g))
      if (isCardSegment(m[1]!))
        return { index, ...(field === undefined ? {} : { field }), why: 'card field' };
    return NOT_JSON;
  }
  const walk = (value: unknown, at: string): CardArgument | undefined => {
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const found = walk(v, Array.isArray(value) ? `${at}[${k}]` : at === '' ? k : `${at}.${k}`);
        if (found) return found;
      }
      return undefined;
    }
    const inner =
      path === undefined ? at : at === '' ? path : at.startsWith('[') ? `${path}${at}` : `${path}.${at}`;
    const label = [field, at].filter(Boolean).join(' ');
    return judge(index, label === '' ? undefined : label, inner, String(value));
  };
  return walk(parsed, '');
}

/** Flags whose value is a path: the file read (--file, --request, --json) or written (--out). */
const FILE_FLAGS: ReadonlySet<string> = new Set(['file', 'out', 'request', 'json']);

/** How the guard asks whether a path names something on disk (relative to the working folder). */
export type PathExists = (path: string) => boolean;

/**
 * A file-name argument whose digits are no card number (issue 24: `--file
 * refunds-4242424242424242.csv` was refused): a path given to a file flag that exists, or that
 * reads as a path (a folder part or an extension) and is not a card number as a whole (a results
 * file need not exist yet); a bare argument (a command's file, `payops refund FILE`) that exists.
 */
function isFileName(flag: string | undefined, text: string, exists: PathExists): boolean {
  if (text === '' || text === '-') return false;
  if (flag === undefined) return exists(text);
  if (!FILE_FLAGS.has(flag)) return false;
  if (exists(text)) return true;
  return !isCardLike(text) && (/[\\/]/.test(text) || /\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(text));
}

/**
 * The arguments that carry card data, in order. A flag is taken to set the argument after it (a
 * boolean flag followed by a bare argument gives that argument the flag's name, which only matters
 * for identifier names, and no boolean flag has one). `exists` tells file-name arguments
 * (isFileName); without it nothing is taken to exist.
 */
export function findCardArguments(argv: readonly string[], exists: PathExists = () => false): CardArgument[] {
  const found: CardArgument[] = [];
  let flag: string | undefined;
  let onlyPositionals = false;
  const push = (verdict: CardArgument | undefined) => {
    if (verdict) found.push(verdict);
  };
  const value = (index: number, name: string | undefined, text: string) => {
    if (name === 'data') {
      const eq = text.indexOf('=');
      const key = eq > 0 ? text.slice(0, eq) : text;
      push(judge(index, `--data ${key}`, key, eq > 0 ? text.slice(eq + 1) : ''));
    } else if (name !== undefined) {
      if (!isFileName(name, text, exists)) push(judge(index, `--${name}`, name, text));
    } else {
      // `config set KEY VALUE`: the value sets KEY.
      const key = argv[index - 3] === 'config' && argv[index - 2] === 'set' ? argv[index - 1] : undefined;
      if (key !== undefined || !isFileName(undefined, text, exists)) push(judge(index, key, key, text));
    }
  };
  // A card flag with no value after it is refused at the flag itself.
  const cardFlagAlone = (index: number) => {
    const name = flag;
    if (name !== undefined && segmentsOf(name).some(isCardSegment))
      found.push({ index: index - 1, field: `--${name}`, why: 'card field' });
  };
  argv.forEach((arg, index) => {
    if (!onlyPositionals && arg === '--') {
      cardFlagAlone(index);
      onlyPositionals = true;
      flag = undefined;
    } else if (!onlyPositionals && arg.startsWith('--')) {
      cardFlagAlone(index);
      const eq = arg.indexOf('=');
      if (eq > 0) {
        value(index, arg.slice(2, eq), arg.slice(eq + 1));
        flag = undefined;
      } else flag = arg.slice(2);
    } else if (!onlyPositionals && /^-[A-Za-z]/.test(arg)) {
      cardFlagAlone(index);
      flag = undefined; // -y, -v, -q: no short flag takes a value
    } else {
      value(index, flag, arg);
      flag = undefined;
    }
  });
  cardFlagAlone(argv.length);
  return found;
}

const HINTS: Readonly<Record<string, string>> = {
  pay:
    'payops asks for the card number and security code (hidden) on a terminal, or reads them from stdin, ' +
    'one per line — e.g. `printf \'%s\\n%s\\n\' "$CARD" "$CVC" | payops pay card …`.',
  call:
    '`payops call` takes card data only in a JSON body on stdin: `payops call /v1/authorise --json -`; ' +
    'for a card payment use `payops pay card`, which asks for the card number and security code (hidden) or reads them from stdin.',
};
const DEFAULT_HINT =
  'card numbers go only to `payops pay card`, which asks for them (hidden) on a terminal or reads them from stdin.';

/**
 * Throws a usage error (exit 2, nothing sent) when arguments carry card data, naming each argument
 * and the field it sets, and saying how to pass card data instead. Never echoes a value.
 */
export function refuseCardArguments(argv: readonly string[], command?: string, exists?: PathExists): void {
  const found = findCardArguments(argv, exists);
  if (found.length === 0) return;
  const which = found
    .map((f) => {
      const what = f.why === 'card field' ? 'is a card field' : 'looks like a card number';
      return `argument #${f.index + 1}${f.field ? ` (${f.field})` : ''} ${what}`;
    })
    .join(', ');
  const numberOnly = found.every((f) => f.why === 'card number' && f.field !== undefined);
  const elsewhere =
    numberOnly && command === 'call'
      ? ' A value that only looks like a card number can go in the --json body instead.'
      : '';
  throw new UsageError(
    `refusing to run: ${which}; card numbers and security codes are never taken from the command line`,
    {
      hint: `${HINTS[command ?? ''] ?? DEFAULT_HINT}${elsewhere} Clear the arguments from your shell history (e.g. \`history -d N\`).`,
    },
  );
}
