// Small statistics and formatting helpers for the bench table.
export function mean(xs) {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function stddev(xs) {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length - 1));
}

export const int = (n) =>
  n === undefined || Number.isNaN(n) ? 'n/a' : Math.round(n).toLocaleString('en-US');
export const ms = (n) =>
  n === undefined || Number.isNaN(n) ? 'n/a' : n < 100 ? `${n.toFixed(1)} ms` : `${Math.round(n)} ms`;
export const mb = (kb) => (kb === undefined || Number.isNaN(kb) ? 'n/a' : `${(kb / 1024).toFixed(0)} MB`);
export const ratio = (r) => (r === undefined || Number.isNaN(r) ? 'n/a' : `${r.toFixed(2)}×`);
export const pct = (r) => (r === undefined || Number.isNaN(r) ? 'n/a' : `${(r * 100).toFixed(1)} %`);

/** Plain-text table: first row is the header; columns padded to their widest cell. */
export function renderTable(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i] ?? '').length)));
  const line = (r) =>
    r
      .map((c, i) => String(c ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** The same table in Markdown, for docs/performance.md. */
export function renderMarkdown(rows) {
  const line = (r) => `| ${r.map((c) => String(c ?? '')).join(' | ')} |`;
  return [line(rows[0]), line(rows[0].map(() => '---')), ...rows.slice(1).map(line)].join('\n');
}
