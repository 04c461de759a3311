// The events journal: every notification `payops listen` accepted, one JSON object per line in
// `<stateDir>/events/events.jsonl`, appended durably (write + fdatasync) before the gateway is
// answered 2xx, so an acknowledged event is never lost (docs/events.md). Readers (events list/show/
// resend, `--wait`) read it back with readEvents; the one writer is a running `payops listen`
// (its lock, listen.lock beside the journal).
//
// A line: {"v":1,"receivedAt":ISO UTC,"eventId","eventType","createdAt" (as in the event),
// "body": the request body text exactly as received}. The body is kept as text so that a forward or a
// replay sends the very bytes the gateway signed.
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sizeIfExists, syncFolder } from '../lifecycle/fs-sync.js';
import { cutTornTail } from '../lifecycle/journal.js';
import { isLockHeld } from '../lifecycle/lock.js';

export const EVENTS_DIR = 'events';
export const EVENTS_FILE = 'events.jsonl';
export const FORWARDED_FILE = 'forwarded.jsonl';
export const LISTEN_LOCK_FILE = 'listen.lock';
export const EVENTS_JOURNAL_VERSION = 1;

export function eventsDir(stateDir: string): string {
  return join(stateDir, EVENTS_DIR);
}
export function eventsFile(stateDir: string): string {
  return join(eventsDir(stateDir), EVENTS_FILE);
}
export function forwardedFile(stateDir: string): string {
  return join(eventsDir(stateDir), FORWARDED_FILE);
}

export function listenLockFile(stateDir: string): string {
  return join(eventsDir(stateDir), LISTEN_LOCK_FILE);
}

/**
 * Whether a `payops listen` is running for this state folder now (its lock held by a live process;
 * a lock left behind by a killed listen does not count).
 */
export function listenRunning(stateDir: string): Promise<boolean> {
  return isLockHeld(listenLockFile(stateDir));
}

/** One journaled event. */
export interface EventRecord {
  v: 1;
  /** When listen accepted it, ISO 8601 UTC. */
  receivedAt: string;
  eventId: string;
  eventType: string;
  /** The event's own created_at, as the gateway wrote it (`YYYY-MM-DDThh:mm:ss+hhmm`). */
  createdAt: string;
  /** The request body exactly as received (JSON text, signed by the gateway). */
  body: string;
}

/** What a reader may ask for; every given field must match. */
export interface EventFilter {
  /** event_type, or any of several. */
  type?: string | readonly string[];
  /** data.order_no (payment events) or data.request_id (payout events). */
  orderNo?: string;
  /** Only events created at or after this time (the event's created_at). */
  since?: Date;
  /** Only these event ids. */
  eventIds?: readonly string[];
}

/** The parsed event body (design §1.9). */
export interface GatewayEvent {
  event_id: string;
  event_type: string;
  created_at: string;
  merchant_id: string;
  account_id: string;
  data: Record<string, unknown>;
  encryption_data: string;
}

/** The body of a record, parsed; undefined when it is not an object (never written so by listen). */
export function eventOf(record: Pick<EventRecord, 'body'>): GatewayEvent | undefined {
  try {
    const value: unknown = JSON.parse(record.body);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as GatewayEvent)
      : undefined;
  } catch {
    return undefined;
  }
}

/** An event's `created_at` (`2026-12-06T01:02:03+0100`, or with `+01:00` or `Z`) as a Date; NaN when unreadable. */
export function parseCreatedAt(text: string): Date {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)(Z|[+-]\d{2}:?\d{2})$/.exec(text);
  if (!m) return new Date(Number.NaN);
  const zone = m[2] === 'Z' ? 'Z' : `${m[2]!.slice(0, 3)}:${m[2]!.slice(-2)}`;
  return new Date(`${m[1]}${zone}`);
}

/** The order number (payments) or payout request_id an event is about; '' when none. */
export function subjectOf(event: GatewayEvent | undefined): string {
  const data = event?.data;
  if (!data || typeof data !== 'object') return '';
  const v = data.order_no ?? data.request_id;
  return typeof v === 'string' ? v : '';
}

function matches(record: EventRecord, filter: EventFilter, ids: ReadonlySet<string> | undefined): boolean {
  if (ids && !ids.has(record.eventId)) return false;
  if (filter.type !== undefined) {
    const types = typeof filter.type === 'string' ? [filter.type] : filter.type;
    if (!types.includes(record.eventType)) return false;
  }
  if (filter.since) {
    const t = parseCreatedAt(record.createdAt).getTime();
    if (!(t >= filter.since.getTime())) return false;
  }
  if (filter.orderNo !== undefined && subjectOf(eventOf(record)) !== filter.orderNo) return false;
  return true;
}

