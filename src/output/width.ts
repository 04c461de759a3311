// How many terminal columns text takes, as string-width counts them (the test compares): a
// character's width is its Unicode East Asian Width (get-east-asian-width, bundled: ambiguous ones
// narrow), marks, joiners and other invisible characters none; a grapheme cluster (👍🏽, 👨‍👩‍👧, a
// flag, e + ◌́) counts as the one glyph a terminal draws. Two fast paths, because the shell loads this
// at every start and tables call it for every cell: printable ASCII is its length, and text with no
// character that can join a cluster is summed per character. Only the rest goes through
// Intl.Segmenter, whose first use loads ICU data (~17 ms).
import { eastAsianWidth } from 'get-east-asian-width';

// Characters that take no column: marks, joiners, variation selectors, controls, other invisibles.
// Literals, compiled at first use: a `v`-flag pattern with \p{RGI_Emoji}, as string-width uses, costs
// 100-300 ms to construct, at every start.
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Me}\p{Mn}\p{Cf}]/u;
/** A character that may join the one before it (or the next) into one glyph. */
const JOINS =
  /[\p{M}\p{Default_Ignorable_Code_Point}\p{Emoji_Modifier}\p{Regional_Indicator}\u{1100}-\u{11FF}\u{A960}-\u{A97F}\u{D7B0}-\u{D7FF}\u{600}-\u{605}\u{6DD}\u{890}\u{891}\u{8E2}\u{110BD}\u{110CD}\u{FF9E}\u{FF9F}\u{E0020}-\u{E007F}]/u;
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const EMOJI = /\p{Emoji}/u;
const MODIFIER_BASE = /\p{Emoji_Modifier_Base}/u;
const MODIFIER = /\p{Emoji_Modifier}/u;
const EMOJI_ZWJ = /\u{200D}\p{Extended_Pictographic}/u;
const REGIONAL_INDICATOR = /\p{Regional_Indicator}/u;

/** Signs like ARABIC NUMBER SIGN: Format characters, but drawn, one column each. */
const isPrependedMark = (cp: number) =>
  (cp >= 0x600 && cp <= 0x605) ||
  cp === 0x6dd ||
  cp === 0x890 ||
  cp === 0x891 ||
  cp === 0x8e2 ||
  cp === 0x110bd ||
  cp === 0x110cd;

const isVisible = (ch: string) => !INVISIBLE.test(ch) || isPrependedMark(ch.codePointAt(0)!);

/** Columns one character (code point) takes: 0, 1 or 2. */
export function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  // Latin, Greek and the like: no wide character below U+0300, and only the soft hyphen invisible.
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp === 0xad ? 0 : 1;
  // Common Han and Hangul syllables.
  if ((cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7a3)) return 2;
  if (!isVisible(ch)) return 0;
  // A lone regional indicator is drawn as a wide letter in a box.
  return REGIONAL_INDICATOR.test(ch) ? 2 : eastAsianWidth(cp);
}

const isHangul = (cp: number) =>
  (cp >= 0x1100 && cp <= 0x11ff) ||
  (cp >= 0xa960 && cp <= 0xa97c) ||
  (cp >= 0xac00 && cp <= 0xd7a3) ||
  (cp >= 0xd7b0 && cp <= 0xd7fb);

/**
 * Whether a cluster of several characters, from its first visible one `chars[0]`, is drawn as one
 * emoji (two columns): an emoji shown as such, an emoji with VS16 (keycaps too), a flag, a
 * skin-tone modifier sequence, or emoji joined by ZWJ.
 */
function isEmojiCluster(chars: string[], text: string): boolean {
  const [first, second] = chars;
  return (
    EMOJI_PRESENTATION.test(first!) ||
    (second === '\ufe0f' && EMOJI.test(first!)) ||
    REGIONAL_INDICATOR.test(first!) ||
    (second !== undefined && MODIFIER_BASE.test(first!) && MODIFIER.test(second)) ||
    EMOJI_ZWJ.test(text)
  );
}

