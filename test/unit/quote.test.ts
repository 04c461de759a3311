// The one terminal-safe quoting of user and gateway text (issue 13, item 10): a CSV cell or a
// gateway message quoted in an error must never drive the terminal (OSC title, clear screen,
// reordered text), and the quote must show where the value begins and ends.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  jsonTerminalSafe,
  quote,
  quoteName,
  shellQuote,
  terminalLine,
  terminalSafe,
} from '../../src/quote.js';

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

// Review of issue 13: the logger passes every line through terminalSafe, lines that already quote
// values included; and file names shown in the plan, summary and resume lines.
const HOSTILE = [
  '\u001b]0;PWNED\u0007',
  'a\nb\tc\r',
  'x\u009b2J\u202ey',
  'back\\slash "q"',
  'C:\\x1b',
  'plain',
];

describe('a second pass changes nothing', () => {
  it('terminalSafe leaves quote() output, and its own output, as they are', () => {
    for (const text of HOSTILE) {
      expect(terminalSafe(quote(text)), text).toBe(quote(text));
      expect(terminalSafe(`error: ${quote(text)} is wrong`)).toBe(`error: ${quote(text)} is wrong`);
      expect(terminalSafe(terminalSafe(text)), text).toBe(terminalSafe(text));
      expect(terminalSafe(quoteName(text)), text).toBe(quoteName(text));
    }
  });
});

describe('quoteName (a file name or run id in a line of prose)', () => {
  it('shows a plain name as it is and quotes one that needs it', () => {
    expect(quoteName('refunds.csv')).toBe('refunds.csv');
    expect(quoteName('/tmp/x/refunds-2026.csv')).toBe('/tmp/x/refunds-2026.csv');
    expect(quoteName('my refunds.csv')).toBe('"my refunds.csv"');
    expect(quoteName('evil\u001b]0;PWNED\u0007.csv')).toBe('"evil\\x1b]0;PWNED\\x07.csv"');
    expect(quoteName('a"b')).toBe('"a\\"b"');
    expect(quoteName('')).toBe('""');
    for (const text of HOSTILE) expect(quoteName(text)).not.toMatch(UNSAFE);
  });
});

describe('shellQuote (an argument of a command to copy)', () => {
  it('leaves plain words, single-quotes the rest, and never lets a control character through', () => {
    expect(shellQuote('refunds.csv')).toBe('refunds.csv');
    expect(shellQuote("it's here.csv")).toBe("'it'\\''s here.csv'");
    for (const text of HOSTILE) expect(shellQuote(text), text).not.toMatch(UNSAFE);
  });

  it('gives back the same argument when the shell reads it', () => {
    for (const text of [...HOSTILE, "it's", 'a b', '$HOME `x`', 'é€\u2066']) {
      const echoed = execFileSync('bash', ['-c', `printf %s ${shellQuote(text)}`], {
        env: { ...process.env, LC_ALL: 'C.UTF-8' },
      }).toString('utf8');
      expect(echoed, text).toBe(text);
    }
  });
});
