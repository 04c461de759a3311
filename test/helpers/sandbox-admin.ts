// The sandbox's admin API (/_sandbox/…), for tests that create orders, inject faults and read the
// ledger of what the gateway actually did.
export interface SandboxOrder {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  payment_status: string;
}

export interface SandboxLedgerEntry {
  kind: string;
  transaction_id: string;
  order_no: string;
  amount: string;
  refund_amount?: string;
  request_id?: string;
}

async function admin(url: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}/_sandbox/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`admin ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** `count` new orders in `state` (3000 captured by default). */
export function createOrders(
  url: string,
  count: number,
  state = '3000',
  currency = 'USD',
): Promise<SandboxOrder[]> {
  return admin(url, 'POST', 'orders', { count, state, currency }) as Promise<SandboxOrder[]>;
}

/** Every money movement the sandbox committed, oldest first. */
export function ledger(url: string): Promise<SandboxLedgerEntry[]> {
  return admin(url, 'GET', 'ledger') as Promise<SandboxLedgerEntry[]>;
}

/** `POST /_sandbox/faults`: e.g. `{ mode: 'error500', rate: 1 }`; `{ mode: 'none' }` clears. */
export async function setFaults(url: string, config: Record<string, unknown>): Promise<void> {
  await admin(url, 'POST', 'faults', config);
}

export interface SeededRefund {
  transaction_id: string;
  order_no: string;
  refund_reference_id: string;
  refund_date: string;
}

/**
 * `POST /_sandbox/refunds`: `count` refunds spread evenly over `seconds` seconds from `from`
 * (ISO 8601), `per_order` refunds on each of the captured orders made for them.
 */
export function seedRefunds(
  url: string,
  spec: { count: number; from: string; seconds?: number; per_order?: number },
): Promise<SeededRefund[]> {
  return admin(url, 'POST', 'refunds', spec) as Promise<SeededRefund[]>;
}
