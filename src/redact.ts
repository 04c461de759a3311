// Card helpers (Luhn check, PAN masking) and the masking of card data and secrets in text and wire
// bodies: a leaf module, imported by the gateway's --debug log, the sandbox, the payment input
// checks, the argument guard and every writer of output. A card number is shown at most as first 6
// and last 4 digits; a security code and a sign key are never shown at all.
//
// What can be a card number: 13–19 digits starting with 2–6 (the ranges card schemes issue) that
// pass Luhn, written plain or in groups separated by spaces, tabs, dots or dashes (one or more), in
// text or as a JSON number. A card field is known by any name that holds a card word (cardFieldKind:
// card_number, cardNumber, card_cvv, card_security …). One Luhn-valid number in ten
// is no card: a CNPJ, a YYYYMMDDhhmmss date, a gateway transaction id. Where the field is known (a
// body, a form, an XML element, a flag), fields the spec defines as numeric identifiers and
// timestamps are left alone (isIdentifierField); free text is masked wherever a number can be one.
//
// One file, though long: a leaf every layer imports (it imports nothing), and the rules of what is a
// card number and where one is left alone are checked more easily read together than split.

/** Secrets that are no card field: dropped from logs like a security code. */
const SECRET_FIELDS = new Set(['sign_key', 'signKey', 'password']);

/** Words of a field name that alone make it a security code or a card number field. */
const CODE_WORDS = new Set(['cvv', 'cvv2', 'cvc', 'cvc2', 'securitycode']);
const PAN_WORDS = new Set(['pan', 'cardnumber']);

/**
 * What card data a field holds by its name: 'pan' (card, card_number, cardNumber, card_no, pan …),
 * 'code' (security_code, securityCode, cvv, card_cvv, card_security …) or undefined. The name is
 * read as words (snake, kebab and camel case), and a card word counts only as a whole word, or a
 * pair of them (card+number, security+code, card+security): company, span, discard and card_type
 * are not card fields. Card fields are refused as input, masked or dropped in output.
 */
export function cardFieldKind(name: string): 'pan' | 'code' | undefined {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.length === 1 && words[0] === 'card') return 'pan';
  let kind: 'pan' | 'code' | undefined;
  words.forEach((w, i) => {
    const next = words[i + 1];
    if (CODE_WORDS.has(w) || (w === 'security' && next === 'code') || (w === 'card' && next === 'security'))
      kind = 'code';
    else if (
      kind === undefined &&
      (PAN_WORDS.has(w) || (w === 'card' && (next === 'number' || next === 'no')))
    )
      kind = 'pan';
  });
  return kind;
}

