// Table widths agree with string-width (the count most terminal tools use) on single characters and
// on clusters: East Asian Width from get-east-asian-width, grapheme clusters as one glyph. No
// deliberate difference is left on these inputs; one known one is elsewhere: an emoji modifier
// standing alone after a finished emoji (a "stray" swatch) counts nothing extra here.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { charWidth, cutToWidth, displayWidth, padToWidth } from '../../../src/output/width.js';

const ASSIGNED = /\P{Cn}/u;

/** Every assigned code point in the ranges, surrogates left out. */
function* chars(from: number, to: number, step = 1): Generator<string> {
  for (let cp = from; cp <= to; cp += step) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    if (ASSIGNED.test(ch)) yield ch;
  }
}

describe('display width', () => {
  it('agrees with string-width on every assigned character of the BMP and the emoji and symbol planes', () => {
    const ranges: Array<[number, number, number?]> = [
      [0, 0xffff],
      [0x10000, 0x1ffff],
      // CJK extension planes, sampled: wide throughout.
      [0x20000, 0x3ffff, 37],
      [0xe0000, 0xe01ef],
    ];
    const differ: string[] = [];
    let n = 0;
    for (const [from, to, step] of ranges) {
      for (const ch of chars(from, to, step)) {
        n++;
        const ours = displayWidth(ch);
        const theirs = stringWidth(ch);
        if (ours !== theirs || charWidth(ch) !== theirs) {
          differ.push(`U+${ch.codePointAt(0)!.toString(16)} ${ours}/${theirs}`);
        }
      }
    }
    expect(n).toBeGreaterThan(80_000);
    expect(differ.slice(0, 20)).toEqual([]);
  }, 180_000);

  const clusters: Array<[string, number]> = [
    ['⚡', 2],
    ['✅', 2],
    ['⭐', 2],
    ['☕', 2],
    ['👍🏽', 2],
    ['👨‍👩‍👧', 2],
    ['🏳️‍🌈', 2],
    ['🇫🇷', 2],
    ['1️⃣', 2],
    ['#️⃣', 2],
    ['☝🏽', 2],
    ['©️', 2],
    ['👩🏽‍💻', 2],
    ['🏴󠁧󠁢󠁳󠁣󠁴󠁿', 2],
    ['🇦', 2],
    ['⚡︎', 1],
    ['☺️', 2],
    ['☺︎', 1],
    ['é', 1], // e + combining acute
    ['한국어', 6],
    ['한', 2], // conjoining jamo: one syllable block
    ['日本語 abc', 10],
    ['क्षि', 3],
    ['ปี่', 1],
    ['\u0600١٢', 3],
    ['soft\u00adhyphen', 10],
    ['café ☕ refund', 14],
    ['ORD-1001', 8],
  ];
  it.each(clusters)('%s takes %i columns, as string-width says', (s, columns) => {
    expect(displayWidth(s)).toBe(columns);
    expect(stringWidth(s)).toBe(columns);
  });

  it('cuts and pads by glyphs, never inside a cluster', () => {
    expect(cutToWidth('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 5)).toBe('👨‍👩‍👧👨‍👩‍👧…');
    expect(cutToWidth('ab👍🏽cd', 4)).toBe('ab…');
    expect(displayWidth(cutToWidth('日本語テキスト', 7))).toBeLessThanOrEqual(7);
    expect(padToWidth('⚡', 4)).toBe('⚡  ');
  });
});
