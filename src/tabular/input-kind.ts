// What kind of file an input is, from its first bytes (csv-reader.ts): a run's copy of a workbook
// is named input.csv, so the name cannot tell.
import { open, readFile } from 'node:fs/promises';
import { InputError } from '../errors.js';

/** The first bytes of a file: a ZIP (an .xlsx), an OLE2 compound file (an .xls), or text. */
export async function sniff(file: string): Promise<'csv' | 'xlsx' | 'xls'> {
  let head: Buffer;
  try {
    const fh = await open(file, 'r');
    try {
      head = Buffer.alloc(4);
      const { bytesRead } = await fh.read(head, 0, 4, 0);
      head = head.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch {
    return 'csv'; // the CSV reader reports a missing file, a folder, a permission
  }
  if (head.length === 4 && head.readUInt32BE(0) === 0x504b0304) return 'xlsx';
  if (head.length === 4 && head.readUInt32BE(0) === 0xd0cf11e0) return 'xls';
  return 'csv';
}

/** An old binary workbook, which payops does not read, with what to do. */
export function xlsRefused(label: string): InputError {
  return new InputError(
    `${label} is an Excel 97-2003 workbook (.xls), which payops does not read`,
    [
      {
        file: label,
        line: 1,
        message: 'the file is an .xls workbook',
        expected: 'an .xlsx workbook or a UTF-8 CSV file',
      },
    ],
    {
      hint: 'in Excel use File › Save As › "Excel Workbook (*.xlsx)" (or "CSV UTF-8 (Comma delimited) (*.csv)")',
    },
  );
}

/**
 * A password-protected .xlsx is not a ZIP: Office wraps it in an OLE2 compound file, as an .xls
 * is, whose directory holds the streams EncryptionInfo and EncryptedPackage (MS-OFFCRYPTO 2.3.4).
 * Directory entries are 128 bytes at 128-byte boundaries (sectors are 512 or 4,096 bytes after a
 * 512-byte header): each is looked at for a stream of that name, no other structure is needed.
 */
export function isEncryptedPackage(bytes: Uint8Array): boolean {
  const name = Buffer.from('EncryptedPackage\u0000', 'utf16le');
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 512; at + 128 <= buf.length; at += 128) {
    // Name length in bytes (terminator included) and object type 2, a stream.
    if (
      buf.readUInt16LE(at + 0x40) === name.length &&
      buf[at + 0x42] === 2 &&
      buf.subarray(at, at + name.length).equals(name)
    ) {
      return true;
    }
  }
  return false;
}

/** An OLE2 file refused with its true cause: a password-protected workbook, or an old .xls. */
export async function oleRefused(label: string, path: string): Promise<InputError> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readFile(path);
  } catch {
    bytes = undefined;
  }
  if (bytes === undefined || !isEncryptedPackage(bytes)) return xlsRefused(label);
  return new InputError(
    `${label}: the workbook is protected by a password: save an unprotected copy`,
    [
      {
        file: label,
        line: 1,
        message: 'the workbook is encrypted with a password (payops cannot read its cells)',
        expected: 'an .xlsx workbook without a password, or a UTF-8 CSV file',
      },
    ],
    {
      hint: 'open it in the spreadsheet program with its password, remove the password (in Excel: File › Info › Protect Workbook › Encrypt with Password, empty) and save a copy',
    },
  );
}

/** --sheet given for a CSV file. */
export function sheetOfCsv(label: string): InputError {
  return new InputError(`--sheet applies to an .xlsx workbook; ${label} is not one`, [
    {
      file: label,
      message: 'is a CSV file, which has no sheets',
      expected: 'an .xlsx workbook, or no --sheet',
    },
  ]);
}
