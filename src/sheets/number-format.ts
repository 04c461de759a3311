// A number cell's number format (styles.xml: the cell's `s` → cellXfs → numFmtId → a built-in
// code or the workbook's own `<numFmt formatCode>`), and an id as the sheet displays it. An order
// number formatted `00000` shows `01234` while it stores 1234: the person and the gateway know it
// as `01234`. Only the formats whose display of an id is certain are applied (General, Text `@`,
// `0`, zero-padded `00000`, `#0`); any other format (a date, thousands groups, decimals, a
// percentage, literal text, colours, sections) shows the number in a way that depends on more than
// the digits, so an id under it is refused by the reader, never guessed.
import { findEntry, type Workbook, WorkbookError } from './workbook.js';
import { entryString } from './zip.js';

/** Built-in number formats (ECMA-376 part 1 §18.8.30) that are not locale-dependent. */
const BUILT_IN: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'mm-dd-yy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
};

/** A cell style's number format: its id and code (a locale-dependent built-in's code is unknown: undefined). */
export interface NumberFormat {
  id: number;
  code: string | undefined;
  /** The workbook counts dates from 1904 (Workbook.date1904): a date's serial means another day. */
  date1904?: true;
}

/** The number format of each cell style (cellXfs index → format); index 0 is General when absent. */
export type StyleFormats = readonly NumberFormat[];

const GENERAL: NumberFormat = { id: 0, code: 'General' };

/** The number format of a style index (undefined or past the table: General, as Excel reads it). */
export function formatOf(formats: StyleFormats, style: number | undefined): NumberFormat {
  if (style === undefined) return GENERAL;
  return formats[style] ?? GENERAL;
}

/** Attribute value of `name` in a start tag's attributes text. */
function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(tag);
  return m === null ? undefined : (m[1] ?? m[2]);
}

function decodeAttr(s: string): string {
  return s.replace(/&(?:#x([0-9a-fA-F]+)|#(\d+)|(lt|gt|amp|quot|apos));/g, (_m, hex, dec, name) =>
    name
      ? ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[name]!
      : String.fromCodePoint(Number.parseInt(hex ?? dec, hex ? 16 : 10)),
  );
}

/** The workbook's cell styles' number formats, from its styles part (none: every cell General). */
export async function styleFormats(wb: Workbook): Promise<StyleFormats> {
  if (wb.stylesPath === undefined) return [];
  const entry = findEntry(wb.entries, wb.stylesPath);
  if (entry === undefined) return [];
  const xml = await entryString(wb.bytes, entry);
  const formats = parseStyles(xml);
  return wb.date1904 ? formats.map((f) => ({ ...f, date1904: true })) : formats;
}

/** The cellXfs number formats of a styles part's XML. */
export function parseStyles(xml: string): StyleFormats {
  const own = new Map<number, string>();
  for (const m of xml.matchAll(/<(?:[\w.-]+:)?numFmt\b([^>]*)>/g)) {
    const id = attr(m[1]!, 'numFmtId');
    const code = attr(m[1]!, 'formatCode');
    if (id !== undefined && code !== undefined) own.set(Number(id), decodeAttr(code));
  }
  const xfs = /<(?:[\w.-]+:)?cellXfs\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?cellXfs>)/.exec(xml);
  if (xfs === null) return [];
  const out: NumberFormat[] = [];
  for (const m of (xfs[1] ?? '').matchAll(/<(?:[\w.-]+:)?xf\b([^>]*)>/g)) {
    const raw = attr(m[1]!, 'numFmtId');
    const id = raw === undefined ? 0 : Number(raw);
    if (!Number.isInteger(id) || id < 0)
      throw new WorkbookError(`a cell style names the number format ${raw}`);
    out.push({ id, code: own.get(id) ?? BUILT_IN[id] });
  }
  return out;
}

/** An id as the sheet shows it, or why its display cannot be read exactly. */
export type ShownId = { text: string } | { problem: string };

/**
 * A number cell's plain decimal text (`plain`, every stored digit: cell-number.ts) as the sheet
 * displays it under `format`, for the formats whose display of an id is certain; a problem for
 * every other format. General and Text show the stored digits; `0`, `00000`, `#0` show a whole
 * number, zero-padded to the count of zeros (a fraction under them is shown rounded: refused).
 */
export function idAsShown(plain: string, format: NumberFormat): ShownId {
  const code = format.code;
  if (code === undefined) {
    return {
      problem: `the cell's number format (built-in format ${format.id}) depends on the computer's language settings, so how it shows the number ${plain} is not known`,
    };
  }
  const c = code.trim();
  if (c === '' || c.toLowerCase() === 'general' || c === '@') return { text: plain };
  const padded = /^#*(0+)$/.exec(c);
  if (padded !== null) {
    if (plain.includes('.')) {
      return {
        problem: `the cell holds ${plain} but its number format (${code}) shows it rounded to a whole number`,
      };
    }
    const neg = plain.startsWith('-');
    const digits = neg ? plain.slice(1) : plain;
    return { text: (neg ? '-' : '') + digits.padStart(padded[1]!.length, '0') };
  }
  return {
    problem: `the cell's number format (${code}) ${describe(c)}, so what it shows cannot be read exactly from the stored number ${plain}`,
  };
}

/** What a format does to a number, in a person's words. */
function describe(code: string): string {
  const bare = code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');
  if (/[dmyhs]/i.test(bare) && !/[0#]/.test(bare)) return 'shows it as a date or a time';
  if (bare.includes('%')) return 'shows it as a percentage';
  if (/e[+-]/i.test(bare)) return 'shows it in scientific notation';
  if (bare.includes(',')) return 'groups its thousands';
  if (bare.includes('.')) return 'shows decimals';
  if (code.includes(';')) return 'has sections for negative numbers or zero';
  if (/"|\\/.test(code)) return 'adds text of its own';
  return 'is not one payops reads ids through (General, Text, 0 or zero-padded like 00000)';
}
