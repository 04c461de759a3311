// The events journal a running `payops listen` appends to (events/journal.ts: <state>/events/
// events.jsonl, one record a line, the event's body as the gateway signed it; listen verified the
// signature before appending). A wait reads only what was appended since it began — the order or
// payout it waits for is newer than that, and a journal of a million events is never read whole —
// so it keeps its own offset instead of readEvents' whole-file read. A line still being written (no
// newline yet) is read next time.
import { open, stat } from 'node:fs/promises';
import { eventOf, eventsFile, listenLockFile, parseEventLine } from '../events/journal.js';
import { isLockHeld } from '../lifecycle/lock.js';

export interface JournaledEvent {
  eventId: string;
  eventType: string;
  createdAt: string;
  /** The event's `data`: the order's orders_list element, or the payout record. */
  data: Record<string, unknown>;
}

/** Bytes read at most per look: a burst of events is read over several looks, never all at once. */
const CHUNK = 1 << 20;

export interface EventTail {
  readonly file: string;
  /** A live `payops listen` holds its lock in this home: events are expected, the gateway is asked rarely. */
  readonly listening: boolean;
  /** Events appended since the last call, in journal order; unreadable lines are skipped. */
  read(): Promise<JournaledEvent[]>;
}

/** Starts at the journal's current end (or its start, when it does not exist yet). */
export async function openEventTail(stateDir: string): Promise<EventTail> {
  const file = eventsFile(stateDir);
  const size = await stat(file).then(
    (s) => s.size,
    () => undefined,
  );
  // A lock left by a listen that crashed does not count: its events will not come.
  const listening = await isLockHeld(listenLockFile(stateDir)).catch(() => false);
  let offset = size ?? 0;
  return {
    file,
    listening,
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

/** One journal line → the event, or undefined for a line that is not one (never trusted half-read). */
export function parseLine(line: string): JournaledEvent | undefined {
  const record = parseEventLine(line);
  const data = record ? eventOf(record)?.data : undefined;
  if (!record || !data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  return { eventId: record.eventId, eventType: record.eventType, createdAt: record.createdAt, data };
}
