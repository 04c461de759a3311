// Results as an .xlsx workbook, streamed (one sheet "Results"; rows in blocks, deflated as they
// come, never a whole sheet in memory) through the same sink as CSV: a private temporary file
// renamed into place (sink.ts). Opening it in a spreadsheet never mangles an id: every cell is a
// text cell in Text format, except amounts, which are numbers shown with their currency's
// decimals (an `amount`/`X_amount` column, its currency from `X_currency` or `currency` in the same
// row). An amount that is not plain decimal text with at most its currency's decimals stays text,
// as written. A column read from a workbook whose numbers had a format of their own (a date, a
// percentage, decimals: `formats`, from the reader's SheetLooks) keeps it: its numbers are written
// as numbers in that format, so 46346 under `yyyy-mm-dd` is again 2026-11-20. Loaded only when an
// .xlsx is written.

import { currencyInfo } from '../money/currency.js';
import { outputRedactor } from '../redact.js';
import { plainNumber, SPREADSHEET_DIGITS } from '../sheets/cell-number.js';
import { type ColumnFormat, columnLetters } from '../sheets/workbook.js';
import { ZipWriter } from '../sheets/zip.js';
import { blockBuffer } from './block-buffer.js';
import { cellSafe, cellText } from './sanitize.js';
import { openTextSink } from './sink.js';

export interface XlsxWriter {
  ready: Promise<void>;
  write(record: Record<string, unknown>): Promise<void> | undefined;
  writeCells(cells: readonly unknown[]): Promise<void> | undefined;
  /** Flush; the file is moved into place (sink.ts). */
  end(): Promise<void>;
  /** The file left as it was (sink.ts). Does nothing after end(). */
  discard(): Promise<void>;
}

/** Style indexes of styles.xml below: 0 general, 1 text, 2 + d a number with d decimals (0-4). */
const TEXT_STYLE = 1;
const MAX_DECIMALS = 4;

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Results" sheetId="1" r:id="rId1"/></sheets></workbook>`;
const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;
// Number formats 0 / 0.0 / 0.00 / 0.000 / 0.0000 (1 and 2 are built in; 164+ are our own), and 49 (Text).
const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="3"><numFmt numFmtId="164" formatCode="0.0"/><numFmt numFmtId="165" formatCode="0.000"/><numFmt numFmtId="166" formatCode="0.0000"/></numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="7"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="1" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>`;

const SHEET_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetData>`;
const SHEET_TAIL = '</sheetData></worksheet>';

// Characters XML 1.0 cannot hold are written as OOXML's `_xHHHH_`; a literal `_xHHHH_` is escaped too.
const XML_SPECIAL = /[&<>"\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|_(?=x[0-9a-fA-F]{4}_)/g;
function xmlText(s: string): string {
  return s.replace(XML_SPECIAL, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      case '_':
        return '_x005F_';
      default:
        return `_x${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}_`;
    }
  });
}

/** For each column: the index of the currency column of an amount column, else -1. */
function amountColumns(columns: readonly string[]): number[] {
  const norm = columns.map((c) => c.trim().toLowerCase());
  return norm.map((name) => {
    if (name !== 'amount' && !name.endsWith('_amount')) return -1;
    const own = name === 'amount' ? -1 : norm.indexOf(`${name.slice(0, -'amount'.length)}currency`);
    return own >= 0 ? own : norm.indexOf('currency');
  });
}

/** An amount's cell XML as a number in its currency's format, or undefined to write it as text. */
function amountCell(ref: string, text: string, currency: string): string | undefined {
  const digits = currencyInfo(currency)?.minorDigits;
  if (digits === undefined || digits > MAX_DECIMALS || !/^-?\d+(\.\d+)?$/.test(text)) return undefined;
  const n = plainNumber(text);
  if (n === undefined || n.significant > SPREADSHEET_DIGITS) return undefined;
  const point = n.text.indexOf('.');
  if (point >= 0 && n.text.length - point - 1 > digits) return undefined;
  return `<c r="${ref}" s="${2 + digits}"><v>${n.text}</v></c>`;
}

/** Cell styles of our own: 7 + k for the k-th distinct kept format. */
const FIRST_KEPT_STYLE = 7;
/** Number format ids of our own start at 164; 164–166 are the amounts' (STYLES). */
const FIRST_KEPT_FORMAT = 167;

/** STYLES with a cell style per kept format, and each column's style (undefined: none kept). */
function keptStyles(formats: ReadonlyArray<ColumnFormat | undefined>): {
  styles: string;
  byColumn: Array<number | undefined>;
  date1904: boolean;
} {
  const date1904 = formats.some((f) => f !== undefined && typeof f !== 'string' && f.date1904 === true);
  const keys: string[] = [];
  const numFmts: string[] = [];
  const xfs: string[] = [];
  const byColumn = formats.map((f) => {
    if (f === undefined || typeof f === 'string') return undefined;
    // An own format (164 and up) is written with its code; a built-in one by its id, which also
    // keeps a locale-dependent date (its code is the reader's computer's to choose).
    if (f.id >= 164 && f.code === undefined) return undefined;
    const key = `${f.id}\u0000${f.code ?? ''}`;
    let k = keys.indexOf(key);
    if (k < 0) {
      k = keys.length;
      keys.push(key);
      let id = f.id;
      if (f.id >= 164) {
        id = FIRST_KEPT_FORMAT + numFmts.length;
        numFmts.push(`<numFmt numFmtId="${id}" formatCode="${xmlText(f.code!)}"/>`);
      }
      xfs.push(`<xf numFmtId="${id}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`);
    }
    return FIRST_KEPT_STYLE + k;
  });
  if (xfs.length === 0) return { styles: STYLES, byColumn, date1904 };
  const styles = STYLES.replace(
    /<numFmts count="3">(.*?)<\/numFmts>/,
    (_m, own: string) => `<numFmts count="${3 + numFmts.length}">${own}${numFmts.join('')}</numFmts>`,
  ).replace(
    /<cellXfs count="7">(.*?)<\/cellXfs>/,
    (_m, own: string) => `<cellXfs count="${7 + xfs.length}">${own}${xfs.join('')}</cellXfs>`,
  );
  return { styles, byColumn, date1904 };
}