export function maskPan(pan: string): string {
  // Already masked (a gateway's answer, or a second pass): as it is.
  if (/^\d{0,6}\*+\d{0,4}$/.test(pan)) return pan;
  const digits = pan.replace(/\D/g, '');
  if (digits.length < 13) return '*'.repeat(digits.length);
  return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

/** Luhn check of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** True for 13–19 digits starting 2–6 that pass Luhn: what a card number looks like. */
export function looksLikePan(value: string): boolean {
  return /^[2-6]\d{12,18}$/.test(value) && luhnValid(value);
}

// --- numeric identifiers and timestamps (gateway-api.md) ---

/**
 * Fields of the spec that hold numbers which are not card numbers, by exact name: the ids the
 * gateway issues (transaction_id, refund_reference_id, recurring_id …), the merchant's order and
 * account numbers, references, documents and bank numbers. Ids a merchant makes up freely
 * (shopper_id, session_id, productId) are not among them: a card number there is still one.
 */
const IDENTIFIER_NAMES = new Set([
  'merchant_id',
  'account_id',
  'transaction_id',
  'order_no',
  'orderNo',
  'merNo',
  'reference_no',
  'reference',
  'refund_reference',
  'refund_reference_id',
  'short_reference_id',
  'transaction_reference',
  'recurring_id',
  'beneficiary_id',
  'payer_id',
  'request_id',
  'document',
  'business_registration_number',
  'personal_id_number',
  'account_number',
  'branch_number',
  'address_number',
  'postcode',
  'created',
]);
/**
 * The same by the shape of the name: document numbers (`document_number`, `owner_document_number`),
 * phones, postal codes, dates and times (`transaction_date`, `refund_processing_date`,
 * `recurring_deduction_time`, `checkout_time`, `created_at`).
 */
const IDENTIFIER_SHAPE =
  /(?:^|_)(?:document_number|phone|phone_number|mobile_number|postal_code|date|time|at)$/;

/**
 * Whether a field (its own name, not a path) holds a numeric identifier or a timestamp that must not
 * be taken for a card number. Never the card fields; nor token_id (a card token may be card-shaped).
 */
export function isIdentifierField(name: string): boolean {
  if (cardFieldKind(name) !== undefined) return false;
  return IDENTIFIER_NAMES.has(name) || IDENTIFIER_SHAPE.test(name);
}

// --- card numbers in free text ---

/**
 * Runs of digit groups: groups joined by spaces, tabs, dots or dashes (one or more: "4242  4242",
 * "4242 - 4242", "4242.4242"), the whole not touching another digit.
 */
const DIGIT_CHAIN = /(?<!\d)\d+(?:[ \t.\u00a0\u2000-\u200a\u202f\u3000-]+\d+)*(?!\d)/g;

/** One decimal digit of any script in the BMP (full-width `４`, Arabic-Indic `٤` …). */
const OTHER_DIGIT = /\p{Nd}/u;

/**
 * `text` with every decimal digit of another script as its ASCII digit, one UTF-16 unit for one, so
 * that positions stay the same: `４２４２…` is a card number to a person and to the gateway.
 */
function asciiDigits(text: string): string {
  // Without a u flag the pattern sees UTF-16 units, so an astral character's halves stay as they are.
  return NON_ASCII.test(text)
    ? text.replace(NON_ASCII_ALL, (ch) => {
        const digit = OTHER_DIGIT.test(ch) ? digitValue(ch.charCodeAt(0)) : undefined;
        return digit === undefined ? ch : String(digit);
      })
    : text;
}

const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_ALL = /[^\x00-\x7f]/g;

/** The value of a BMP decimal digit: Unicode puts each script's 0–9 in a run of ten. */
function digitValue(code: number): number | undefined {
  for (let zero = code; zero > code - 10; zero--) {
    if (!OTHER_DIGIT.test(String.fromCharCode(zero - 1))) return code - zero;
  }
  return undefined;
}

interface Span {
  start: number;
  end: number;
}

/**
 * Where card numbers are in `text`: a plain run of 13–19 digits, or groups as cards are printed — a
 * first group of 4, then 2 to 4 groups of 3–6 (4-4-4-4, 4-6-5, 4-6-4, 4-4-4-4-3). The longest such
 * prefix of a chain that is a card number counts, so "4242 4242 4242 4242 737" gives the card and
 * leaves the 737.
 */
export function findCardNumbers(original: string): Span[] {
  const text = asciiDigits(original);
  const spans: Span[] = [];
  for (const m of text.matchAll(DIGIT_CHAIN)) {
    const chain = m[0];
    const groups: Span[] = [];
    for (const g of chain.matchAll(/\d+/g))
      groups.push({ start: m.index + g.index, end: m.index + g.index + g[0].length });
    let i = 0;
    while (i < groups.length) {
      const end = groupedCardEnd(text, groups, i);
      if (end > i) {
        spans.push({ start: groups[i]!.start, end: groups[end]!.end });
        i = end + 1;
        continue;
      }
      const one = text.slice(groups[i]!.start, groups[i]!.end);
      if (looksLikePan(one)) spans.push(groups[i]!);
      i++;
    }
  }
  return spans;
}

/** The last group of the longest grouped card number starting at group `i`, or `i` when none does. */
function groupedCardEnd(text: string, groups: readonly Span[], i: number): number {
  const len = (g: Span) => g.end - g.start;
  if (len(groups[i]!) !== 4) return i;
  for (let j = Math.min(i + 4, groups.length - 1); j >= i + 2; j--) {
    let fits = true;
    for (let k = i + 1; k <= j && fits; k++) fits = len(groups[k]!) >= 3 && len(groups[k]!) <= 6;
    if (!fits) continue;
    const digits = text.slice(groups[i]!.start, groups[j]!.end).replace(/\D/g, '');
    if (digits.length >= 13 && looksLikePan(digits)) return j;
  }
  return i;
}

/**
 * Whether `text` has 13 digits or more in all, the fewest a card number has: a loop with no regular
 * expression, so the writers of output and the row checks of a million-row file skip nearly every
 * cell before any search.
 */
export function mayHoldCardNumber(text: string): boolean {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (((c >= 48 && c <= 57) || (c > 127 && isOtherDigit(text, i))) && ++digits >= 13) return true;
  }
  return false;
}

function isOtherDigit(text: string, i: number): boolean {
  return OTHER_DIGIT.test(text[i]!);
}

/**
 * Whether one cell of an input file (a bulk or payout row, a request value) holds a card number:
 * any field but the numeric identifiers of the spec (isIdentifierField), by its own name.
 */
export function cellHoldsCardNumber(field: string, text: string): boolean {
  return mayHoldCardNumber(text) && !isIdentifierField(field) && containsCardNumber(text);
}

/**
 * The paths (`beneficiary.bank_details.account_name`, `items[2]`) of values at any depth that hold
 * a card number, also inside text or as a JSON number; identifier fields are not looked at.
 */