/** A line as a record, or undefined (a torn last line left by a crash, or anything not ours). */
export function parseEventLine(line: string): EventRecord | undefined {
  if (line === '') return undefined;
  try {
    const r = JSON.parse(line) as Partial<EventRecord> | null;
    if (
      r === null ||
      typeof r !== 'object' ||
      r.v !== 1 ||
      typeof r.eventId !== 'string' ||
      typeof r.eventType !== 'string' ||
      typeof r.createdAt !== 'string' ||
      typeof r.receivedAt !== 'string' ||
      typeof r.body !== 'string'
    ) {
      return undefined;
    }
    return r as EventRecord;
  } catch {
    return undefined;
  }
}

/**
 * Every line of a JSONL file under the state folder, streamed, up to its size when the read began
 * (a snapshot: lines appended meanwhile are for the next read); nothing when it does not exist.
 */
export async function* jsonLines(path: string): AsyncGenerator<string> {
  const size = await sizeIfExists(path);
  if (!size) return;
  const stream = createReadStream(path, { encoding: 'utf8', start: 0, end: size - 1 });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** Every journaled event matching `filter`, in journal order (the order listen accepted them). */
export async function* eachEvent(stateDir: string, filter: EventFilter = {}): AsyncGenerator<EventRecord> {
  const ids = filter.eventIds ? new Set(filter.eventIds) : undefined;
  for await (const line of jsonLines(eventsFile(stateDir))) {
    const r = parseEventLine(line);
    if (r && matches(r, filter, ids)) yield r;
  }
}

/** The journaled events matching `filter`, in journal order; [] when there is no journal yet. */
export async function readEvents(stateDir: string, filter: EventFilter = {}): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for await (const r of eachEvent(stateDir, filter)) out.push(r);
  return out;
}

/** The id of every journaled event (listen's de-duplication index: ids only, never bodies). */
export async function readEventIds(stateDir: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const r of eachEvent(stateDir)) ids.add(r.eventId);
  return ids;
}

/** An append-only JSONL file written with group commit: appends made during a write+fdatasync share the next one. */
export interface DurableAppender {
  /** Resolves once the lines are written and fdatasync'd; rejects (and every later call) after a failed write. */
  append(lines: string): Promise<void>;
  /** Waits for appends in flight, then closes. Idempotent. */
  close(): Promise<void>;
}

/**
 * Open `path` for durable appends, creating it (and its folder, mode 0700) when missing; a torn
 * last line left by a crash mid-write is cut first, so the next record starts on a line of its own.
 */
export async function openAppender(path: string, dir: string): Promise<DurableAppender> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await cutTornTail(path);
  const fh = await open(path, 'a', 0o600);
  await syncFolder(dir);
  return appender(fh);
}

function appender(fh: FileHandle): DurableAppender {
  let queued = '';
  let waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  let flushing: Promise<void> | undefined;
  let failure: unknown;
  let closing: Promise<void> | undefined;

  async function flushLoop(): Promise<void> {
    while (queued !== '') {
      const buf = Buffer.from(queued, 'utf8');
      const batch = waiters;
      queued = '';
      waiters = [];
      try {
        let off = 0;
        while (off < buf.length) {
          const { bytesWritten } = await fh.write(buf, off, buf.length - off);
          off += bytesWritten;
        }
        await fh.datasync();
        for (const w of batch) w.resolve();
      } catch (cause) {
        failure ??= cause;
        for (const w of [...batch, ...waiters]) w.reject(cause);
        waiters = [];
        queued = '';
      }
    }
    flushing = undefined;
  }

  return {
    append(lines) {
      if (closing !== undefined) return Promise.reject(new Error('the events journal is closed'));
      if (failure !== undefined) return Promise.reject(failure);
      queued += lines;
      const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      flushing ??= flushLoop();
      return done;
    },
    close() {
      closing ??= (async () => {
        while (flushing !== undefined) await flushing;
        await fh.close().catch(() => {});
      })();
      return closing;
    },
  };
}

/** The events journal, open for listen's appends. */
export interface EventsJournal {
  /** Append one record; resolves once it is on disk (the gateway may then be answered 2xx). */
  append(record: EventRecord): Promise<void>;
  close(): Promise<void>;
}

export function eventRecord(
  body: string,
  event: Pick<GatewayEvent, 'event_id' | 'event_type' | 'created_at'>,
  now = new Date(),
): EventRecord {
  return {
    v: EVENTS_JOURNAL_VERSION,
    receivedAt: now.toISOString(),
    eventId: event.event_id,
    eventType: event.event_type,
    createdAt: event.created_at,
    body,
  };
}

export async function openEventsJournal(stateDir: string): Promise<EventsJournal> {
  const w = await openAppender(eventsFile(stateDir), eventsDir(stateDir));
  return {
    append: (record) => w.append(`${JSON.stringify(record)}\n`),
    close: () => w.close(),
  };
}