/** Columns one grapheme cluster takes. */
function clusterWidth(cluster: string): number {
  if (cluster.length === 1 || (cluster.length === 2 && cluster.codePointAt(0)! > 0xffff)) {
    return charWidth(cluster);
  }
  const all = [...cluster];
  const at = all.findIndex(isVisible);
  if (at === -1) return 0;
  const chars = all.slice(at);
  const first = chars[0]!.codePointAt(0)!;
  // A syllable block built from jamo: as wide as its first one.
  if (isHangul(cluster.codePointAt(0)!)) return eastAsianWidth(cluster.codePointAt(0)!);
  // An emoji asked for in its text style (VS15): one column.
  if (chars[1] === '\ufe0e' && first <= 0xffff && EMOJI_PRESENTATION.test(chars[0]!)) return 1;
  if (isEmojiCluster(chars, cluster)) return 2;
  // A base and its spacing marks, each visible character its own width; after a joiner, nothing.
  let w = 0;
  for (const ch of chars) {
    if (ch === '\u200d') break;
    if (isVisible(ch)) w += charWidth(ch);
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

/**
 * A shell command wider than `width`, broken at spaces outside quotes into lines ending with ` \`
 * (a line continuation: pasted, it runs as the one command), each further line starting with
 * `indent`. A part too wide by itself stays whole on its line.
 */
export function wrapCommand(line: string, width: number, indent: string): string[] {
  if (displayWidth(line) <= width) return [line];
  const lead = /^\s*/.exec(line)![0];
  const parts: string[] = [];
  let cur = '';
  let quote = '';
  for (const ch of line.slice(lead.length)) {
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === ' ') {
      if (cur !== '') parts.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur !== '') parts.push(cur);
  const out: string[] = [];
  let row = lead;
  for (const part of parts) {
    const next = row.trim() === '' ? `${row}${part}` : `${row} ${part}`;
    // Two columns kept for the ` \` that ends every line but the last.
    if (row.trim() !== '' && displayWidth(next) > width - 2) {
      out.push(`${row} \\`);
      row = `${indent}${part}`;
    } else row = next;
  }
  out.push(row);
  return out;
}

// Colour codes take no column.
const SGR = /\u001b\[[0-9;]*m/g;
/** Where a command to copy starts: `payops …` at a word's start, or in backticks. */
const COMMAND_START = /^`?payops\s/;

/**
 * THE word wrap of a message (issue 27, item 7): `lines` wrapped at spaces to fit `columns` (a
 * terminal's width; undefined: as they are), the last column left empty, each continuation
 * indented two more than its line. A command to copy (`payops …`, to a closing backtick, a ` (`,
 * two spaces or the end) is one unit, never broken: moved whole to the next line when it does not
 * fit after the words before it; a line whose command is too wide for any line stays as it is
 * (a command over two lines would run as two).
 */
export function fitMessage(lines: readonly string[], columns: number | undefined): string[] {
  if (!columns || columns < 20) return [...lines];
  const width = columns - 1;
  const out: string[] = [];
  for (const line of lines) {
    if (displayWidth(line.replace(SGR, '')) <= width) {
      out.push(line);
      continue;
    }
    const lead = /^\s*/.exec(line)![0];
    const indent = `${lead}  `;
    const units = messageUnits(line.slice(lead.length));
    // A line with a command that the terminal holds (its last column too) is kept whole.
    const command = units.some((u) => u.includes(' '));
    if (
      (command && displayWidth(line.replace(SGR, '')) <= columns) ||
      units.some((u) => u.includes(' ') && displayWidth(`${indent}${u}`.replace(SGR, '')) > width)
    ) {
      out.push(line);
      continue;
    }
    let row = lead;
    for (const unit of units) {
      const next = row.trim() === '' ? `${row}${unit}` : `${row} ${unit}`;
      // A line's first unit stays at the line's own indent, even when too wide by itself.
      if (row.trim() !== '' && displayWidth(next.replace(SGR, '')) > width) {
        out.push(row);
        row = `${indent}${unit}`;
      } else row = next;
    }
    out.push(row);
  }
  return out;
}

/** Words of a message, a command to copy kept as one unit with its spaces. */
function messageUnits(text: string): string[] {
  const units: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ' ') {
      i++;
      continue;
    }
    const rest = text.slice(i);
    let end: number;
    if (COMMAND_START.test(rest)) {
      // A backticked command ends at its closing backtick (and what sticks to it: `…`),
      // a bare one at two spaces, an opening parenthesis, or the end of the line.
      const close = rest.startsWith('`') ? rest.indexOf('`', 1) : -1;
      const stop = rest.search(/ {2,}| \(/);
      end =
        close > 0
          ? close + 1 + (/^\S*/.exec(rest.slice(close + 1))?.[0].length ?? 0)
          : stop > 0
            ? stop
            : rest.length;
    } else {
      const space = rest.indexOf(' ');
      end = space < 0 ? rest.length : space;
    }
    units.push(rest.slice(0, end));
    i += end;
  }
  return units;
}
