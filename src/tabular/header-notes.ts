// What a person should know about how a table's header was read when it was not plain: the row it
// was found on (a title above it, or --header-row) and the columns found under other headers (a
// dashboard's name, an alias, --columns or the profile's columns.<command>). Payout files and
// `query --file` say it so; bulk's plan says it in its own layout (bulk/report/report.ts).
import type { CsvHeader } from './csv-header.js';
import type { TableReadAs } from './read-as.js';

export function headerNotes(
  header: Pick<CsvHeader, 'line' | 'matches'> | undefined,
  readAs: TableReadAs | undefined,
): string[] {
  const notes: string[] = [];
  if (header?.line !== undefined && (header.line > 1 || readAs?.headerRow !== undefined)) {
    notes.push(
      `header: row ${header.line}${readAs?.headerRow !== undefined ? ' (--header-row)' : ' (the rows above it are left out)'}`,
    );
  }
  if (header?.matches?.length) {
    const from = readAs?.columnsFrom ?? '--columns';
    const shown = header.matches.map(
      (m) => `${m.column} ← ${JSON.stringify(m.header)}${m.how === 'mapped' ? ` (${from})` : ''}`,
    );
    notes.push(`columns: ${shown.join(', ')}`);
  }
  return notes;
}