export function cardNumberPaths(value: unknown, path = '', field?: string, out: string[] = []): string[] {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' && Number.isInteger(value)
        ? String(value)
        : undefined;
  if (text !== undefined) {
    if (
      mayHoldCardNumber(text) &&
      (field === undefined || !isIdentifierField(field)) &&
      containsCardNumber(text)
    )
      out.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      cardNumberPaths(v, `${path}[${i}]`, field, out);
    });
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) cardNumberPaths(v, path === '' ? k : `${path}.${k}`, k, out);
  }
  return out;
}

/** Whether `text` holds a card number anywhere (plain or grouped). */
export function containsCardNumber(text: string): boolean {
  return findCardNumbers(text).length > 0;
}

/** Every card number in `text` replaced by its masked form (first 6 and last 4 digits). */
export function maskCardNumbers(text: string): string {
  const spans = findCardNumbers(text);
  if (spans.length === 0) return text;
  const ascii = asciiDigits(text);
  let out = '';
  let at = 0;
  for (const { start, end } of spans) {
    out += text.slice(at, start) + maskPan(ascii.slice(start, end));
    at = end;
  }
  return out + text.slice(at);
}

/**
 * A security code written after its label ("cvv 737", "CVC: 1234", "security_code=987", "security
 * code 555"). A 3–4 digit number alone cannot be told from any other, but next to its label it is
 * one, and a security code may never be stored or logged (PCI DSS); masking a stray number after
 * such a word costs nothing.
 */
const LABELLED_CODE = /\b(cvv2?|cvc2?|cid|security[ _-]?code)(\s*[:=]?\s*)(\d{3,4})(?!\d)/gi;

/** Sign keys and other known secrets removed from text. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('****');
  }
  return out;
}

/** Free text fit for output: card numbers masked, labelled security codes and secrets hidden. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  const masked = maskCardNumbers(text).replace(
    LABELLED_CODE,
    (_m, label: string, sep: string, code: string) => `${label}${sep}${'*'.repeat(code.length)}`,
  );
  return redactSecrets(masked, secrets);
}

// --- output: every table, card, CSV, JSON and workbook payops writes (issue 24) ---

/** A word that can label a security code: only text holding one needs LABELLED_CODE. */
const CODE_LABEL = /cvv|cvc|cid|security/i;

/**
 * Free text fit for output, skipping the searches when it cannot hold a card number (13 digits) or
 * a labelled code (3 digits and a label): one pass counting digits decides for nearly every cell.
 */
function redactOutputText(text: string): string {
  let digits = 0;
  // A c or an s (any case): every label starts with one (cvv, cvc, cid, security).
  let label = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c > 127 && isOtherDigit(text, i))) {
      if (++digits >= 13) return redactText(text);
    } else if ((c | 0x20) === 0x63 || (c | 0x20) === 0x73) label = true;
  }
  if (digits < 3 || !label || !CODE_LABEL.test(text)) return text;
  return redactText(text);
}

/** A card field's value: masked when it is a number, else (a label, a masked card) as free text. */
function redactPanValue(text: string): string {
  return /^[\d .-]{12,}$/.test(text) && /\d/.test(text) ? maskPan(text) : redactOutputText(text);
}

/**
 * How the values of one output column (or card label, or JSON key) are shown, as the --debug log
 * shows them: a card field masked, the spec's numeric identifiers as they are (undefined: nothing
 * to do), anything else with card numbers masked and labelled security codes hidden. Made once per
 * column by the writers, so a million-row file pays a digit count per cell, no search.
 */
export function outputRedactor(field: string | undefined): ((text: string) => string) | undefined {
  if (field === undefined) return redactOutputText;
  // By name, once: this runs for every cell of a results file and every row of a gateway answer.
  let r = REDACTORS.get(field);
  if (r === undefined) {
    r = redactorFor(field) ?? null;
    if (REDACTORS.size < 1000) REDACTORS.set(field, r);
  }
  return r ?? undefined;
}

const REDACTORS = new Map<string, ((text: string) => string) | null>();

function redactorFor(field: string | undefined): ((text: string) => string) | undefined {
  if (field !== undefined && cardFieldKind(field) === 'pan') return redactPanValue;
  if (field !== undefined && cardFieldKind(field) === 'code') return (t) => (t === '' ? t : '***');
  if (field !== undefined && isIdentifierField(field)) return undefined;
  return redactOutputText;
}

/** One value fit for output under `field` (a column, a card label). */
export function redactOutput(field: string | undefined, text: string): string {
  if (text === '') return text;
  const r = outputRedactor(field);
  return r === undefined ? text : r(text);
}

/**
 * A JSON.stringify replacer for output: strings and integers by their key (redactOutput; an array's
 * elements by their index, as free text), bigint as decimal text, the rest as it is.
 */
