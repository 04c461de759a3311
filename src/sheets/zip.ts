// The ZIP container of an .xlsx, on Node's own zlib (no dependency): reading the central directory
// of a file held in memory and inflating one entry as a stream of text, and writing entries one
// after another as a stream (sizes and CRC in data descriptors, so nothing is held whole). Only
// what workbooks use: stored (0) and deflated (8) entries, no encryption. ZIP64 records are read
// (streaming writers use them for files of any size), though the file is still held in memory.
import { crc32, createDeflateRaw, createInflateRaw } from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Offset of the entry's local header. */
  offset: number;
}

export class ZipFormatError extends Error {}

/**
 * The most an entry may inflate to. A 100,000-row sheet is ~10 MB of XML; a few MB of ZIP can
 * inflate to gigabytes (a "ZIP bomb"), so an entry is also held to the size its directory declares.
 */
export const MAX_INFLATED = 256 * 1024 * 1024;
/** The most a small part (workbook, relationships) may inflate to: it is read whole. */
export const MAX_PART = 16 * 1024 * 1024;

/** The entries of a ZIP archive, by name (from its central directory). */
export function zipEntries(bytes: Uint8Array): Map<string, ZipEntry> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // End of central directory: 22 bytes plus a comment of up to 65,535 bytes, at the very end.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipFormatError('the ZIP directory is missing (the file is cut short or damaged)');
  let count = view.getUint16(eocd + 10, true);
  let dirOffset = view.getUint32(eocd + 16, true);
  // ZIP64: a locator just before the end record points at the ZIP64 end record, which holds the
  // real count and offset (APPNOTE 4.3.14-15).
  if (eocd >= 20 && view.getUint32(eocd - 20, true) === 0x07064b50) {
    const at = safe(view.getBigUint64(eocd - 12, true));
    if (at + 56 > bytes.length || view.getUint32(at, true) !== 0x06064b50)
      throw new ZipFormatError('the ZIP64 directory is damaged');
    count = safe(view.getBigUint64(at + 32, true));
    dirOffset = safe(view.getBigUint64(at + 48, true));
  }
  const entries = new Map<string, ZipEntry>();
  const names = new TextDecoder('utf-8');
  let p = dirOffset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== 0x02014b50) {
      throw new ZipFormatError('the ZIP directory is damaged');
    }
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    // Some Windows writers store `xl\workbook.xml`: a backslash is a folder separator there.
    const name = names.decode(bytes.subarray(p + 46, p + 46 + nameLength)).replace(/\\/g, '/');
    const entry: ZipEntry = {
      name,
      method: view.getUint16(p + 10, true),
      compressedSize: view.getUint32(p + 20, true),
      size: view.getUint32(p + 24, true),
      offset: view.getUint32(p + 42, true),
    };
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff || entry.offset === 0xffffffff) {
      zip64Sizes(view, p + 46 + nameLength, extraLength, entry);
    }
    entries.set(name, entry);
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** A ZIP64 value as a number: the file is in memory, so any real offset or size is far below 2^53. */
function safe(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipFormatError('the ZIP64 directory is damaged');
  return Number(v);
}

/**
 * The sizes and offset a directory entry keeps in its ZIP64 extra field (id 1): each present only
 * when its 32-bit field is 0xffffffff, in the order size, compressed size, offset (APPNOTE 4.5.3).
 */
function zip64Sizes(view: DataView, extra: number, length: number, entry: ZipEntry): void {
  for (let q = extra; q + 4 <= extra + length; ) {
    const id = view.getUint16(q, true);
    const size = view.getUint16(q + 2, true);
    if (id === 0x0001) {
      let at = q + 4;
      const end = at + size;
      const next = (): number => {
        if (at + 8 > end) throw new ZipFormatError(`the ZIP64 sizes of ${entry.name} are damaged`);
        const v = safe(view.getBigUint64(at, true));
        at += 8;
        return v;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.offset === 0xffffffff) entry.offset = next();
      return;
    }
    q += 4 + size;
  }
  throw new ZipFormatError(`the ZIP entry ${entry.name} has no ZIP64 sizes`);
}

