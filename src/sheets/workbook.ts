// The parts of an .xlsx (Office Open XML) workbook a list of orders needs: its sheets' names and
// where they are, the shared strings, and a sheet's rows as a stream of cells, scanned straight
// from the inflated XML text row by row (never a DOM of the sheet: a 100,000-row sheet is ~10 MB of
// XML). The markup is what every spreadsheet program writes (SpreadsheetML), read with a few
// patterns, including element prefixes (`<x:row>`) that some libraries write.
// One file, though a little long: one reader of one format, whose parts (relations, shared strings,
// rows and cells) share the same few XML patterns and entity decoding.
import { entryBytes, entryString, entryText, type ZipEntry, ZipFormatError, zipEntries } from './zip.js';

export interface SheetInfo {
  name: string;
  /** ZIP entry name of its XML. */
  path: string;
  /**
   * The `state` of its `<sheet>` in workbook.xml: `hidden` (Format › Hide) and `veryHidden`
   * (Excel's, set from VBA; never shown in the program) are sheets a person does not see.
   */
  state: 'visible' | 'hidden' | 'veryHidden';
}

/** What is known of a sheet's looks once its rows are read: the range of its autofilter, if any. */
export interface SheetLooks {
  /** `<autoFilter ref="A1:H5">`: rows hidden in it are (mostly) hidden by the filter. Written after the rows. */
  autoFilter?: string;
  /** Merged ranges that carry a value down to rows below their first (tabular/xlsx-reader.ts). */
  merged?: MergedNote[];
  /**
   * By column, the number format of its number cells when the reader did not apply it to their text
   * (a date, a percentage, decimals: the text keeps the stored number), so a results workbook can
   * show them as the sheet did; 'plain' when they read as shown, 'mixed' when cells differ. Complete
   * once every row is read.
   */
  formats?: Array<ColumnFormat | undefined>;
}

/** A column's number format, as SheetLooks.formats keeps it. */
export type ColumnFormat = { id: number; code: string | undefined; date1904?: true } | 'plain' | 'mixed';

/** A merged range read: its first cell's value applies to every row it covers. */
export interface MergedNote {
  /** `E2:E4`. */
  range: string;
  /** The header of the column whose value it carries. */
  column: string;
}

export interface Workbook {
  bytes: Uint8Array;
  entries: Map<string, ZipEntry>;
  sheets: SheetInfo[];
  sharedStringsPath: string | undefined;
  /** The styles part (`xl/styles.xml`), where a cell's `s` index finds its number format. */
  stylesPath?: string;
  /** Dates count from 1904 (`<workbookPr date1904="1">`, old Excel for Mac): serial 0 is 1904-01-01. */
  date1904?: true;
}

/** A cell as stored: its kind (`t` attribute: s, n, b, e, str, inlineStr, d) and its text. */
export interface RawCell {
  /** 0-based column. */
  col: number;
  type: string;
  /** The value's text (a shared string's index for `s`); undefined when the cell stores none. */
  value: string | undefined;
  /**
   * The cell's formula, when it holds one (its value is the result saved with the file); '' for
   * a formula written elsewhere (a shared formula's other cells).
   */
  formula?: string;
  /** The cell's style (`s` attribute): an index into the workbook's cellXfs (numberFormats). */
  style?: number;
}

export interface RawRow {
  /** 1-based row number, as the sheet shows it. */
  row: number;
  cells: RawCell[];
  /** A person does not see the row: hidden by hand, by a filter or a collapsed outline, or zero high. */
  hidden?: true;
}

/** Workbook structure problems that are not ZIP problems (no workbook part, an ODS file). */
export class WorkbookError extends Error {}

/** A file of a kind payops does not read (an .xlsb), with what to do instead. */
export class UnsupportedWorkbook extends WorkbookError {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/**
 * The most text held while waiting for the end of one shared string or one row. A cell holds at
 * most 32,767 characters; an unclosed element in a hostile file would otherwise be held (and
 * scanned again for every inflated chunk) until memory runs out.
 */
export const MAX_PENDING = 4 * 1024 * 1024;

function tooLong(what: string): WorkbookError {
  return new WorkbookError(`${what} is longer than ${MAX_PENDING} characters (damaged or hostile)`);
}

const ATTR = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(ATTR)) out[m[1]!] = decodeXml(m[2] ?? m[3] ?? '');
  return out;
}

