// What kind of file an input is, from its first bytes (csv-reader.ts): a run's copy of a workbook
// is named input.csv, so the name cannot tell.
import { open } from 'node:fs/promises';
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