type Decoder = InstanceType<typeof TextDecoder>;

/**
 * A part's text decoder: XML is UTF-8 unless a byte-order mark says UTF-16 (XML 1.0 §4.3.3; some
 * writers save workbook.xml so), or, without a mark, its first bytes are `<?` in UTF-16 (`00 3C 00
 * 3F` or `3C 00 3F 00`, XML 1.0 appendix F: PhpSpreadsheet's test files hold such a workbook.xml).
 * The mark itself is dropped by the decoder.
 */
function decoderFor(first: Uint8Array): Decoder {
  if (first[0] === 0xff && first[1] === 0xfe) return new TextDecoder('utf-16le');
  if (first[0] === 0xfe && first[1] === 0xff) return new TextDecoder('utf-16be');
  if (first[0] === 0x00 && first[1] === 0x3c && first[2] === 0x00 && first[3] === 0x3f)
    return new TextDecoder('utf-16be');
  if (first[0] === 0x3c && first[1] === 0x00 && first[2] === 0x3f && first[3] === 0x00)
    return new TextDecoder('utf-16le');
  return new TextDecoder('utf-8');
}

/** The entry's compressed bytes (after its local header). */
function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.offset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== 0x04034b50) {
    throw new ZipFormatError(`the ZIP entry ${entry.name} is damaged`);
  }
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length) throw new ZipFormatError(`the ZIP entry ${entry.name} is cut short`);
  return bytes.subarray(start, end);
}

/** The entry's text (UTF-8), chunk by chunk, inflated as it is read: a big sheet is never whole. */
/**
 * An entry's inflated bytes, in pieces, checked against its declared size and `limit` (the sheet
 * reader takes text from entryText; the merged-ranges scan searches the bytes without decoding).
 */
export async function* entryBytes(
  bytes: Uint8Array,
  entry: ZipEntry,
  limit = MAX_INFLATED,
  /** The inflated pieces' size. */
  chunkSize = 64 * 1024,
): AsyncGenerator<Uint8Array> {
  const data = entryData(bytes, entry);
  const cap = Math.min(entry.size, limit);
  const tooBig = () =>
    new ZipFormatError(
      entry.size > limit
        ? `the ZIP entry ${entry.name} is too big (${entry.size} bytes inflated; at most ${limit} are read)`
        : `the ZIP entry ${entry.name} inflates past the size its directory declares (damaged or hostile)`,
    );
  if (entry.size > limit) throw tooBig();
  if (entry.method === 0) {
    if (data.length > cap) throw tooBig();
    yield data;
    return;
  }
  if (entry.method !== 8) throw new ZipFormatError(`the ZIP entry ${entry.name} uses an unknown compression`);
  const inflate = createInflateRaw({ chunkSize });
  // Fed in pieces as the inflated bytes are taken, so only a window of them is alive at once.
  const PIECE = 64 * 1024;
  let at = 0;
  const feed = () => {
    while (at < data.length) {
      const more = inflate.write(data.subarray(at, Math.min(at + PIECE, data.length)));
      at += PIECE;
      if (!more) {
        inflate.once('drain', feed);
        return;
      }
    }
    inflate.end();
  };
  feed();
  let inflated = 0;
  try {
    for await (const chunk of inflate) {
      inflated += (chunk as Buffer).length;
      if (inflated > cap) throw tooBig();
      yield chunk as Buffer;
    }
  } catch (err) {
    if (err instanceof ZipFormatError) throw err;
    throw new ZipFormatError(`the ZIP entry ${entry.name} cannot be inflated (${(err as Error).message})`);
  } finally {
    inflate.destroy();
  }
}