/** Every start tag `<name …>` (any prefix) of `xml`, as attributes. */
function tags(xml: string, name: string): Array<Record<string, string>> {
  const re = new RegExp(`<(?:[\\w.-]+:)?${name}\\b([^>]*)>`, 'g');
  return [...xml.matchAll(re)].map((m) => attributes(m[1]!));
}

const ENTITY = /&(?:#x([0-9a-fA-F]+)|#(\d+)|(lt|gt|amp|quot|apos));/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** OOXML escapes characters XML cannot hold as `_xHHHH_` (Excel writes a CR as `_x000D_`). */
const OOXML_ESCAPE = /_x([0-9a-fA-F]{4})_/g;

/**
 * The character a numeric reference names. One XML 1.0 cannot hold (NUL, a surrogate half, past
 * U+10FFFF) is a damaged or hostile file: refused, never turned into a different id or an error
 * nobody expected.
 */
function xmlChar(ref: string, cp: number): string {
  const ok =
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff);
  if (!ok)
    throw new WorkbookError(`the character reference ${ref.slice(0, 20)} is not a character XML allows`);
  return String.fromCodePoint(cp);
}

/**
 * Character data as an XML parser hands it over: line ends normalised (CR LF and a lone CR are a
 * line feed, XML 1.0 §2.11; a CR written `&#13;` stays), CDATA sections taken literally, the rest's
 * references decoded; then OOXML's `_xHHHH_` escapes (they are of the string, not of the XML).
 */
export function xmlText(s: string): string {
  let raw = s;
  if (raw.includes('\r')) raw = raw.replace(/\r\n?/g, '\n');
  if (!raw.includes('<![CDATA[')) return decodeXml(raw);
  let out = '';
  let at = 0;
  for (;;) {
    const open = raw.indexOf('<![CDATA[', at);
    if (open < 0) break;
    const close = raw.indexOf(']]>', open + 9);
    if (close < 0) break;
    out += decodeXml(raw.slice(at, open), false) + raw.slice(open + 9, close);
    at = close + 3;
  }
  return unescapeOoxml(out + decodeXml(raw.slice(at), false));
}

