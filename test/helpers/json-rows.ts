// The rows of `--output json`: a money-moving run writes one document ({…, rows: […]},
// src/output/run-document.ts); `runs show`, `runs list` and the read-only commands an array.
// biome-ignore lint/suspicious/noExplicitAny: as JSON.parse, typed by the caller
export function jsonRows<T = any>(stdout: string): T[] {
  const v = JSON.parse(stdout) as T[] | { rows: T[] };
  return Array.isArray(v) ? v : v.rows;
}
