// Which format results take: an explicit --output wins; --out FILE picks JSON for *.json and CSV
// otherwise; without either, a table for a person at a terminal and CSV for a pipe or a file.

import type { GlobalOptions, Io, OutputFormat } from '../io.js';

export type { OutputFormat };

/** The data format a results file takes from its name: JSON for *.json, CSV otherwise. */
export function formatForFile(path: string): 'json' | 'csv' {
  return path.toLowerCase().endsWith('.json') ? 'json' : 'csv';
}

export function resolveFormat(globals: GlobalOptions, io: Io): OutputFormat {
  if (globals.output) return globals.output;
  if (globals.out) return formatForFile(globals.out);
  return io.stdout.isTTY ? 'table' : 'csv';
}
