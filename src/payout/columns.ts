// Payout CSV columns are dotted field paths (`beneficiary.bank_details.iban`, and
// `beneficiary.person_documents[0].labels[1]` for lists), matched case-insensitively. This module
// maps a header to request paths once, then turns each row into a nested request object.
import type { InputProblem } from '../errors.js';
import { FILLED_BY_PAYOPS, type FieldSpec, pathSegments, setPath, specAt } from '../pay/schema.js';
import { quote } from '../quote.js';

export interface ColumnMap {
  /** Header column (as written) → canonical path segments; unknown columns are absent. */
  columns: Array<{ column: string; segments: Array<string | number> } | undefined>;
  problems: InputProblem[];
}

/** Maps every header column to a field of `spec`; unknown or non-leaf columns are problems. */
export function mapColumns(header: readonly string[], spec: FieldSpec, file?: string, line = 1): ColumnMap {
  const problems: InputProblem[] = [];
  const seen = new Map<string, string>();
  const columns = header.map((column, i) => {
    const name = column.trim();
    const site = { ...(file === undefined ? {} : { file }), line, field: name || `column ${i + 1}` };
    const segments = name === '' ? undefined : pathSegments(name);
    const found = segments === undefined ? undefined : specAt(spec, segments);
    if (found === undefined) {
      problems.push({
        ...site,
        message: FILLED_BY_PAYOPS.includes(name.toLowerCase())
          ? 'is filled in by payops (from the profile, or computed): remove the column'
          : 'is not a payout field',
        expected: 'a field path of the payout request, e.g. payment_amount or beneficiary.bank_details.iban',
      });
      return undefined;
    }
    if (found.spec.type === 'object' || found.spec.type === 'array') {
      problems.push({
        ...site,
        message: `names ${found.spec.type === 'object' ? 'an object' : 'a list'}, not a single value`,
        expected: 'one column per leaf field, e.g. beneficiary.address.city',
      });
      return undefined;
    }
    const key = found.segments.join('.');
    const before = seen.get(key);
    if (before !== undefined) {
      problems.push({ ...site, message: `repeats column ${quote(before)}` });
      return undefined;
    }
    seen.set(key, name);
    return { column: name, segments: found.segments };
  });
  return { columns, problems };
}

/** One row (values in header order) → nested request; empty cells are left out. */
export function rowToObject(map: ColumnMap, values: readonly string[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  map.columns.forEach((col, i) => {
    const value = values[i];
    if (col === undefined || value === undefined || value.trim() === '') return;
    setPath(root, col.segments, value.trim());
  });
  return compactLists(root) as Record<string, unknown>;
}

/** `labels[2]` without `labels[0]`, `labels[1]` leaves holes: close them so no null is sent. */
function compactLists(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(compactLists);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = compactLists(v);
    return out;
  }
  return value;
}
