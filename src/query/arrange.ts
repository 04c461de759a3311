// Gateway records → what the user sees: each record once, in the order the user asked for them,
// and every asked-for value that no record matched listed as not found (never silently dropped).
import type { Selection, SelectorField } from './selection.js';

export interface NotFound {
  field: SelectorField;
  value: string;
}

interface Keyed {
  order_no: string;
  transaction_id: string;
}

export interface Arranged<T> {
  items: T[];
  notFound: NotFound[];
}

/**
 * `identity` says when two records are the same one (an order asked for by both order_no and
 * transaction_id comes back twice). A range-only selection keeps the gateway's order. Records that
 * match nothing asked for (a gateway answering more than asked) are kept, after the rest.
 */
export function arrange<T extends Keyed>(
  sel: Selection,
  records: readonly T[],
  identity: (r: T) => string,
  sortWithin?: (a: T, b: T) => number,
): Arranged<T> {
  const unique: T[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    const id = identity(r);
    if (seen.has(id)) continue;
    seen.add(id);
    unique.push(r);
  }
  if (sel.orderNos.length === 0 && sel.transactionIds.length === 0) return { items: unique, notFound: [] };

  const byField: Record<SelectorField, Map<string, T[]>> = { order_no: new Map(), transaction_id: new Map() };
  for (const r of unique) {
    for (const field of ['order_no', 'transaction_id'] as const) {
      const list = byField[field].get(r[field]) ?? [];
      list.push(r);
      byField[field].set(r[field], list);
    }
  }

  const items: T[] = [];
  const placed = new Set<T>();
  const notFound: NotFound[] = [];
  const asked: Array<[SelectorField, string[]]> = [
    ['order_no', sel.orderNos],
    ['transaction_id', sel.transactionIds],
  ];
  for (const [field, values] of asked) {
    for (const value of values) {
      const matches = byField[field].get(value);
      if (matches === undefined) {
        notFound.push({ field, value });
        continue;
      }
      const fresh = matches.filter((r) => !placed.has(r));
      if (sortWithin) fresh.sort(sortWithin);
      for (const r of fresh) {
        placed.add(r);
        items.push(r);
      }
    }
  }
  for (const r of unique) if (!placed.has(r)) items.push(r);
  return { items, notFound };
}
