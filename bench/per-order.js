#!/usr/bin/env node
// The PEER of the bulk benchmark: one signed refund request per order, sent one after another —
// what a shell loop over curl or a newman collection with a CSV data file does. Written in Node
// with a keep-alive undici connection, so it is the fastest such a tool could be: an upper bound.
//
//   node bench/per-order.js --file refunds.csv --base-url http://127.0.0.1:PORT [--limit 2000]
// Prints one JSON line: { requests, succeeded, failed, ms }.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse/sync';
import { Pool } from 'undici';
import { sign } from './lib/sign.js';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    'base-url': { type: 'string', default: process.env.PAYOPS_BASE_URL },
    limit: { type: 'string' },
  },
});
const key = process.env.PAYOPS_SIGN_KEY ?? 'sandbox-sign-key';
const merchantId = process.env.PAYOPS_MERCHANT_ID ?? '800001';
const accountId = process.env.PAYOPS_ACCOUNT_ID ?? '800001001';
if (!values.file || !values['base-url']) throw new Error('usage: per-order.js --file F --base-url URL');

const rows = parse(readFileSync(values.file), { columns: true, bom: true, skip_empty_lines: true });
const sample = values.limit ? rows.slice(0, Number(values.limit)) : rows;
const base = new URL(values['base-url']);
const pool = new Pool(base.origin, { connections: 1 });
const path = `${base.pathname.replace(/\/+$/, '')}/v1/refund`;
const totals = { requests: 0, succeeded: 0, failed: 0 };

const started = performance.now();
for (const row of sample) {
  const body = {
    merchant_id: merchantId,
    account_id: accountId,
    refund_orders: [
      {
        transaction_id: row.transaction_id,
        order_no: row.order_no,
        currency: row.currency,
        amount: row.amount,
        refund_amount: row.refund_amount,
        refund_reason: row.refund_reason,
      },
    ],
  };
  body.encryption_data = sign(body, key);
  const res = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = await res.body.json();
  totals.requests++;
  if (reply.refund_orders?.[0]?.refund_status === '1') totals.succeeded++;
  else totals.failed++;
}
const ms = performance.now() - started;
await pool.close();
process.stdout.write(`${JSON.stringify({ ...totals, ms: Math.round(ms) })}\n`);
