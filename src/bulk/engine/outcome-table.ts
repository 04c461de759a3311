// How a chunk's row outcomes are kept in the journal: as a small table — the gateway's field names
// once, then one array per row — rather than an object per row that repeats every key. Half the
// bytes, and JSON.stringify of arrays is cheaper than of objects: the journal's outcome records were
// 21 MB and a tenth of a 100,000-refund run's CPU. Older journals hold `rows` as objects; both read.
import type { Outcome, RowOutcome } from '../types.js';

/** The journal form: `[line, outcome, detail, ...values of fields]`, null for an absent field. */
export interface OutcomeTable {
  fields: string[];
  table: Array<Array<string | number | null>>;
  /** The field whose value a detail cell of 0 stands for. */
  message?: string;
}

/** Detail cell of a row whose detail is the gateway's own message (the usual case), not repeated. */
const SAME_AS_MESSAGE = 0;

export function toOutcomeTable(rows: readonly RowOutcome[], messageField: string): OutcomeTable {
  const fields: string[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    for (const f in r.fields) {
      if (!seen.has(f)) {
        seen.add(f);
        fields.push(f);
      }
    }
  }
  const table = rows.map((r) => {
    const row: Array<string | number | null> = [
      r.line,
      r.outcome,
      r.detail !== '' && r.detail === r.fields[messageField] ? SAME_AS_MESSAGE : r.detail,
    ];
    for (const f of fields) row.push(r.fields[f] ?? null);
    return row;
  });
  return { fields, table, ...(fields.includes(messageField) ? { message: messageField } : {}) };
}

/** Row outcomes of an `outcome` / `reconciled` record, in either form. */
export function outcomeRows(rec: Record<string, unknown>): RowOutcome[] {
  if (Array.isArray(rec.rows)) return rec.rows as RowOutcome[];
  const fields = Array.isArray(rec.fields) ? (rec.fields as string[]) : [];
  const table = Array.isArray(rec.table) ? (rec.table as unknown[][]) : [];
  const messageField = typeof rec.message === 'string' ? rec.message : undefined;
  return table.map((cells) => {
    const values: Record<string, string> = {};
    fields.forEach((f, i) => {
      const v = cells[3 + i];
      if (typeof v === 'string') values[f] = v;
    });
    const detail = cells[2];
    return {
      line: Number(cells[0]),
      outcome: cells[1] as Outcome,
      detail:
        detail === SAME_AS_MESSAGE && messageField !== undefined
          ? (values[messageField] ?? '')
          : String(detail ?? ''),
      fields: values,
    };
  });
}
