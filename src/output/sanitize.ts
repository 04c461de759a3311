// Cell hygiene shared by the writers: what a spreadsheet would execute, and what a terminal would.

/**
 * Whether a spreadsheet treats a cell starting with this character (code) as a formula (OWASP
 * "CSV injection"): = + - @ tab CR, and the full-width = + - @ some locales accept.
 */
export function formulaStart(c: number): boolean {
  return (
    c === 0x3d ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x40 ||
    c === 0x09 ||
    c === 0x0d ||
    c === 0xff1d ||
    c === 0xff0b ||
    c === 0xff0d ||
    c === 0xff20
  );
}
// Plain numbers and amounts (-12.50, 10.00, +3) are data, not formulas: keep them numbers.
const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/;

/** The cell as Excel should see it: formula-looking text gets a leading `'`; numbers stay numbers. */
export function excelSafe(value: string): string {
  if (value === '' || !formulaStart(value.charCodeAt(0)) || PLAIN_NUMBER.test(value)) return value;
  return `'${value}`;
}

// Text safe on a terminal: one definition for the whole program (src/quote.ts), used here for cells.
export { cellSafe, terminalSafe } from '../quote.js';

/** Any value as cell text: bigint and numbers as their decimal text, null/undefined as empty. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}
