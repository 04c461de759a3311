// The admin API under /_sandbox/ (design.md §1.5): loopback only, unsigned JSON. Health, orders
// (create in any state, export as CSV), refunds at chosen times, the ledger, fault injection, the clock offset, reset, and
// the registered query IPs. Also the issuer pages that APM and checkout payments send the shopper to.

import { completeOnIssuer, issuerPage } from './checkout.js';
import {
  errorReply,
  isLoopback,
  jsonReply,
  normaliseIp,
  type Reply,
  type SandboxContext,
} from './context.js';
import type { Faults } from './faults.js';
import { Rejection } from './fields.js';
import type { LateCommits } from './late-commits.js';
import type { DeliveryRecord, NotifyQueue } from './notify-queue.js';
import { createOrders, ordersCsv, parseCreateOrders, summarise } from './seed.js';
import { seedRefunds } from './seed-refunds.js';

export interface StreamReply {
  status: number;
  contentType: string;
  chunks: Iterable<string>;
}

export interface AdminState {
  readonly ctx: SandboxContext;
  readonly faults: Faults;
  readonly lateCommits: LateCommits;
  readonly notify: NotifyQueue;
  readonly initialIps: readonly string[];
  readonly startedAt: number;
}

function parseJson(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Rejection('E1005', 'body is not valid JSON', 400);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Rejection('E1005', 'body must be a JSON object', 400);
  }
  return value as Record<string, unknown>;
}

export function handleAdmin(
  state: AdminState,
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
  remoteIp: string,
): Reply | StreamReply {
  const { ctx, faults } = state;
  if (!isLoopback(remoteIp)) {
    return errorReply(
      new Rejection('E1003', `the admin API answers loopback callers only, not ${remoteIp}`, 403),
    );
  }
  try {
    const issuer = /^\/_sandbox\/issuer\/([^/]+)(?:\/(complete|fail))?$/.exec(path);
    if (issuer) {
      const id = decodeURIComponent(issuer[1]!);
      if (!issuer[2] && method === 'GET') return issuerPage(ctx, id);
      if (issuer[2] && method === 'POST') return completeOnIssuer(ctx, id, issuer[2] === 'complete');
      return notAllowed(method, path);
    }
    switch (`${method} ${path}`) {
      case 'GET /_sandbox/health':
        return jsonReply({
          status: 'ok',
          orders: ctx.store.orders.length,
          refunds: ctx.store.refunds.length,
          ledger: ctx.store.ledger.length,
          payouts: ctx.store.payouts.size,
          // Process time, not the sandbox's clock: uptime is unaffected by POST /_sandbox/clock.
          uptime_ms: Date.now() - state.startedAt,
          late_commits: state.lateCommits.pending,
          clock_offset_ms: ctx.clock.offsetMs,
          notify: state.notify.stats(),
          // Of the whole process: for `payops sandbox` that is the sandbox alone (see docs/sandbox.md).
          process: { ...process.cpuUsage(), rss: process.memoryUsage.rss() },
        });
      case 'POST /_sandbox/orders': {
        const req = parseCreateOrders(ctx, parseJson(body));
        return jsonReply(createOrders(ctx, req).map((o) => summarise(ctx, o)));
      }
      case 'POST /_sandbox/refunds':
        return jsonReply(seedRefunds(ctx, parseJson(body)));
      case 'GET /_sandbox/orders':
        if (query.get('format') === 'csv') {
          return { status: 200, contentType: 'text/csv; charset=utf-8', chunks: ordersCsv(ctx) };
        }
        return jsonReply(ctx.store.orders.map((o) => summarise(ctx, o)));
      case 'GET /_sandbox/ledger':
        return jsonReply(ctx.store.ledger);
      case 'GET /_sandbox/pace':
        return jsonReply(faults.pace());
      case 'GET /_sandbox/faults':
        return jsonReply(faults.config);
      case 'POST /_sandbox/faults':
        return jsonReply(faults.set(parseJson(body)));
      case 'GET /_sandbox/clock':
        return jsonReply(ctx.clock.state());
      case 'POST /_sandbox/clock':
        return jsonReply(ctx.clock.set(parseJson(body)));
      case 'GET /_sandbox/deliveries':
        return jsonReply(selected(state.notify.records, query));
      case 'GET /_sandbox/events':
        return jsonReply(state.notify.events);
      case 'GET /_sandbox/notify-faults':
        return jsonReply({ ...state.notify.faults.config, ...state.notify.settings });
      case 'POST /_sandbox/notify-faults':
        return jsonReply({ ...state.notify.faults.set(parseJson(body)), ...state.notify.settings });
      case 'POST /_sandbox/reset':
        state.notify.reset();
        ctx.store.reset();
        faults.clear();
        state.lateCommits.cancelAll();
        ctx.clock.reset();
        ctx.registeredIps = new Set(state.initialIps.map(normaliseIp));
        return jsonReply({ status: 'ok' });
      case 'GET /_sandbox/config':
        return jsonReply({ registered_ips: [...ctx.registeredIps] });
      case 'POST /_sandbox/config': {
        const b = parseJson(body);
        if (b.registered_ips !== undefined) {
          const ips = b.registered_ips;
          if (!Array.isArray(ips) || !ips.every((ip) => typeof ip === 'string')) {
            throw new Rejection('E1005', 'registered_ips must be an array of IP addresses', 400);
          }
          ctx.registeredIps = new Set(ips.map(normaliseIp));
        }
        return jsonReply({ registered_ips: [...ctx.registeredIps] });
      }
      default:
        return errorReply(new Rejection('E1005', `no admin endpoint ${method} ${path}`, 404));
    }
  } catch (err) {
    if (err instanceof Rejection) return errorReply(err);
    throw err;
  }
}

/**
 * `?event_id=`, `?order_no=`, `?transaction_id=`, `?request_id=`: the attempts of one event, order or
 * payout; `?since=N`: from the Nth attempt on (0-based: the length of a list read before, to poll).
 */
function selected(records: readonly DeliveryRecord[], query: URLSearchParams): readonly DeliveryRecord[] {
  const since = query.get('since');
  let out = records;
  if (since !== null) {
    if (!/^\d{1,9}$/.test(since)) throw new Rejection('E1005', 'since must be a whole number', 400);
    out = records.slice(Number(since));
  }
  for (const field of ['event_id', 'order_no', 'transaction_id', 'request_id'] as const) {
    const want = query.get(field);
    if (want !== null) out = out.filter((r) => r[field] === want);
  }
  return out;
}

function notAllowed(method: string, path: string): Reply {
  return errorReply(new Rejection('E1005', `${method} is not allowed on ${path}`, 405));
}