export async function* entryText(
  bytes: Uint8Array,
  entry: ZipEntry,
  limit = MAX_INFLATED,
): AsyncGenerator<string> {
  // Made from the first bytes: its byte-order mark, if any, says the encoding.
  let decoder: Decoder | undefined;
  for await (const chunk of entryBytes(bytes, entry, limit)) {
    decoder ??= decoderFor(chunk);
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder?.decode() ?? '';
  if (rest !== '') yield rest;
}

export async function entryString(bytes: Uint8Array, entry: ZipEntry): Promise<string> {
  let text = '';
  for await (const t of entryText(bytes, entry, MAX_PART)) text += t;
  return text;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Where a ZIP writer's bytes go, in order; await a returned promise for backpressure. */
export type ByteOut = (bytes: Uint8Array) => Promise<void> | undefined;

/** One entry being written: text in, deflated bytes out. */
export interface ZipEntryWriter {
  write(text: string): Promise<void>;
  end(): Promise<void>;
}

/** A ZIP archive written as a stream: entries one after another, then the directory. */
export class ZipWriter {
  private offset = 0;
  private readonly dir: Array<{
    name: Buffer;
    crc: number;
    size: number;
    compressed: number;
    offset: number;
  }> = [];

  constructor(private readonly out: ByteOut) {}

  private async put(bytes: Uint8Array): Promise<void> {
    this.offset += bytes.length;
    await this.out(bytes);
  }

  /** Start an entry; end it before the next. */
  async entry(nameText: string): Promise<ZipEntryWriter> {
    const name = Buffer.from(nameText, 'utf-8');
    const offset = this.offset;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0808, 6); // sizes in a data descriptor; UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00: the same bytes every time
    local.writeUInt16LE(name.length, 26);
    await this.put(Buffer.concat([local, name]));
    const deflate = createDeflateRaw({ level: 6, chunkSize: 64 * 1024 });
    let crc = 0;
    let size = 0;
    let compressed = 0;
    const pending: Buffer[] = [];
    deflate.on('data', (b: Buffer) => pending.push(b));
    const drain = async () => {
      while (pending.length > 0) {
        const b = pending.shift()!;
        compressed += b.length;
        await this.put(b);
      }
    };
    const finished = new Promise<void>((resolve, reject) => {
      deflate.once('end', resolve);
      deflate.once('error', reject);
    });
    return {
      write: async (text: string) => {
        const bytes = Buffer.from(text, 'utf-8');
        crc = crc32(bytes, crc);
        size += bytes.length;
        await new Promise<void>((resolve, reject) =>
          deflate.write(bytes, (err) => (err ? reject(err) : resolve())),
        );
        await drain();
      },
      end: async () => {
        deflate.end();
        await finished;
        await drain();
        const desc = Buffer.alloc(16);
        desc.writeUInt32LE(0x08074b50, 0);
        desc.writeUInt32LE(crc >>> 0, 4);
        desc.writeUInt32LE(compressed, 8);
        desc.writeUInt32LE(size, 12);
        await this.put(desc);
        this.dir.push({ name, crc: crc >>> 0, size, compressed, offset });
      },
    };
  }

  /** The central directory and its end record. */
  async finish(): Promise<void> {
    const start = this.offset;
    const parts: Buffer[] = [];
    for (const e of this.dir) {
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE(20, 4);
      h.writeUInt16LE(20, 6);
      h.writeUInt16LE(0x0808, 8);
      h.writeUInt16LE(8, 10);
      h.writeUInt32LE(0x00210000, 12);
      h.writeUInt32LE(e.crc, 16);
      h.writeUInt32LE(e.compressed, 20);
      h.writeUInt32LE(e.size, 24);
      h.writeUInt16LE(e.name.length, 28);
      h.writeUInt32LE(e.offset, 42);
      parts.push(h, e.name);
    }
    const dir = Buffer.concat(parts);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.dir.length, 8);
    end.writeUInt16LE(this.dir.length, 10);
    end.writeUInt32LE(dir.length, 12);
    end.writeUInt32LE(start, 16);
    await this.put(Buffer.concat([dir, end]));
  }
}
