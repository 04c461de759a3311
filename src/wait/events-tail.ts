// The events journal a running `payops listen` appends to (<state>/events/events.jsonl, one JSON
// object a line: v, receivedAt, eventId, eventType, createdAt, body — the event's text as the gateway
// signed it; listen verified the signature before appending). A wait reads only what was appended
// since it began: the order or payout it waits for is newer than that, and a journal of a million
// events is never read whole. A line still being written (no newline yet) is read next time.
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface JournaledEvent {
  eventId: string;
  eventType: string;
  createdAt: string;
  /** The event's `data`: the order's orders_list element, or the payout record. */
  data: Record<string, unknown>;
}

export function eventsFile(stateDir: string): string {
  return join(stateDir, 'events', 'events.jsonl');
}

/** Bytes read at most per look: a burst of events is read over several looks, never all at once. */
const CHUNK = 1 << 20;

export interface EventTail {
  readonly file: string;
  /** Whether the journal existed when the wait began (a listener has run in this home). */
  readonly existed: boolean;
  /** Events appended since the last call, in journal order; unreadable lines are skipped. */
  read(): Promise<JournaledEvent[]>;
}

/** Starts at the journal's current end (or its start, when it does not exist yet). */
export async function openEventTail(file: string): Promise<EventTail> {
  const size = await stat(file).then(
    (s) => s.size,
    () => undefined,
  );
  let offset = size ?? 0;
  return {
    file,
    existed: size !== undefined,
    async read() {
      const handle = await open(file, 'r').catch(() => undefined);
      if (!handle) return [];
      try {
        const { size: now } = await handle.stat();
        // Shorter than where we were: replaced by a new journal; read it from its start.
        if (now < offset) offset = 0;
        const out: JournaledEvent[] = [];
        while (offset < now) {
          const buf = Buffer.alloc(Math.min(CHUNK, now - offset));
          const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
          const end = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
          if (end < 0) break; // a line still being written
          for (const line of buf.subarray(0, end).toString('utf8').split('\n')) {
            const ev = parseLine(line);
            if (ev) out.push(ev);
          }
          offset += end + 1;
        }
        return out;
      } finally {
        await handle.close();
      }
    },
  };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** One journal line → the event, or undefined for a line that is not one (never trusted half-read). */
export function parseLine(line: string): JournaledEvent | undefined {
  if (line.trim() === '') return undefined;
  try {
    const rec = JSON.parse(line) as Record<string, unknown>;
    if (rec.v !== 1 || typeof rec.body !== 'string') return undefined;
    const body = JSON.parse(rec.body) as Record<string, unknown>;
    const data = body.data;
    if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
    return {
      eventId: str(rec.eventId) || str(body.event_id),
      eventType: str(rec.eventType) || str(body.event_type),
      createdAt: str(rec.createdAt) || str(body.created_at),
      data: data as Record<string, unknown>,
    };
  } catch {
    return undefined;
  }
}