function unescapeOoxml(s: string): string {
  return s.includes('_x')
    ? s.replace(OOXML_ESCAPE, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    : s;
}

export function decodeXml(s: string, ooxml = true): string {
  let out = s;
  if (out.includes('&')) {
    out = out.replace(ENTITY, (m, hex: string, dec: string, name: string) =>
      name ? NAMED[name]! : xmlChar(m, Number.parseInt(hex ?? dec, hex ? 16 : 10)),
    );
  }
  return ooxml ? unescapeOoxml(out) : out;
}

/** Resolve a relationship target against the folder of the part that names it. */
function resolveTarget(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = base.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}

/**
 * A part's ZIP entry. Part names are case-insensitive (OPC, ECMA-376 part 2 §6.2.2.3): writers
 * link `xl/sharedStrings.xml` and store `xl/SharedStrings.xml`, so a name not found as written is
 * looked up in any case (zip.ts already reads a backslash in a name as `/`).
 */
export function findEntry(entries: Map<string, ZipEntry>, name: string): ZipEntry | undefined {
  const exact = entries.get(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  for (const [n, e] of entries) if (n.toLowerCase() === lower) return e;
  return undefined;
}

async function part(
  bytes: Uint8Array,
  entries: Map<string, ZipEntry>,
  name: string,
): Promise<string | undefined> {
  const e = findEntry(entries, name);
  return e === undefined ? undefined : entryString(bytes, e);
}

/** The relationships part of a part: `xl/workbook.xml` → `xl/_rels/workbook.xml.rels`. */
function relsNameOf(partName: string): string {
  const slash = partName.lastIndexOf('/');
  return `${partName.slice(0, slash + 1)}_rels/${partName.slice(slash + 1)}.rels`;
}

/** Relationships of a part: id → { type, target (resolved) }. */
async function relations(
  bytes: Uint8Array,
  entries: Map<string, ZipEntry>,
  partName: string,
): Promise<Map<string, { type: string; target: string }>> {
  const xml = (await part(bytes, entries, relsNameOf(partName))) ?? '';
  const out = new Map<string, { type: string; target: string }>();
  for (const a of tags(xml, 'Relationship')) {
    if (a.Id && a.Target && a.TargetMode !== 'External') {
      out.set(a.Id, { type: a.Type ?? '', target: resolveTarget(partName, a.Target) });
    }
  }
  return out;
}

/** Open a workbook held in memory: its sheets in workbook order. */
export async function openWorkbook(bytes: Uint8Array): Promise<Workbook> {
  const entries = zipEntries(bytes);
  const root = await relations(bytes, entries, '');
  const office = [...root.values()].find((r) => r.type.endsWith('/officeDocument'));
  const workbookPath = office?.target ?? 'xl/workbook.xml';
  // An .xlsb is a ZIP too, but its parts are binary records: say so rather than find no sheets.
  if (/\.bin$/i.test(workbookPath) || findEntry(entries, 'xl/workbook.bin') !== undefined) {
    throw new UnsupportedWorkbook(
      'it is an Excel binary workbook: .xlsb is not supported: save as .xlsx',
      'in Excel use File › Save As › "Excel Workbook (*.xlsx)"',
    );
  }
  const xml = await part(bytes, entries, workbookPath);
  if (xml === undefined) {
    const mimetype = await part(bytes, entries, 'mimetype');
    throw new WorkbookError(
      mimetype?.includes('opendocument')
        ? 'it is an OpenDocument file (.ods), not an .xlsx workbook'
        : 'it is a ZIP file without a workbook in it',
    );
  }
  const rels = await relations(bytes, entries, workbookPath);
  const sheets: SheetInfo[] = [];
  for (const a of tags(xml, 'sheet')) {
    const id = a['r:id'] ?? Object.entries(a).find(([k]) => k.endsWith(':id'))?.[1];
    const rel = id === undefined ? undefined : rels.get(id);
    // A sheet named but not linked is not passed over: the next one would be read as the first.
    if (a.name && rel === undefined) {
      throw new WorkbookError(
        `the workbook names the sheet ${a.name}, but does not say where its cells are (no relationship ${id ?? '(none)'} in ${relsNameOf(workbookPath)})`,
      );
    }
    // Chart sheets and dialog sheets have no cells to read.
    if (a.name && rel?.type.endsWith('/worksheet')) {
      sheets.push({ name: a.name, path: rel.target, state: sheetState(a.state) });
    }
  }
  const shared = [...rels.values()].find((r) => r.type.endsWith('/sharedStrings'));
  const styles = [...rels.values()].find((r) => r.type.endsWith('/styles'));
  const wb: Workbook = {
    bytes,
    entries,
    sheets,
    sharedStringsPath: shared?.target,
    stylesPath: styles?.target,
  };
  if (tags(xml, 'workbookPr').some((a) => xmlTrue(a.date1904))) wb.date1904 = true;
  return wb;
}

/**
 * ST_SheetState: `hidden` and `veryHidden` are sheets a person is not shown; anything else is the
 * schema's default, `visible` (exceljs writes `show`; LibreOffice shows such a sheet).
 */
function sheetState(state: string | undefined): SheetInfo['state'] {
  if (state === 'hidden' || state === 'veryHidden') return state;
  return 'visible';
}

/** An xsd:boolean attribute is true: `1` or `true` (Excel writes `1`, LibreOffice `true`). */
function xmlTrue(v: string | undefined): boolean {
  return v === '1' || v === 'true';
}

/**
 * Whether a `<row …>` start tag hides its row. `hidden="1"`/`"true"` (by hand, by an autofilter, a
 * collapsed outline); a height of zero (`ht="0"`, with or without customHeight) shows nothing
 * either; and in a sheet whose rows are hidden unless said otherwise (`<sheetFormatPr
 * zeroHeight="1">`), a row is visible only with `hidden="0"` or a height above zero.
 */
export function rowHidden(startTag: string, zeroHeight: boolean): boolean {
  const a = attributes(startTag.slice(startTag.indexOf('row') + 3));
  if (xmlTrue(a.hidden)) return true;
  const ht = a.ht === undefined ? undefined : Number(a.ht);
  if (ht !== undefined && ht === 0) return true;
  if (!zeroHeight) return false;
  return !(a.hidden === '0' || a.hidden === 'false' || (ht !== undefined && ht > 0));
}

/**
 * The shared strings table, kept compactly: it holds every distinct text of the sheet (each id of
 * a big sheet), so the strings are joined into pages of 1,024 with their offsets, rather than kept
 * as a string object each (or as slices that would keep the XML they were cut from alive).
 */
export class SharedStrings {
  private readonly pages: string[] = [];
  private readonly offsets: Uint32Array[] = [];
  private current: string[] = [];
  /** Strings in the table. */
  size = 0;

  add(s: string): void {
    this.size++;
    this.current.push(s);
    if (this.current.length === PAGE) this.seal();
  }

  seal(): void {
    if (this.current.length === 0) return;
    const offs = new Uint32Array(this.current.length + 1);
    for (let i = 0; i < this.current.length; i++) offs[i + 1] = offs[i]! + this.current[i]!.length;
    this.pages.push(this.current.join(''));
    this.offsets.push(offs);
    this.current = [];
  }

  get(i: number): string | undefined {
    const page = this.pages[i >> 10];
    const offs = this.offsets[i >> 10];
    const j = i & (PAGE - 1);
    if (page === undefined || offs === undefined || j + 1 >= offs.length) return undefined;
    return page.slice(offs[j]!, offs[j + 1]!);
  }
}
const PAGE = 1024;

/** The shared strings table, streamed (it can hold every id of a big sheet). */
export async function sharedStrings(wb: Workbook): Promise<SharedStrings> {
  const out = new SharedStrings();
  if (wb.sharedStringsPath === undefined) return out;
  const entry = findEntry(wb.entries, wb.sharedStringsPath);
  // Every text cell would read as empty: a damaged file, refused.
  if (entry === undefined)
    throw new WorkbookError(
      `its shared strings (${wb.sharedStringsPath}, where the workbook's text cells are) are missing`,
    );
  let buf = '';
  // <si>…</si> holds one string: a <t>, or rich-text runs <r><t>…</t></r>; phonetic runs (<rPh>) are not text.
  const SI = /<(?:[\w.-]+:)?si\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?si>)/g;
  const PHONETIC = /<(?:[\w.-]+:)?rPh\b[\s\S]*?<\/(?:[\w.-]+:)?rPh>/g;
  const T = /<(?:[\w.-]+:)?t\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?t>)/g;
  for await (const text of entryText(wb.bytes, entry)) {
    buf += text;
    SI.lastIndex = 0;
    let end = 0;
    for (let m = SI.exec(buf); m !== null; m = SI.exec(buf)) {
      out.add(siText(m[1], PHONETIC, T));
      end = SI.lastIndex;
    }
    buf = buf.slice(end);
    if (buf.length > MAX_PENDING) throw tooLong('a shared string');
  }
  out.seal();
  return out;
}

