// `payops listen` under load (issue 29): a local sender posts N signed events (the sandbox's key and
// merchant, signed by the bench's own reference signer, before the clock starts) over several
// keep-alive connections (undici, as the bulk ceiling sends), first paced at a target rate, then as
// fast as the connections go. Reports the events/s achieved, listen's CPU per event, latency
// percentiles (paced: from each event's scheduled send time, so a listener that falls behind shows
// it), and listen's RSS at start, middle and end (VmRSS, and VmHWM: the peak) — flat memory means the middle and end stay near the start. Every answer must be a 200
// and the journal must hold exactly N lines afterwards. A third phase has the sandbox deliver (in
// its own process): orders made with a notify_url, captured 50 to a request.
//   BENCH_LISTEN_EVENTS=20000 BENCH_LISTEN_RATE=1000 BENCH_LISTEN_CONNECTIONS=8
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { cleanEnv } from './lib/proc.js';
import { admin, BIN, startSandbox } from './lib/sandbox.js';
import { canonical, sign } from './lib/sign.js';

function rssKb(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1]), hwm: Number(/VmHWM:\s+(\d+)/.exec(s)?.[1]) };
}

/** CPU time (user + system) of a process so far, ms, from /proc (clock ticks of 10 ms). */
function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

function body(prefix, i) {
  const e = {
    event_id: `EV${prefix}${String(i).padStart(8, '0')}`,
    event_type: i % 3 === 0 ? 'payment.captured' : i % 3 === 1 ? 'payment.approved' : 'payout.completed',
    created_at: '2026-12-06T10:00:00+0000',
    merchant_id: '800001',
    account_id: '800001001',
    data:
      i % 3 === 2
        ? { request_id: `PAY-${i}`, payment_amount: '25.00', payment_currency: 'EUR', status: 'COMPLETED' }
        : {
            order_no: `ORD-${i}`,
            transaction_id: `T${i}`,
            reference_no: `REF${i}`,
            amount: '12.50',
            currency: 'USD',
            payment_status: i % 3 === 0 ? '3000' : '2000',
            query_result: 'success',
            transaction_date: '20261206100000',
            website: 'shop.example',
            shopper_email: 'a@example.com',
          },
  };
  e.encryption_data = createHmac('sha256', 'sandbox-sign-key').update(canonical(e), 'utf8').digest('hex');
  return Buffer.from(JSON.stringify(e));
}

async function post(pool, buf) {
  const res = await pool.request({
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/json' },
    body: buf,
  });
  await res.body.dump();
  return res.statusCode;
}

const pctl = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** One phase: N events over `connections`, paced at `rate`/s (0: unpaced). */
async function phase({ port, pid, bodies, connections, rate }) {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections });
  const lat = new Float64Array(bodies.length);
  const svc = new Float64Array(bodies.length);
  const rss = { start: rssKb(pid) };
  const cpu0 = cpuMs(pid);
  let next = 0;
  let bad = 0;
  const half = Math.floor(bodies.length / 2);
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= bodies.length) return;
      const due = rate > 0 ? t0 + (i * 1000) / rate : performance.now();
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const sent = performance.now();
      const status = await post(pool, bodies[i]);
      if (status !== 200) bad++;
      const now = performance.now();
      lat[i] = now - due;
      svc[i] = now - sent;
      if (i === half) rss.middle = rssKb(pid);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - t0) / 1000;
  rss.end = rssKb(pid);
  const cpu = cpuMs(pid) - cpu0;
  await pool.close();
  const sorted = Array.from(lat).sort((a, b) => a - b);
  const answer = Array.from(svc).sort((a, b) => a - b);
  return {
    events: bodies.length,
    connections,
    targetRate: rate,
    seconds: Number(seconds.toFixed(2)),
    eventsPerSec: Math.round(bodies.length / seconds),
    /** From each event's scheduled time (paced) or its send (unpaced) to its answer. */
    p50Ms: Number(pctl(sorted, 50).toFixed(2)),
    p99Ms: Number(pctl(sorted, 99).toFixed(2)),
    /** From the request's send to its answer: the listener's own time, queueing at the sender left out. */
    answerP50Ms: Number(pctl(answer, 50).toFixed(2)),
    answerP99Ms: Number(pctl(answer, 99).toFixed(2)),
    maxMs: Number(sorted[sorted.length - 1].toFixed(2)),
    non200: bad,
    /** listen's own CPU per event (user + system): what the machine's load does not change much. */
    cpuUsPerEvent: Math.round((cpu * 1000) / bodies.length),
    /** Events per second one core would hold at that CPU cost. */
    oneCoreEventsPerSec: cpu > 0 ? Math.round((bodies.length * 1000) / cpu) : undefined,
    rssKb: { start: rss.start.rss, middle: rss.middle?.rss, end: rss.end.rss, peak: rss.end.hwm },
  };
}

/**
 * The issue's own case: the sandbox delivers. Authorised orders are made with a notify_url pointing
 * at listen, then captured 50 to a request, 4 requests at a time (each capture makes one
 * payment.captured event, delivered by the sandbox's queue, up to 32 at a time). Timed from the first
 * capture to listen's last line; events/s is what listen journaled per second.
 */
