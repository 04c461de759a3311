// `payops events list|show|resend`: the events journal read back. list filters and draws it, show
// prints one event whole with its signature checked again, resend replays chosen events — their
// original bytes, marked as a replay — to an app and reports each answer. Read-only on the journal.
import { stateDir as stateDirOf } from '../config/paths.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { EVENT_TYPES } from '../gateway/events.js';
import { resolveFormat } from '../output/format.js';
import { stdoutColor } from '../output/stdout-color.js';
import { parseDateArg } from '../query/dates.js';
import { quote } from '../quote.js';
import { eventCredentials } from './credentials.js';
import { forwardUrl, isOk, postBody, readForwarded, resultText } from './forward.js';
import { type EventFilter, type EventRecord, eachEvent, eventOf, eventsFile, readEvents } from './journal.js';
import { verifyEvent } from './verify.js';
import { eventJson, factsOf, localTime, moneyText } from './view.js';

export interface FilterOptions {
  type?: string;
  orderNo?: string;
  since?: string;
}

/** `--since`: a date/time (query's formats, local unless it has a zone) or a span back from now: 30m, 2h, 7d. */
export function parseSince(text: string, now = new Date()): Date {
  const span = /^(\d+)\s*(s|m|h|d)$/i.exec(text.trim());
  if (span) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
      span[2]!.toLowerCase() as 's' | 'm' | 'h' | 'd'
    ];
    return new Date(now.getTime() - Number(span[1]) * unit);
  }
  return parseDateArg(text, { bound: 'start', utc: false, flag: '--since' });
}

export function filterOf(opts: FilterOptions): EventFilter {
  const filter: EventFilter = {};
  if (opts.type !== undefined) {
    const types = opts.type
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const unknown = types.filter((t) => !EVENT_TYPES.includes(t));
    if (unknown.length > 0 || types.length === 0) {
      throw new UsageError(`--type ${quote(opts.type)} is not an event type`, {
        hint: `event types: ${EVENT_TYPES.join(', ')}`,
      });
    }
    filter.type = types;
  }
  if (opts.orderNo !== undefined) filter.orderNo = opts.orderNo;
  if (opts.since !== undefined) filter.since = parseSince(opts.since);
  return filter;
}

export async function listEvents(ctx: Context, opts: FilterOptions): Promise<number> {
  const filter = filterOf(opts);
  const state = stateDirOf(ctx.io.env);
  const forwarded = await readForwarded(state);
  const format = resolveFormat(ctx.globals, ctx.io);
  const { openTextSink } = await import('../output/sink.js');
  const { resolve } = await import('node:path');
  const sink = openTextSink(ctx.globals.out ? resolve(ctx.io.cwd, ctx.globals.out) : ctx.io.stdout);
  await sink.ready;
  const head = ['received', 'event id', 'type', 'order/payout', 'amount', 'status', 'forwarded'];
  const csvLine = format === 'csv' ? (await import('../output/csv-writer.js')).csvLine : undefined;
  // Streamed: a row's facts are kept for the table's widths, never the bodies (a journal can be large).
  const rows: Array<Record<string, string>> = [];
  let count = 0;
  for await (const r of eachEvent(state, filter)) {
    count++;
    const f = factsOf(r);
    if (format === 'json') {
      await sink.write(`${JSON.stringify(eventJson(f, { forwarded_to: forwarded.get(r.eventId) ?? [] }))}\n`);
      continue;
    }
    const row: Record<string, string> = {
      received: localTime(f.receivedAt),
      'event id': f.eventId,
      type: f.eventType,
      'order/payout': f.subject,
      amount: moneyText(f),
      status: f.status,
      forwarded: forwarded.has(r.eventId) ? 'yes' : '',
    };
    if (csvLine) {
      if (count === 1) await sink.write(csvLine(head));
      await sink.write(csvLine(head.map((h) => row[h])));
    } else rows.push(row);
  }
  if (rows.length > 0) {
    const { renderTable } = await import('../output/table.js');
    const width = ctx.io.stdout.columns;
    await sink.write(
      renderTable(head, rows, {
        color: stdoutColor(ctx),
        wide: Boolean(ctx.globals.wide),
        ...(width ? { width } : {}),
        drop: ['forwarded', 'received'],
        // No column is free text: ids, order numbers, amounts and statuses are never cut with `…`;
        // when the columns do not fit, one block per event.
        cut: [],
      }),
    );
  }
  await sink.end();
  if (count === 0)
    ctx.log.info(
      Object.keys(filter).length > 0 ? 'no events match' : `no events yet in ${eventsFile(state)}`,
    );
  return ExitCode.ok;
}