/** The text of one `<si>` body: its `<t>`, or its runs' `<t>`s without phonetic runs. */
function siText(body: string | undefined, phonetic: RegExp, t: RegExp): string {
  if (body === undefined) return '';
  // Nearly always one plain <t>…</t> (no prefix, no runs): cut it out without a pattern.
  if (body.startsWith('<t') && nameEnds(body, 2) && body.endsWith('</t>')) {
    const gt = body.indexOf('>');
    const inner = body.slice(gt + 1, -4);
    if (body.charCodeAt(gt - 1) !== 47 && !inner.includes('<')) return xmlText(inner);
  }
  let s = '';
  for (const x of body.replace(phonetic, '').matchAll(t)) s += xmlText(x[1] ?? '');
  return s;
}

/** Column letters (`C`, `AA`; some writers write `c`, `aa`) → 0-based index. */
export function columnIndex(letters: string): number {
  let n = 0;
  for (let i = 0; i < letters.length; i++) n = n * 26 + ((letters.charCodeAt(i) & ~32) - 64);
  return n - 1;
}

/** 0-based index → column letters. */
export function columnLetters(index: number): string {
  let s = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** The rows of a sheet in order, each with the cells it stores (empty cells are mostly absent). */
export async function* sheetRows(
  wb: Workbook,
  sheet: SheetInfo,
  /** Filled as the sheet is read: its autofilter (written after the rows) once the end is read. */
  looks: SheetLooks = {},
): AsyncGenerator<RawRow[]> {
  const entry = findEntry(wb.entries, sheet.path);
  if (entry === undefined) throw new ZipFormatError(`the sheet ${sheet.name} is missing from the file`);
  let buf = '';
  // Rows hidden unless they say otherwise (<sheetFormatPr zeroHeight="1">, written before the rows).
  let zeroHeight = false;
  let formatRead = false;
  // The end of the previous text, so an <autoFilter> cut between two pieces is still found.
  let carry = '';
  let prefix: string | undefined;
  let rowOpen = '';
  let rowClose = '';
  let tags: CellTags | undefined;
  let lastRow = 0;
  for await (const text of entryText(wb.bytes, entry)) {
    buf += text;
    const seen = carry + text;
    carry = seen.slice(-FILTER_TAG_MAX);
    // The row format comes before the rows (CT_Worksheet's order), the autofilter after them.
    if (!formatRead && seen.includes('sheetFormatPr')) {
      const format = /<(?:[\w.-]+:)?sheetFormatPr\b([^>]*)>/.exec(seen);
      if (format) {
        zeroHeight = xmlTrue(attributes(format[1]!).zeroHeight);
        formatRead = true;
      }
    }
    if (looks.autoFilter === undefined && seen.includes('autoFilter')) {
      const f = /<(?:[\w.-]+:)?autoFilter\b[^>]*?\bref\s*=\s*["']([^"']*)["']/.exec(seen);
      if (f) looks.autoFilter = f[1]!;
    }
    if (prefix === undefined) {
      const root = /<([\w.-]+:)?worksheet\b/.exec(buf);
      if (root === null) {
        if (buf.length > MAX_PENDING) throw tooLong(`the start of the sheet ${sheet.name}`);
        continue;
      }
      prefix = root[1] ?? '';
      const p = prefix.replace(/[.-]/g, '\\$&');
      rowOpen = `<${prefix}row`;
      rowClose = `</${prefix}row>`;
      tags = {
        cOpen: `<${prefix}c`,
        cClose: `</${prefix}c>`,
        vOpen: `<${prefix}v`,
        vClose: `</${prefix}v>`,
        text: new RegExp(`<${p}t\\b[^>]*?(?:/>|>([\\s\\S]*?)</${p}t>)`, 'g'),
        formula: new RegExp(`<${p}f[\\s>/]`),
        fClose: `</${prefix}f>`,
      };
    }
    const rows: RawRow[] = [];
    let pos = 0;
    for (;;) {
      let s = buf.indexOf(rowOpen, pos);
      // `<rowBreaks>` and the like are not rows.
      while (s >= 0 && !/[\s>/]/.test(buf.charAt(s + rowOpen.length) || ' ')) s = buf.indexOf(rowOpen, s + 1);
      if (s < 0 || s + rowOpen.length >= buf.length) {
        pos = s < 0 ? Math.max(pos, buf.length - rowOpen.length) : s;
        break;
      }
      const gt = buf.indexOf('>', s);
      if (gt < 0) {
        pos = s;
        break;
      }
      const startTag = buf.slice(s, gt + 1);
      const r = /\br\s*=\s*["'](\d+)["']/.exec(startTag);
      const rowNumber = r ? Number(r[1]) : lastRow + 1;
      if (startTag.endsWith('/>')) {
        lastRow = rowNumber;
        pos = gt + 1;
        continue;
      }
      const e = buf.indexOf(rowClose, gt);
      if (e < 0) {
        pos = s;
        break;
      }
      lastRow = rowNumber;
      const row: RawRow = { row: rowNumber, cells: parseCells(buf.slice(gt + 1, e), tags!) };
      // Most rows show: look at the attributes only when the tag can say otherwise.
      if ((zeroHeight || MAY_HIDE.test(startTag)) && rowHidden(startTag, zeroHeight)) row.hidden = true;
      rows.push(row);
      pos = e + rowClose.length;
    }
    buf = buf.slice(pos);
    if (buf.length > MAX_PENDING) throw tooLong(`a row of the sheet ${sheet.name}`);
    if (rows.length > 0) yield rows;
  }
}

/** A row start tag that may hide its row (LibreOffice writes hidden="false" on every row). */
const MAY_HIDE = /hidden\s*=\s*["'](?:1|true)|\bht\s*=\s*["']0/;

/** The text kept between two pieces of a sheet to find an `<autoFilter ref="…">` cut between them. */
const FILTER_TAG_MAX = 256;

/** Columns a sheet can have (A … XFD). */
export const MAX_COLUMNS = 16_384;

const R_ATTR = /(?:^|\s)r\s*=\s*["']([A-Za-z]+)\d+["']/;
const T_ATTR = /(?:^|\s)t\s*=\s*["'](\w+)["']/;
const S_ATTR = /(?:^|\s)s\s*=\s*["'](\d+)["']/;

/** Whether the character at `i` ends an element name (so `<c` is not `<col`). */
function nameEnds(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c === 32 || c === 62 || c === 47 || c === 9 || c === 10 || c === 13;
}

/** The text of the first `<v>` of a cell's body, undefined when it has none. Scanned, not matched: this runs per cell. */
function cellValue(inner: string, vOpen: string, vClose: string): string | undefined {
  let s = inner.indexOf(vOpen);
  while (s >= 0 && !nameEnds(inner, s + vOpen.length)) s = inner.indexOf(vOpen, s + 1);
  if (s < 0) return undefined;
  const gt = inner.indexOf('>', s);
  if (gt < 0 || inner.charCodeAt(gt - 1) === 47) return gt < 0 ? undefined : '';
  const e = inner.indexOf(vClose, gt);
  return e < 0 ? undefined : xmlText(inner.slice(gt + 1, e));
}

function parseCells(body: string, tags: CellTags): RawCell[] {
  const cells: RawCell[] = [];
  let next = 0;
  let i = 0;
  for (;;) {
    const s = body.indexOf(tags.cOpen, i);
    if (s < 0) break;
    if (!nameEnds(body, s + tags.cOpen.length)) {
      i = s + 1;
      continue;
    }
    const gt = body.indexOf('>', s);
    if (gt < 0) break;
    const selfClosing = body.charCodeAt(gt - 1) === 47;
    const attrs = body.slice(s + tags.cOpen.length, selfClosing ? gt - 1 : gt);
    let inner = '';
    if (selfClosing) i = gt + 1;
    else {
      const e = body.indexOf(tags.cClose, gt);
      if (e < 0) break;
      inner = body.slice(gt + 1, e);
      i = e + tags.cClose.length;
    }
    const ref = R_ATTR.exec(attrs);
    const col = ref ? columnIndex(ref[1]!) : next;
    // XFD is a spreadsheet's last column: a reference past it would make a row of millions of cells.
    if (col >= MAX_COLUMNS)
      throw new WorkbookError(`a cell is past the last column XFD (${attrs.trim().slice(0, 40)})`);
    next = col + 1;
    const t = T_ATTR.exec(attrs);
    const type = t ? t[1]! : 'n';
    const st = S_ATTR.exec(attrs);
    let value: string | undefined;
    if (type === 'inlineStr') {
      let text: string | undefined;
      tags.text.lastIndex = 0;
      for (const x of inner.matchAll(tags.text)) text = (text ?? '') + xmlText(x[1] ?? '');
      value = text;
    } else {
      value = inner === '' ? undefined : cellValue(inner, tags.vOpen, tags.vClose);
    }
    const cell: RawCell = { col, type, value };
    if (st !== null && st[1] !== '0') cell.style = Number(st[1]);
    if (inner !== '' && tags.formula.test(inner)) cell.formula = formulaText(inner, tags);
    cells.push(cell);
  }
  return cells;
}

/** The text of a cell's `<f>` ('' when it has none: a shared formula's other cells). */
function formulaText(inner: string, tags: CellTags): string {
  const m = tags.formula.exec(inner);
  if (m === null) return '';
  const gt = inner.indexOf('>', m.index);
  if (gt < 0 || inner.charCodeAt(gt - 1) === 47) return '';
  const e = inner.indexOf(tags.fClose, gt);
  return e < 0 ? '' : xmlText(inner.slice(gt + 1, e));
}

interface CellTags {
  fClose: string;
  cOpen: string;
  cClose: string;
  vOpen: string;
  vClose: string;
  text: RegExp;
  formula: RegExp;
}

/** A merged range, 0-based columns and 1-based rows, inclusive. */
export interface MergedRange {
  ref: string;
  firstCol: number;
  lastCol: number;
  firstRow: number;
  lastRow: number;
}

const MERGE_TAG_MAX = 256;
// A one-cell `ref="F2"` merges nothing (some writers write it): read as F2:F2.
const MERGE_REF = /^([A-Za-z]{1,3})(\d+)(?::([A-Za-z]{1,3})(\d+))?$/;

/**
 * The sheet's merged ranges (`<mergeCell ref="E2:E4"/>`, written after the rows). Read by a pass of
 * its own over the sheet's XML before the rows, since a row's value may come from a merge above it
 * and the ranges are only written at the end.
 */
export async function sheetMerges(wb: Workbook, sheet: SheetInfo): Promise<MergedRange[]> {
  const entry = findEntry(wb.entries, sheet.path);
  if (entry === undefined) throw new ZipFormatError(`the sheet ${sheet.name} is missing from the file`);
  const out: MergedRange[] = [];
  const TAG = /<(?:[\w.-]+:)?mergeCell\b([^>]*)>/g;
  const scan = (seen: string): number => {
    let end = 0;
    TAG.lastIndex = 0;
    for (let m = TAG.exec(seen); m !== null; m = TAG.exec(seen)) {
      end = TAG.lastIndex;
      out.push(mergedRange(attributes(m[1]!).ref));
    }
    return end;
  };
  // The references are ASCII, so a UTF-8 sheet is read as Latin-1 (one character a byte, no
  // decoding to check: a 100,000-row sheet is ~40 MB of XML); a UTF-16 sheet is decoded. (Taking
  // the pieces as strings also lets the garbage collector free the inflated pieces as it goes: a
  // search of the bytes alone left ~25 MB of them waiting.)
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  let first = true;
  let carry = '';
  for await (const chunk of entryBytes(wb.bytes, entry)) {
    if (first) {
      first = false;
      if (chunk[0] === 0xff && chunk[1] === 0xfe) decoder = new TextDecoder('utf-16le');
      else if (chunk[0] === 0xfe && chunk[1] === 0xff) decoder = new TextDecoder('utf-16be');
    }
    const text =
      decoder === undefined
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1')
        : decoder.decode(chunk, { stream: true });
    const seen = carry + text;
    carry = seen.slice(Math.max(seen.includes('mergeCell') ? scan(seen) : 0, seen.length - MERGE_TAG_MAX));
  }
  if (carry.includes('mergeCell') || decoder !== undefined) scan(carry + (decoder?.decode() ?? ''));
  return out;
}

/** A `<mergeCell ref>` as a range; a reference that names none is a damaged file. */
function mergedRange(ref: string | undefined): MergedRange {
  const r = ref === undefined ? null : MERGE_REF.exec(ref.trim());
  if (r === null) throw new WorkbookError(`a merged range has the reference ${quoteRef(ref)}`);
  const a = columnIndex(r[1]!);
  const b = columnIndex(r[3] ?? r[1]!);
  const top = Number(r[2]);
  const bottom = Number(r[4] ?? r[2]);
  return {
    ref: ref!.trim().toUpperCase(),
    firstCol: Math.min(a, b),
    lastCol: Math.max(a, b),
    firstRow: Math.min(top, bottom),
    lastRow: Math.max(top, bottom),
  };
}

function quoteRef(ref: string | undefined): string {
  return ref === undefined ? '(none)' : JSON.stringify(ref.slice(0, 40));
}