async function fromSandbox({ port, pid, events, printed }) {
  const sb = await startSandbox();
  try {
    const orders = JSON.parse(
      await admin(sb.url, 'orders', {
        count: events,
        state: '2000',
        currency: 'USD',
        amount: '10.00',
        notify_url: `http://127.0.0.1:${port}/`,
      }),
    );
    const base = printed.lines;
    const rss = { start: rssKb(pid) };
    const cpu0 = cpuMs(pid);
    const t0 = performance.now();
    let next = 0;
    const capture = async () => {
      for (;;) {
        const from = next;
        next += 50;
        if (from >= orders.length) return;
        const body = {
          merchant_id: '800001',
          account_id: '800001001',
          capture_orders: orders.slice(from, from + 50).map((o) => ({
            transaction_id: o.transaction_id,
            order_no: o.order_no,
            currency: o.currency,
            amount: o.amount,
          })),
        };
        body.encryption_data = sign(body, 'sandbox-sign-key');
        const res = await fetch(`${sb.url}/v1/capture`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`capture: HTTP ${res.status}`);
      }
    };
    await Promise.all([capture(), capture(), capture(), capture()]);
    const captured = performance.now() - t0;
    const deadline = Date.now() + 300_000;
    while (printed.lines - base < events) {
      if (Date.now() > deadline)
        throw new Error(`only ${printed.lines - base} of ${events} events reached listen`);
      if (rss.middle === undefined && printed.lines - base >= events / 2) rss.middle = rssKb(pid);
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuMs(pid) - cpu0;
    rss.end = rssKb(pid);
    const health = JSON.parse(await admin(sb.url, 'health'));
    return {
      events,
      seconds: Number(seconds.toFixed(2)),
      capturesSeconds: Number((captured / 1000).toFixed(2)),
      eventsPerSec: Math.round(events / seconds),
      cpuUsPerEvent: Math.round((cpu * 1000) / events),
      oneCoreEventsPerSec: cpu > 0 ? Math.round((events * 1000) / cpu) : undefined,
      rssKb: { start: rss.start.rss, middle: rss.middle?.rss, end: rss.end.rss, peak: rss.end.hwm },
      sandboxNotify: health.notify,
    };
  } finally {
    await sb.stop();
  }
}

export async function listenBench({ home, events = 20_000, rate = 1000, connections = 8, log = () => {} }) {
  const child = spawn(process.execPath, [BIN, 'listen', '--port', '0'], {
    env: cleanEnv({ PAYOPS_HOME: home }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // listen prints one line per new event: counting them tells when the sandbox's events are all in.
  const printed = { lines: 0 };
  child.stdout.on('data', (b) => {
    for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) printed.lines++;
  });
  try {
    const port = await new Promise((resolve, reject) => {
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (d) => {
        err += d;
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', (code) => reject(new Error(`listen exited ${code}: ${err.slice(-400)}`)));
    });
    log(`listen: signing ${events * 2} events`);
    const paced = Array.from({ length: events }, (_, i) => body('P', i));
    const burst = Array.from({ length: events }, (_, i) => body('B', i));
    log(`listen: ${events} events paced at ${rate}/s over ${connections} connections`);
    const pacedR = await phase({ port, pid: child.pid, bodies: paced, connections, rate });
    log(`listen: ${events} events unpaced over ${connections} connections`);
    const burstR = await phase({ port, pid: child.pid, bodies: burst, connections, rate: 0 });
    log(
      `listen: ${events} events from a sandbox in its own process (captures of 50, orders with notify_url)`,
    );
    const sandboxR = await fromSandbox({ port, pid: child.pid, events, printed });
    const lines = readFileSync(join(home, 'state', 'events', 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean).length;
    if (lines !== events * 3) throw new Error(`the journal holds ${lines} events, not ${events * 3}`);
    return { paced: pacedR, unpaced: burstR, sandbox: sandboxR, journalLines: lines };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode === null ? child.on('exit', r) : r()));
  }
}

/** The section's table: one row per phase. */
export function listenTable(r) {
  const mbOf = (kb) => (kb === undefined ? 'n/a' : `${(kb / 1024).toFixed(0)} MB`);
  const rows = [
    [
      'phase',
      'events',
      'events/s',
      'p50 / p99 latency',
      'p50 / p99 answer',
      'listen CPU per event (one core holds)',
      'RSS start / middle / end (peak)',
      'non-200',
    ],
  ];
  for (const [name, p] of [
    [`paced at ${r.paced.targetRate}/s, ${r.paced.connections} connections`, r.paced],
    [`unpaced, ${r.unpaced.connections} connections`, r.unpaced],
  ]) {
    rows.push([
      name,
      p.events.toLocaleString('en-US'),
      p.eventsPerSec.toLocaleString('en-US'),
      `${p.p50Ms} / ${p.p99Ms} ms`,
      `${p.answerP50Ms} / ${p.answerP99Ms} ms`,
      `${p.cpuUsPerEvent} µs (${(p.oneCoreEventsPerSec ?? 0).toLocaleString('en-US')}/s)`,
      `${mbOf(p.rssKb.start)} / ${mbOf(p.rssKb.middle)} / ${mbOf(p.rssKb.end)} (${mbOf(p.rssKb.peak)})`,
      String(p.non200),
    ]);
  }
  if (r.sandbox) {
    const p = r.sandbox;
    rows.push([
      `from the sandbox (captures of 50; its queue, 32 at a time)`,
      p.events.toLocaleString('en-US'),
      p.eventsPerSec.toLocaleString('en-US'),
      `all in ${p.seconds} s (captures sent in ${p.capturesSeconds} s)`,
      '',
      `${p.cpuUsPerEvent} µs (${(p.oneCoreEventsPerSec ?? 0).toLocaleString('en-US')}/s)`,
      `${mbOf(p.rssKb.start)} / ${mbOf(p.rssKb.middle)} / ${mbOf(p.rssKb.end)} (${mbOf(p.rssKb.peak)})`,
      '',
    ]);
  }
  return rows;
}
