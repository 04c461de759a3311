// Small admin-API helpers for the pay and payout integration tests.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const CARDS = {
  approved: '4242424242424242',
  declined: '4000000000000002',
  insufficient: '4000000000009995',
  threeDs: '4000000000003220',
  review: '4000000000009235',
} as const;

export async function admin<T = unknown>(url: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export interface LedgerEntry {
  kind: string;
  request_id: string;
  transaction_id: string;
  payment_amount?: string;
  payment_currency?: string;
}

export const ledger = (url: string) => admin<LedgerEntry[]>(url, '/_sandbox/ledger');
export const health = (url: string) =>
  admin<{ orders: number; payouts: number; ledger: number }>(url, '/_sandbox/health');
export const setFaults = (url: string, faults: Record<string, unknown>) =>
  admin(url, '/_sandbox/faults', faults);

/** Every file under a folder with its text (journals, config). */
export function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push({ path: p, text: readFileSync(p, 'utf8') });
    }
  };
  walk(dir);
  return out;
}