/** A number of a column whose format is kept, as a number cell in that format; undefined: text. */
function keptCell(ref: string, text: string, style: number): string | undefined {
  if (!/^-?\d+(\.\d+)?$/.test(text)) return undefined;
  const n = plainNumber(text);
  if (n === undefined || n.significant > SPREADSHEET_DIGITS) return undefined;
  return `<c r="${ref}" s="${style}"><v>${n.text}</v></c>`;
}

export interface XlsxWriterOptions {
  /** By column, the number format its numbers had in the workbook read (SheetLooks.formats). */
  formats?: ReadonlyArray<ColumnFormat | undefined>;
}

export function createXlsxWriter(dest: string, columns: string[], opts: XlsxWriterOptions = {}): XlsxWriter {
  const sink = openTextSink(dest);
  const kept = keptStyles((opts.formats ?? []).slice(0, columns.length));
  const zip = new ZipWriter((bytes) => sink.write(bytes));
  const letters = columns.map((_, i) => columnLetters(i));
  const amounts = amountColumns(columns);
  const width = columns.length;
  // Card numbers and labelled security codes masked as the --debug log masks them, by column (issue 24).
  const redactors = columns.map(outputRedactor);
  let rowNumber = 0;
  // Writes are chained: each waits for the one before (the ZIP is one ordered stream).
  let chain: Promise<unknown> = Promise.resolve();
  let failure: unknown;
  const sheet = (async () => {
    await sink.ready;
    for (const [name, xml] of [
      ['[Content_Types].xml', CONTENT_TYPES],
      ['_rels/.rels', ROOT_RELS],
      // Dates kept from a workbook that counts from 1904 keep their serials: so does this one.
      [
        'xl/workbook.xml',
        kept.date1904 ? WORKBOOK.replace('<sheets>', '<workbookPr date1904="1"/><sheets>') : WORKBOOK,
      ],
      ['xl/_rels/workbook.xml.rels', WORKBOOK_RELS],
      ['xl/styles.xml', kept.styles],
    ] as const) {
      const e = await zip.entry(name);
      await e.write(xml);
      await e.end();
    }
    const e = await zip.entry('xl/worksheets/sheet1.xml');
    await e.write(SHEET_HEAD);
    return e;
  })();
  sheet.catch(() => {});
  const enqueue = (text: string): Promise<void> => {
    const p = chain.then(async () => {
      if (failure !== undefined) return;
      try {
        await (await sheet).write(text);
      } catch (err) {
        failure = err;
      }
    });
    chain = p;
    return p;
  };
  const rowXml = (cells: readonly unknown[], header: boolean): string => {
    rowNumber++;
    let xml = `<row r="${rowNumber}">`;
    for (let i = 0; i < width; i++) {
      const value = cells[i];
      let text = typeof value === 'string' ? value : cellText(value);
      if (text === '') continue;
      const redact = header ? undefined : redactors[i];
      if (redact !== undefined) text = redact(text);
      const ref = `${letters[i]}${rowNumber}`;
      const cur = header ? -1 : amounts[i]!;
      const keptStyle = header ? undefined : kept.byColumn[i];
      const number =
        cur >= 0
          ? amountCell(ref, text, cellText(cells[cur]).trim())
          : keptStyle === undefined
            ? undefined
            : keptCell(ref, text, keptStyle);
      xml +=
        number ??
        `<c r="${ref}" s="${TEXT_STYLE}" t="inlineStr"><is><t xml:space="preserve">${xmlText(cellSafe(text))}</t></is></c>`;
    }
    return `${xml}</row>`;
  };
  const buffer = blockBuffer(enqueue);
  let started = false;
  const writeCells = (cells: readonly unknown[]): Promise<void> | undefined => {
    // The header row travels in the same block as the first row.
    const head = started ? '' : rowXml(columns, true);
    started = true;
    return buffer.add(head + rowXml(cells, false));
  };
  return {
    ready: sink.ready,
    write: (record) => writeCells(columns.map((c) => record[c])),
    writeCells,
    async end() {
      if (!started) {
        started = true;
        buffer.add(rowXml(columns, true));
      }
      buffer.flush();
      await chain;
      if (failure === undefined) {
        try {
          const e = await sheet;
          await e.write(SHEET_TAIL);
          await e.end();
          await zip.finish();
        } catch (err) {
          failure = err;
        }
      }
      // A write that failed on the file's side is reported by the sink's end (and the file removed);
      // a workbook that could not be made whole is never moved into place.
      if (failure !== undefined) {
        await sink.discard();
        throw failure;
      }
      await sink.end();
    },
    discard: () => sink.discard(),
  };
}

export async function openXlsxWriter(
  dest: string,
  columns: string[],
  opts: XlsxWriterOptions = {},
): Promise<XlsxWriter> {
  const w = createXlsxWriter(dest, columns, opts);
  await w.ready;
  return w;
}
