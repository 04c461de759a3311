// How many terminal columns text takes: East Asian wide and full-width characters and emoji take
// two, combining marks and joiners none. Hand-written (no Intl.Segmenter: its first use loads ICU
// data, ~17 ms of every command); good for the text payops prints — ids, amounts, names, reasons.

// Marks, joiners and variation selectors (all Mn or Cf) take no column.
const ZERO = /[\p{Mn}\p{Me}\p{Cf}]/u;
const EMOJI = /\p{Extended_Pictographic}/u;

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) || // Hangul Jamo
    (cp >= 0x2e80 && cp <= 0x303e) || // CJK radicals, punctuation
    (cp >= 0x3041 && cp <= 0x33ff) || // kana, CJK compatibility
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) || // CJK unified ideographs
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) || // Hangul syllables
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) || // full-width forms
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) || // pictographs, emoticons
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** Columns one character takes: 0, 1 or 2. */
export function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1;
  if (ZERO.test(ch)) return 0;
  if (isWide(cp) || (cp >= 0x1f000 && EMOJI.test(ch))) return 2;
  return 1;
}

/** Columns a one-line string takes on a terminal. */
export function displayWidth(s: string): number {
  let w = 0;
  // ASCII fast path: most cells are ids, amounts and dates.
  if (/^[\x20-\x7e]*$/.test(s)) return s.length;
  for (const ch of s) w += charWidth(ch);
  return w;
}

/** `s` cut to at most `width` columns, ending in `…` when something was cut. */
export function cutToWidth(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = charWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** `s` padded with spaces to `width` columns. */
export function padToWidth(s: string, width: number): string {
  const w = displayWidth(s);
  return w >= width ? s : s + ' '.repeat(width - w);
}

/**
 * `line` broken at spaces into lines at most `width` columns wide, its leading spaces kept and each
 * further line starting with `indent`; a word wider than that stays whole on its own line.
 */
export function wrapAtSpaces(line: string, width: number, indent: string): string[] {
  const lead = /^\s*/.exec(line)![0];
  const out: string[] = [];
  let cur = lead;
  for (const word of line.slice(lead.length).split(' ')) {
    const next = cur.trim() === '' ? `${cur}${word}` : `${cur} ${word}`;
    if (cur.trim() !== '' && displayWidth(next) > width) {
      out.push(cur);
      cur = `${indent}${word}`;
    } else cur = next;
  }
  out.push(cur);
  return out;
}
