// The one terminal-safe quoting of user and gateway text (issue 13, item 10): a CSV cell or a
// gateway message quoted in an error must never drive the terminal (OSC title, clear screen,
// reordered text), and the quote must show where the value begins and ends.
import { describe, expect, it } from 'vitest';
import { jsonTerminalSafe, quote, terminalLine, terminalSafe } from '../../src/quote.js';

/** Anything a terminal would act on instead of print. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('quote', () => {
  it('wraps plain text in double quotes and leaves it as it is', () => {
    expect(quote('USD')).toBe('"USD"');
    expect(quote('remboursé 12,50 €')).toBe('"remboursé 12,50 €"');
    expect(quote('')).toBe('""');
  });

  it('shows escape sequences, controls, DEL and C1 escaped instead of sending them', () => {
    const osc = '\u001b]0;pwned\u0007';
    const clear = '\u001b[2J\u001b[H';
    expect(quote(osc)).toBe('"\\x1b]0;pwned\\x07"');
    expect(quote(clear)).toBe('"\\x1b[2J\\x1b[H"');
    expect(quote('a\u007fb\u009bc\u0000')).toBe('"a\\x7fb\\x9bc\\x00"');
    for (const text of [osc, clear, 'a\u007fb\u009bc']) expect(quote(text)).not.toMatch(UNSAFE);
  });

  it('shows line breaks and tabs, so a value cannot start a line of its own', () => {
    expect(quote('a\nerror: forged\r\tb')).toBe('"a\\nerror: forged\\r\\tb"');
  });

  it('shows bidi overrides and isolates escaped (no reordered text)', () => {
    expect(quote('abc\u202edcba')).toBe('"abc\\u202edcba"');
    expect(quote('\u2066x\u2069\u202a\u202b\u202c\u202d')).toBe(
      '"\\u2066x\\u2069\\u202a\\u202b\\u202c\\u202d"',
    );
  });

  it('escapes its own quote and backslash, so the boundary is unambiguous', () => {
    expect(quote('say "hi"')).toBe('"say \\"hi\\""');
    expect(quote('C:\\x1b')).toBe('"C:\\\\x1b"');
  });
});

describe('terminalSafe (cells, cards, whole messages)', () => {
  it('keeps line feeds and tabs but escapes every other control and the bidi controls', () => {
    expect(terminalSafe('a\tb\nc')).toBe('a\tb\nc');
    expect(terminalSafe('x\u001b[31my\u202ez')).toBe('x\\x1b[31my\\u202ez');
    expect(terminalSafe('\r\u0085\u2028')).toBe('\\x0d\\x85\\u2028');
  });
});

describe('jsonTerminalSafe', () => {
  it('escapes what JSON.stringify leaves raw, as JSON escapes, so the text stays valid JSON', () => {
    const value = { note: 'a\u007fb\u009bc\u202ed', ok: 'plain' };
    const text = jsonTerminalSafe(JSON.stringify(value));
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain('\\u007f');
    expect(JSON.parse(text)).toEqual(value);
    // Pretty JSON keeps its own line breaks and indentation.
    const pretty = jsonTerminalSafe(JSON.stringify(value, null, 2));
    expect(pretty.split('\n')).toHaveLength(4);
    expect(JSON.parse(pretty)).toEqual(value);
  });
});

describe('terminalLine (a value alone on its line, as data)', () => {
  it('escapes controls and line breaks, and leaves quotes and backslashes', () => {
    expect(terminalLine('https://x.example/?a="b"&c=\\d')).toBe('https://x.example/?a="b"&c=\\d');
    expect(terminalLine('https://x/\u001b]0;t\u0007\nforged')).toBe('https://x/\\x1b]0;t\\x07\\nforged');
  });
});