async function findOne(ctx: Context, id: string): Promise<EventRecord> {
  const state = stateDirOf(ctx.io.env);
  const [record] = await readEvents(state, { eventIds: [id] });
  if (!record) {
    throw new UsageError(`no event ${quote(id)} in ${eventsFile(state)}`, {
      hint: 'see `payops events list`',
    });
  }
  return record;
}

export async function showEvent(ctx: Context, id: string): Promise<number> {
  const record = await findOne(ctx, id);
  const creds = await eventCredentials(
    ctx,
    "no gateway configured: checking the signature with the built-in sandbox's key",
  );
  const verdict = verifyEvent(record.body, creds);
  const forwarded = (await readForwarded(stateDirOf(ctx.io.env))).get(record.eventId) ?? [];
  const doc = {
    received_at: record.receivedAt,
    signature: verdict.ok ? 'verified' : `not verified: ${verdict.reason}`,
    forwarded_to: forwarded,
    event: eventOf(record) ?? record.body,
  };
  ctx.io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  if (!verdict.ok)
    ctx.log.warn(
      `warning: ${record.eventId} does not verify with profile "${creds.profile}": ${verdict.reason}`,
    );
  return verdict.ok ? ExitCode.ok : ExitCode.config;
}

export interface ResendOptions extends FilterOptions {
  all?: boolean;
  forwardTo: string;
}

export async function resendEvents(
  ctx: Context,
  ids: readonly string[],
  opts: ResendOptions,
): Promise<number> {
  const target = forwardUrl(opts.forwardTo);
  if (!target)
    throw new UsageError(`--forward-to must be an http:// or https:// URL, not ${quote(opts.forwardTo)}`);
  const hasFilter = opts.type !== undefined || opts.orderNo !== undefined || opts.since !== undefined;
  if (ids.length === 0 && !hasFilter && !opts.all) {
    throw new UsageError('say which events to resend: event ids, --type/--order-no/--since, or --all');
  }
  if (opts.all && (ids.length > 0 || hasFilter)) {
    throw new UsageError('--all resends every event: give it alone, without ids or filters');
  }
  const filter = filterOf(opts);
  if (ids.length > 0) filter.eventIds = ids;
  const state = stateDirOf(ctx.io.env);
  // First the ids alone (an unknown one refuses the whole resend before anything is sent), then the
  // events one by one: a large journal is never held in memory.
  const chosen = new Set<string>();
  for await (const r of eachEvent(state, filter)) chosen.add(r.eventId);
  const missing = ids.filter((id) => !chosen.has(id));
  if (missing.length > 0) {
    throw new UsageError(
      `no event ${missing.map(quote).join(', ')} in ${eventsFile(state)}: nothing resent`,
      {
        hint: 'see `payops events list`',
      },
    );
  }
  if (chosen.size === 0) {
    ctx.log.info('no events match: nothing resent');
    return ExitCode.ok;
  }
  const json = ctx.globals.output === 'json';
  let failed = 0;
  let sent = 0;
  const signal = new AbortController().signal;
  for await (const r of eachEvent(state, filter)) {
    // Exactly the events chosen above (not one appended since), each once.
    if (!chosen.delete(r.eventId)) continue;
    sent++;
    const result = await postBody(
      target,
      Buffer.from(r.body, 'utf8'),
      {
        'content-type': 'application/json',
        'payops-event-id': r.eventId,
        'payops-delivery': `${r.eventId}/replay`,
        'payops-replay': 'true',
      },
      signal,
    );
    const ok = isOk(result);
    if (!ok) failed++;
    ctx.io.stdout.write(
      json
        ? `${JSON.stringify({ event_id: r.eventId, event_type: r.eventType, ok, answer: 'status' in result ? result.status : result.error })}\n`
        : `${r.eventId}  ${r.eventType}  ${ok ? 'resent' : 'FAILED'}  ${resultText(result)}\n`,
    );
  }
  ctx.log.info(
    `${sent - failed} of ${sent} events resent to ${target.href}${failed ? `, ${failed} failed` : ''}`,
  );
  return failed > 0 ? ExitCode.someFailed : ExitCode.ok;
}
