#!/usr/bin/env node
// The CEILING of the bulk benchmark: the least work any client must do to refund a CSV file —
// stream-parse it with csv-parse, cut it into the same chunks of 50, sign each with the HMAC
// scheme of design.md §1.1, POST them with undici at the same concurrency as payops, parse each
// JSON reply and check its signature. No validation, no journal, no results file: payops does all
// of those on top, so its throughput divided by this one is the share of the machine it keeps.
//
//   node bench/ceiling.js --file refunds.csv --base-url http://127.0.0.1:PORT [--concurrency 4]
// Prints one JSON line: { rows, requests, succeeded, failed, badSignatures, ms }.
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse';
import { Pool } from 'undici';
import { sign, verify } from './lib/sign.js';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    'base-url': { type: 'string', default: process.env.PAYOPS_BASE_URL },
    concurrency: { type: 'string', default: '4' },
    chunk: { type: 'string', default: '50' },
  },
});
const key = process.env.PAYOPS_SIGN_KEY ?? 'sandbox-sign-key';
const merchantId = process.env.PAYOPS_MERCHANT_ID ?? '800001';
const accountId = process.env.PAYOPS_ACCOUNT_ID ?? '800001001';
const concurrency = Number(values.concurrency);
const chunkSize = Number(values.chunk);
if (!values.file || !values['base-url']) throw new Error('usage: ceiling.js --file F --base-url URL');

const started = performance.now();
const base = new URL(values['base-url']);
const pool = new Pool(base.origin, { connections: concurrency });
const path = `${base.pathname.replace(/\/+$/, '')}/v1/refund`;
const totals = { rows: 0, requests: 0, succeeded: 0, failed: 0, badSignatures: 0 };

async function send(orders) {
  const body = { merchant_id: merchantId, account_id: accountId, refund_orders: orders };
  body.encryption_data = sign(body, key);
  const res = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = await res.body.json();
  totals.requests++;
  if (!verify(reply, key)) totals.badSignatures++;
  for (const r of reply.refund_orders ?? []) {
    if (r.refund_status === '1') totals.succeeded++;
    else totals.failed++;
  }
}

// Bounded concurrency: at most `concurrency` requests in flight; the reader waits for a free slot,
// so memory stays flat whatever the file size.
const inFlight = new Set();
async function dispatch(orders) {
  while (inFlight.size >= concurrency) await Promise.race(inFlight);
  const p = send(orders).finally(() => inFlight.delete(p));
  inFlight.add(p);
}

const parser = createReadStream(values.file).pipe(
  parse({ columns: true, bom: true, skip_empty_lines: true, trim: true }),
);
let chunk = [];
for await (const row of parser) {
  totals.rows++;
  chunk.push({
    transaction_id: row.transaction_id,
    order_no: row.order_no,
    currency: row.currency,
    amount: row.amount,
    refund_amount: row.refund_amount,
    refund_reason: row.refund_reason,
  });
  if (chunk.length === chunkSize) {
    await dispatch(chunk);
    chunk = [];
  }
}
if (chunk.length > 0) await dispatch(chunk);
await Promise.all(inFlight);
await pool.close();
process.stdout.write(`${JSON.stringify({ ...totals, ms: Math.round(performance.now() - started) })}\n`);
