// How many terminal columns text takes, as string-width counts them (the test compares): a
// character's width is its Unicode East Asian Width (get-east-asian-width, bundled: ambiguous ones
// narrow), marks, joiners and other invisible characters none; a grapheme cluster (👍🏽, 👨‍👩‍👧, a
// flag, e + ◌́) counts as the one glyph a terminal draws. Two fast paths, because the shell loads this
// at every start and tables call it for every cell: printable ASCII is its length, and text with no
// character that can join a cluster is summed per character. Only the rest goes through
// Intl.Segmenter, whose first use loads ICU data (~17 ms).
import { eastAsianWidth } from 'get-east-asian-width';

// Signs like ARABIC NUMBER SIGN are Format characters but visible: one column each.
const PREPENDED_MARKS = '\\u{600}-\\u{605}\\u{6DD}\\u{890}\\u{891}\\u{8E2}\\u{110BD}\\u{110CD}';
// The `v` flag (set operations, \p{RGI_Emoji}): node 20 has it, TypeScript's ES2022 target does not
// know it, so these are built with `new RegExp`.
const V = 'v';
const VISIBLE = new RegExp(
  `[^\\p{Default_Ignorable_Code_Point}\\p{Control}\\p{Enclosing_Mark}\\p{Nonspacing_Mark}[\\p{Format}--[${PREPENDED_MARKS}]]]`,
  V,
);
/** A character that may join the one before it (or the next) into one glyph. */
const JOINS =
  /[\p{M}\p{Default_Ignorable_Code_Point}\p{Emoji_Modifier}\p{Regional_Indicator}\u{1100}-\u{11FF}\u{A960}-\u{A97F}\u{D7B0}-\u{D7FF}\u{600}-\u{605}\u{6DD}\u{890}\u{891}\u{8E2}\u{110BD}\u{110CD}\u{FF9E}\u{FF9F}\u{E0020}-\u{E007F}]/u;
const EMOJI_START = new RegExp('^(?:\\p{RGI_Emoji}|\\p{Regional_Indicator}{1,2}|[\\d#*]\\u{FE0F})', V);
const EMOJI_ZWJ = /\u{200D}\p{Extended_Pictographic}/u;
const TEXT_STYLE_EMOJI = new RegExp('^[\\p{Emoji_Presentation}--[\\u{10000}-\\u{10FFFF}]]\\u{FE0E}', V);
const REGIONAL_INDICATOR = /\p{Regional_Indicator}/u;

/** Columns one character (code point) takes: 0, 1 or 2. */
export function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  // Latin, Greek and the like: no wide character below U+0300, and only the soft hyphen invisible.
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp === 0xad ? 0 : 1;
  // Common Han and Hangul syllables.
  if ((cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7a3)) return 2;
  if (!VISIBLE.test(ch)) return 0;
  // A lone regional indicator is drawn as a wide letter in a box.
  return REGIONAL_INDICATOR.test(ch) ? 2 : eastAsianWidth(cp);
}

const isHangul = (cp: number) =>
  (cp >= 0x1100 && cp <= 0x11ff) ||
  (cp >= 0xa960 && cp <= 0xa97c) ||
  (cp >= 0xac00 && cp <= 0xd7a3) ||
  (cp >= 0xd7b0 && cp <= 0xd7fb);

/** Columns one grapheme cluster takes. */
function clusterWidth(cluster: string): number {
  if (cluster.length === 1 || (cluster.length === 2 && cluster.codePointAt(0)! > 0xffff)) {
    return charWidth(cluster);
  }
  const at = cluster.search(VISIBLE);
  if (at === -1) return 0;
  const visible = cluster.slice(at);
  // A syllable block built from jamo: as wide as its first one.
  if (isHangul(cluster.codePointAt(0)!)) return eastAsianWidth(cluster.codePointAt(0)!);
  if (TEXT_STYLE_EMOJI.test(visible)) return 1;
  if (EMOJI_START.test(visible) || EMOJI_ZWJ.test(visible)) return 2;
  // A base and its spacing marks, each visible character its own width; after a joiner, nothing.
  let w = 0;
  for (const ch of visible) {
    if (ch === '\u200d') break;
    if (VISIBLE.test(ch)) w += charWidth(ch);
  }
  return w;
}

let segmenter: Intl.Segmenter | undefined;

/** `s` as the units a terminal draws, each with its width: clusters only when a character may join. */
function* glyphs(s: string): Generator<[string, number]> {
  if (!JOINS.test(s)) {
    for (const ch of s) yield [ch, charWidth(ch)];
    return;
  }
  segmenter ??= new Intl.Segmenter();
  for (const { segment } of segmenter.segment(s)) yield [segment, clusterWidth(segment)];
}

/** Columns a one-line string takes on a terminal. */
export function displayWidth(s: string): number {
  // ASCII fast path: most cells are ids, amounts and dates.
  if (/^[\x20-\x7e]*$/.test(s)) return s.length;
  let w = 0;
  if (!JOINS.test(s)) for (const ch of s) w += charWidth(ch);
  else for (const [, cw] of glyphs(s)) w += cw;
  return w;
}

/** `s` cut to at most `width` columns, ending in `…` when something was cut; never inside a glyph. */
export function cutToWidth(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const [glyph, cw] of glyphs(s)) {
    if (w + cw > width - 1) break;
    out += glyph;
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
