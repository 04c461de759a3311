// Terminal-safe text: the one way payops shows text it did not write — a CSV cell, a file name, a
// gateway message, an address from an answer — on a terminal. A value could otherwise drive the
// terminal (an OSC sequence sets the window title, CSI clears the screen), forge a line of its own
// (a line break), or reorder what is shown (bidi overrides). Such characters are shown escaped
// (`\x1b`, `\u202e`) instead. A leaf module: error messages are built in every layer, the gateway's
// included.

/**
 * What a terminal acts on instead of printing: C0 controls, DEL, C1 controls (8-bit CSI, OSC …),
 * the Arabic letter mark, LRM/RLM, the line and paragraph separators, the bidi embeddings and
 * overrides U+202A–U+202E and the isolates U+2066–U+2069.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, but line feed and tab are left alone: for blocks of lines and table cells. */
const UNSAFE_IN_BLOCK =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const READABLE: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function hexEscape(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A value quoted inside a message: `"…"`, with its own `"` and `\` escaped and every character a
 * terminal would act on shown escaped — line breaks and tabs too, so a value never starts a line of
 * its own. This is what messages use for any text that came from a user's file or the gateway.
 */
export function quote(value: string): string {
  const inner = value
    .replace(/["\\]/g, '\\$&')
    .replace(UNSAFE, (c) => READABLE[c] ?? hexEscape(c))
    .replace(INVISIBLE, codePointEscape);
  return `"${inner}"`;
}

/**
 * Characters a terminal prints as nothing or as a mere blank: format characters (zero-width
 * spaces, a BOM, soft hyphens, bidi controls, tags), the other default-ignorable ones (combining
 * grapheme joiner, variation selectors, Hangul fillers), the braille blank and the spaces other
 * than U+0020. Harmless to a terminal, but a quoted value must show everything it holds, or two
 * different ids read the same in a message; and no id holds one (bulk/plan/validate.ts, query).
 */
const INVISIBLE_CHAR =
  /[\p{Cf}\p{Default_Ignorable_Code_Point}\u2800\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/u;
const INVISIBLE = new RegExp(INVISIBLE_CHAR.source, 'gu');

/**
 * Why an id is refused for holding an invisible character, named as `U+200B`; undefined when it
 * holds none. The bulk checks (bulk/plan/validate.ts) and query's selection both say it with these words.
 */
export function invisibleIdProblem(value: string): string | undefined {
  const found = INVISIBLE_CHAR.exec(value);
  if (!found) return undefined;
  const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `${quote(value)} contains an invisible character (${code}), which makes it look like another id`;
}

/**
 * What a reason never holds: control characters (C0, DEL, C1, a line or paragraph separator) and
 * the invisible characters of ids but the spaces (a reason may hold a no-break or an ideographic
 * space; compared by meaning, bulk/plan/reason.ts, they are spaces).
 */
const HIDDEN_IN_TEXT =
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]/u;

/**
 * Why a text (a refund reason) is refused for holding a control or invisible character, named as
 * `U+200B`; undefined when it holds none. Two reasons that differ only by such a character read
 * the same to a person, and one pasted with it was refunded again (issue 23).
 */
export function hiddenTextProblem(value: string, what: string): string | undefined {
  const found = HIDDEN_IN_TEXT.exec(value);
  if (!found) return undefined;
  const c = found[0].codePointAt(0)!;
  const code = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  const kind = c <= 0x9f || c === 0x2028 || c === 0x2029 ? 'a control character' : 'an invisible character';
  return `${quote(value)} contains ${kind} (${code}), which makes it look like another ${what}`;
}

function codePointEscape(c: string): string {
  const code = c.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text safe to print on a terminal as it stands (table cells, cards, a whole error report): line
 * feeds and tabs kept, everything else a terminal would act on shown as `\xNN` or `\uNNNN`.
 */
export function terminalSafe(value: string): string {
  return value.replace(UNSAFE_IN_BLOCK, hexEscape);
}

/**
 * A cell of a results file (CSV, .xlsx): terminalSafe's escapes, so that `cat results.csv` or a
 * viewer cannot be driven by a cell that came from an input file or the gateway (issue 24). Line
 * feeds, CRLF pairs and tabs are data a spreadsheet shows and stay; a lone CR (which would overwrite
 * the line on a terminal), ESC and the rest of UNSAFE_IN_BLOCK are written `\x0d`, `\x1b`, `\u202e`.
 */
export function cellSafe(value: string): string {
  return value.replace(UNSAFE_IN_BLOCK, (c, at: number, all: string) =>
    c === '\r' && all.charCodeAt(at + 1) === 0x0a ? c : hexEscape(c),
  );
}

/**
 * One value alone on its line, as data (an address printed for a pipe): like quote() without the
 * quotes — every character a terminal would act on escaped, line breaks included — but `"` and `\`
 * left as they are, since nothing marks where the value ends but the end of the line.
 */
export function terminalLine(value: string): string {
  return value.replace(UNSAFE, (c) => READABLE[c] ?? hexEscape(c));
}

/**
 * JSON text (from JSON.stringify) with the characters JSON.stringify leaves raw — DEL, C1, the bidi
 * controls — written as JSON `\uNNNN` escapes: the same data, still valid JSON, safe on a terminal.
 * JSON.stringify escapes C0 controls inside strings, so the raw line feeds left are its own layout,
 * and every character replaced here can only be inside a string.
 */
export function jsonTerminalSafe(json: string): string {
  return json.replace(UNSAFE_IN_BLOCK, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One character a terminal would act on (UNSAFE, without the global flag's state). */
const UNSAFE_CHAR = new RegExp(UNSAFE.source);

/**
 * A name in a line of prose — a file name, a profile, a run id: shown as it is when it is one plain
 * word, else through quote(), so a name with spaces reads as one and a name with escape sequences
 * is shown escaped. Plain names stay plain, as the user typed them.
 */
export function quoteName(name: string): string {
  return /^[^\s"\\]+$/.test(name) && !UNSAFE_CHAR.test(name) ? name : quote(name);
}

/**
 * An argument of a command the user may copy (the "resume with" line), quoted for a POSIX shell:
 * a plain word as it is, anything else in single quotes. A value with characters a terminal would
 * act on is written as bash/zsh ANSI-C text instead (`$'evil\x1b]0;…'`), which the shell reads back
 * as the same bytes and the terminal shows as plain text.
 */
export function shellQuote(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  if (!UNSAFE_CHAR.test(arg)) return `'${arg.replace(/'/g, `'\\''`)}'`;
  const inner = arg.replace(/['\\]/g, '\\$&').replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    // \xNN is a byte to the shell: above ASCII, the character's \uNNNN (encoded in the locale).
    return code < 0x80
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `$'${inner}'`;
}

/** A gateway address as it may be printed: without a user and password (a secret, never sent). */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return url;
    u.username = '';
    u.password = '';
    return u.href.replace(/\/+$/, '');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//');
  }
}