export function outputJsonReplacer(key: string, value: unknown): unknown {
  if (typeof value === 'string')
    return redactOutput(key === '' || /^\d+$/.test(key) ? undefined : key, value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1e12)
    return redactNumber(key === '' || /^\d+$/.test(key) ? undefined : key, value);
  return value;
}

/** One field's value fit for logs: by its name when that says what it holds, else as free text. */
function redactField(key: string, value: string): string {
  if (cardFieldKind(key) === 'pan') return maskPan(value);
  if (isIdentifierField(key)) return value;
  return redactText(value);
}

/** Whether a field is dropped from logs: a security code, a sign key, a password. */
function isSecretField(key: string): boolean {
  return SECRET_FIELDS.has(key) || cardFieldKind(key) === 'code';
}

/**
 * A JSON number fit for logs. A card number sent as a number is masked (as text) like one sent as a
 * string. Beyond 2^53 (17 digits and more) the number held is no longer the digits that were sent,
 * so Luhn cannot tell: such a number that could be a card is masked all the same. Wire text keeps
 * the exact digits (longNumbersAsStrings) and never gets here with one.
 */
function redactNumber(key: string | undefined, value: number): number | string {
  if (!Number.isInteger(value) || value < 0) return value;
  const digits = String(value);
  if (key !== undefined && cardFieldKind(key) === 'pan') return maskPan(digits);
  if (key !== undefined && isIdentifierField(key)) return value;
  if (!/^[2-6]\d{12,18}$/.test(digits)) return value;
  return !Number.isSafeInteger(value) || luhnValid(digits) ? maskPan(digits) : value;
}

/** One value of a body under field `key` (an array's elements take the array's field). */
function redactValue(key: string | undefined, value: unknown): unknown {
  if (typeof value === 'string') return key === undefined ? redactText(value) : redactField(key, value);
  if (typeof value === 'number') return redactNumber(key, value);
  if (Array.isArray(value)) return value.map((v) => redactValue(key, v));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (isSecretField(k)) continue;
      // defineProperty: a "__proto__" key of parsed JSON stays a key, never the copy's prototype.
      const safe = redactValue(k, v);
      Object.defineProperty(out, k, { value: safe, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** A deep copy of a request or response body fit for logs: card masked, secrets dropped. */
export function redactBody<T>(body: T): T {
  return redactValue(undefined, body) as T;
}

/**
 * JSON text with every integer of 13 digits or more written as a string of the same digits, so that
 * JSON.parse keeps them exactly (a double holds 16 digits at most) and a card number sent as a
 * number is judged by its digits. Strings are skipped whole, so digits inside them stay as they are;
 * text that is not JSON comes back changed only where it had such numbers, and fails to parse as before.
 */
export function longNumbersAsStrings(json: string): string {
  return json.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (token) =>
    /^\d{13,}$/.test(token) ? `"${token}"` : token,
  );
}

/** HTML elements that have no end tag (a checkout page is HTML). */
const VOID_ELEMENTS = new Set([
  'input',
  'meta',
  'link',
  'br',
  'hr',
  'img',
  'area',
  'base',
  'col',
  'source',
  'wbr',
]);

/** Secret elements removed, card elements masked, identifier elements kept, other text masked. */
function redactMarkup(text: string): string {
  const open: string[] = [];
  return text
    .split(/(<[^>]*>)/)
    .map((token) => {
      if (token.startsWith('<')) {
        const tag = /^<(\/)?([A-Za-z_][\w.-]*)/.exec(token);
        const name = tag?.[2];
        if (tag && name && !token.endsWith('/>') && !VOID_ELEMENTS.has(name.toLowerCase())) {
          // An end tag closes its element and whatever was left open inside it.
          if (!tag[1]) open.push(name);
          else if (open.lastIndexOf(name) >= 0) open.length = open.lastIndexOf(name);
        }
        // Attributes (an HTML form's hidden inputs) are free text.
        return redactText(token);
      }
      const element = open[open.length - 1];
      if (token === '' || element === undefined) return redactText(token);
      if (isSecretField(element)) return '[removed]';
      return redactField(element, token);
    })
    .join('');
}

/** Form-urlencoded, JSON, XML or HTML text fit for logs. */
export function redactWireBody(text: string, contentType: string | undefined): string {
  if (contentType?.includes('json')) {
    try {
      return JSON.stringify(redactBody(JSON.parse(longNumbersAsStrings(text))));
    } catch {
      return redactText(text);
    }
  }
  if (contentType?.includes('x-www-form-urlencoded')) {
    const params = new URLSearchParams(text);
    const out = new URLSearchParams();
    for (const [key, value] of params) {
      if (!isSecretField(key)) out.append(key, redactField(key, value));
    }
    return out.toString();
  }
  return redactMarkup(text);
}
