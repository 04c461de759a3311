// Selection → the requests to send: each list cut into chunks of the endpoint's limit, one
// request per chunk; a range without a list is one request. Order numbers and transaction ids go
// in separate requests so that "at most N values per request" holds whatever the gateway counts.

import { formatGatewayTime } from '../gateway/time.js';
import type { SelectionRequest } from '../gateway/types.js';
import type { Selection, SelectorField } from './selection.js';

export type SelectionBody = Omit<SelectionRequest, 'merchant_id' | 'account_id' | 'encryption_data'>;

export interface PlannedRequest {
  /** The list this request looks up; undefined for a range-only request. */
  field?: SelectorField;
  values: string[];
  body: SelectionBody;
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be ≥ 1, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function planRequests(sel: Selection, limit: number): PlannedRequest[] {
  const range: SelectionBody = {};
  if (sel.start) range.start_date = formatGatewayTime(sel.start);
  if (sel.end) range.end_date = formatGatewayTime(sel.end);
  const lists: Array<[SelectorField, string[]]> = [
    ['order_no', sel.orderNos],
    ['transaction_id', sel.transactionIds],
  ];
  const plans: PlannedRequest[] = [];
  for (const [field, values] of lists) {
    for (const part of chunk(values, limit)) {
      plans.push({ field, values: part, body: { [field]: part.join(','), ...range } });
    }
  }
  if (plans.length === 0) plans.push({ values: [], body: range });
  return plans;
}
