// Nested JSON → flat CSV cells. Decision (docs/query.md): the path style of the signature's
// canonical form (design.md §1.1) — `delivery_information.delivery_city`,
// `fraud_check_result[0].check_items` — one column per leaf, so every field the gateway returned
// has a column and the nesting can be rebuilt. null is an empty cell; empty objects and arrays
// give no column (as in the canonical form).

export type Flat = Record<string, string>;

export function flatten(value: unknown, prefix = '', out: Flat = {}): Flat {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      flatten(v, `${prefix}[${i}]`, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix === '' ? k : `${prefix}.${k}`, out);
  } else if (prefix !== '') {
    out[prefix] = value === null || value === undefined ? '' : String(value);
  }
  return out;
}

/**
 * The columns of many flattened rows: every path that occurs, grouped by top-level field in the
 * order fields first occur, array elements in index order (`[0].*` before `[1].*`, `[2]` before `[10]`).
 */
export function columnsOf(rows: readonly Flat[]): string[] {
  const seen = new Map<string, number>();
  const topRank = new Map<string, number>();
  for (const row of rows) {
    for (const path of Object.keys(row)) {
      if (seen.has(path)) continue;
      seen.set(path, seen.size);
      const top = topLevel(path);
      if (!topRank.has(top)) topRank.set(top, topRank.size);
    }
  }
  return [...seen.keys()].sort((a, b) => {
    const byTop = topRank.get(topLevel(a))! - topRank.get(topLevel(b))!;
    if (byTop !== 0) return byTop;
    const ia = indexes(a);
    const ib = indexes(b);
    for (let i = 0; i < Math.min(ia.length, ib.length); i++) {
      if (ia[i] !== ib[i]) return ia[i]! - ib[i]!;
    }
    return seen.get(a)! - seen.get(b)!;
  });
}

function topLevel(path: string): string {
  return /^[^.[]*/.exec(path)![0];
}

function indexes(path: string): number[] {
  return [...path.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
}
