// The sandbox's delivery queue for notifications (design.md §1.9): its own, so that a slow or dead
// receiver never holds up an API answer. An event is queued when its state change commits and tried
// after the answer has gone (setImmediate), a bounded number of POSTs at a time over keep-alive
// agents; any 2xx is delivery, anything else (or no answer within the timeout) is tried again after
// each delay of the retry schedule, then dropped. Every attempt is recorded (GET /_sandbox/deliveries).
// close() ends every timer, request and socket at once: a stopped sandbox leaves no handle behind.
import { type ClientRequest, Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { NotifyFaults } from './notify-faults.js';

/** design.md §1.9: 1 s, 5 s, 30 s, 2 min, 10 min after the failed attempts, then dropped. */
export const DEFAULT_NOTIFY_RETRIES_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000, 600_000];
export const DEFAULT_NOTIFY_TIMEOUT_MS = 10_000;
/** POSTs in flight at once; more wait their turn in order. */
export const DEFAULT_NOTIFY_CONCURRENCY = 32;

export interface NotifyOptions {
  /** Delays before each retry; its length is the number of retries. */
  retriesMs?: readonly number[];
  /** One attempt's deadline (connect to answer headers). */
  timeoutMs?: number;
  concurrency?: number;
  /**
   * On close, wait up to this long for the attempts already due (not the retries scheduled later):
   * the in-process sandbox of one command (--sandbox) delivers what its command made. Default 0.
   */
  drainMs?: number;
  /** Told of every attempt once recorded (`payops sandbox`'s log line). */
  onDelivery?: (record: DeliveryRecord) => void;
}

/**
 * An event as made when its state change committed. Its body (data included) is fixed then; it is
 * signed and serialised on first use (`text`), after the answer, not in the request's path.
 */
export interface NotifyEvent {
  readonly event_id: string;
  readonly event_type: string;
  readonly url: string;
  /** What a delivery record names the event by: order_no, transaction_id, refund_reference_id or request_id. */
  readonly refs: Readonly<Record<string, string>>;
  /** The event as sent (parsed again from `text` once that is made: only the text is kept). */
  readonly body: Readonly<Record<string, unknown>>;
  /** The bytes every attempt sends. */
  readonly text: string;
}

export type AttemptStatus = number | 'timeout' | 'error' | 'dropped';

export interface DeliveryRecord {
  event_id: string;
  event_type: string;
  url: string;
  /** Which delivery of the event (1 unless the duplicate fault sends it more than once). */
  copy: number;
  /** 1 for the first attempt; on a `dropped` record, the attempts made. */
  attempt: number;
  status: AttemptStatus;
  /** ISO 8601 UTC on the sandbox's clock, when the attempt ended. */
  at: string;
  ms: number;
  /** The attempt was failed by a notify fault and never sent. */
  fault?: true;
  /** What went wrong for an `error`, in a few words (no body, no secret). */
  error?: string;
  order_no?: string;
  transaction_id?: string;
  refund_reference_id?: string;
  request_id?: string;
}

export type EventState = 'pending' | 'delivered' | 'dropped';

/** One event the sandbox made, for GET /_sandbox/events. */
export interface EventEntry {
  event_id: string;
  event_type: string;
  url: string;
  state: EventState;
  /** Deliveries of it (the duplicate fault makes more than one), and how many ended delivered. */
  copies: number;
  delivered: number;
  attempts: number;
  body: Record<string, unknown>;
}

interface Tracked {
  readonly event: NotifyEvent;
  /** Everything of the event's EventEntry but its body (made on demand from the event's text). */
  readonly entry: Omit<EventEntry, 'body'>;
  open: number;
}

interface Delivery {
  readonly tracked: Tracked;
  readonly copy: number;
  readonly failFirst: number;
  readonly latencyMs: number;
  attempt: number;
}

export class NotifyQueue {
  readonly faults: NotifyFaults;
  readonly #retries: readonly number[];
  readonly #timeoutMs: number;
  readonly #concurrency: number;
  readonly #drainMs: number;
  readonly #onDelivery: ((record: DeliveryRecord) => void) | undefined;
  #idle: Array<() => void> = [];
  readonly #now: () => number;
  readonly #records: DeliveryRecord[] = [];
  readonly #tracked: Tracked[] = [];
  /** Attempts due, oldest first, from #readyHead on (a backlog of thousands: no O(n) shift). */
  readonly #ready: Delivery[] = [];
  #readyHead = 0;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #requests = new Set<ClientRequest>();
  #inFlight = 0;
  #pumpScheduled: NodeJS.Immediate | undefined;
  #closed = false;
  /** Bumped by reset(): answers of attempts started before it are not recorded. */
  #generation = 0;
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;

  constructor(opts: NotifyOptions, now: () => number, seed: number) {
    this.#retries = [...(opts.retriesMs ?? DEFAULT_NOTIFY_RETRIES_MS)];
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_NOTIFY_TIMEOUT_MS;
    this.#concurrency = opts.concurrency ?? DEFAULT_NOTIFY_CONCURRENCY;
    this.#drainMs = opts.drainMs ?? 0;
    this.#onDelivery = opts.onDelivery;
    this.#now = now;
    this.faults = new NotifyFaults(seed);
    // An idle kept-alive socket is closed after 4 s, before a receiver's usual 5 s keep-alive
    // timeout closes it under a request (an ECONNRESET and a needless retry).
    const agentOptions = { keepAlive: true, maxSockets: this.#concurrency, timeout: 4_000 };
    this.#http = new HttpAgent(agentOptions);
    this.#https = new HttpsAgent(agentOptions);
  }

  get settings(): { retries_ms: number[]; timeout_ms: number; concurrency: number } {
    return { retries_ms: [...this.#retries], timeout_ms: this.#timeoutMs, concurrency: this.#concurrency };
  }

  /** Every attempt so far, in the order they ended. */
  get records(): readonly DeliveryRecord[] {
    return this.#records;
  }

  /** Every event made, with its body as sent (made now: only its text is kept). */
  get events(): EventEntry[] {
    return this.#tracked.map((t) => ({
      ...t.entry,
      body: JSON.parse(t.event.text) as Record<string, unknown>,
    }));
  }

  /** Counts for GET /_sandbox/health. */
  stats(): { events: number; pending: number; in_flight: number } {
    let pending = 0;
    for (const t of this.#tracked) if (t.entry.state === 'pending') pending++;
    return { events: this.#tracked.length, pending, in_flight: this.#inFlight };
  }

  /** Queue an event made by a committed change; tried once the current answer has gone. */
  enqueue(event: NotifyEvent): void {
    if (this.#closed) return;
    const decision = this.faults.decide(event.event_type);
    const entry: Tracked['entry'] = {
      event_id: event.event_id,
      event_type: event.event_type,
      url: event.url,
      state: 'pending',
      copies: decision.copies,
      delivered: 0,
      attempts: 0,
    };
    const tracked: Tracked = { event, entry, open: decision.copies };
    this.#tracked.push(tracked);
    for (let copy = 1; copy <= decision.copies; copy++) {
      if (decision.drop) {
        this.#record(tracked, copy, 0, 'dropped', 0, { fault: true });
        this.#settle(tracked);
        continue;
      }
      this.#ready.push({
        tracked,
        copy,
        failFirst: decision.failFirst,
        latencyMs: decision.latencyMs,
        attempt: 1,
      });
    }
    this.#schedulePump();
  }

  /** POST /_sandbox/reset: forget every event, record and fault; cancel what is pending. */
  reset(): void {
    this.#generation++;
    this.#inFlight = 0;
    this.#ready.length = 0;
    this.#readyHead = 0;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const req of this.#requests) req.destroy();
    this.#requests.clear();
    this.#records.length = 0;
    this.#tracked.length = 0;
    this.faults.clear();
  }

  /** Until no attempt is due or in flight (retries scheduled later do not count), or `drainMs`. */
  async drain(): Promise<void> {
    if (this.#drainMs <= 0 || this.#closed || this.#quiet()) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, this.#drainMs);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.#idle.push(done);
    });
  }

  #quiet(): boolean {
    return this.#inFlight === 0 && this.#due() === 0 && this.#pumpScheduled === undefined;
  }

  #due(): number {
    return this.#ready.length - this.#readyHead;
  }

  #next(): Delivery {
    const d = this.#ready[this.#readyHead++]!;
    if (this.#readyHead === this.#ready.length) {
      this.#ready.length = 0;
      this.#readyHead = 0;
    } else if (this.#readyHead >= 1024 && this.#readyHead * 2 >= this.#ready.length) {
      this.#ready.splice(0, this.#readyHead);
      this.#readyHead = 0;
    }
    return d;
  }

  /** Stop: no new attempt, every pending one forgotten, every socket closed. */
  close(): void {
    this.#closed = true;
    this.reset();
    if (this.#pumpScheduled) clearImmediate(this.#pumpScheduled);
    this.#http.destroy();
    this.#https.destroy();
    for (const done of this.#idle.splice(0)) done();
  }

  #schedulePump(): void {
    if (this.#pumpScheduled || this.#closed) return;
    // After the current request's answer has been written: a delivery never goes before it.
    this.#pumpScheduled = setImmediate(() => {
      this.#pumpScheduled = undefined;
      this.#pump();
    });
  }

  #pump(): void {
    while (!this.#closed && this.#inFlight < this.#concurrency && this.#due() > 0) {
      const delivery = this.#next();
      this.#inFlight++;
      const generation = this.#generation;
      void this.#attempt(delivery).then((status) => {
        // An attempt of before a reset: reset() has already let go of its slot.
        if (generation !== this.#generation || this.#closed) return;
        this.#inFlight--;
        this.#after(delivery, status);
        this.#pump();
      });
    }
    if (this.#idle.length > 0 && this.#quiet()) for (const done of this.#idle.splice(0)) done();
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.#timers.delete(t);
        resolve();
      }, ms);
      this.#timers.add(t);
    });
  }

  /** One attempt: its outcome, recorded. */
  async #attempt(d: Delivery): Promise<AttemptStatus> {
    const generation = this.#generation;
    if (d.latencyMs > 0) await this.#wait(d.latencyMs);
    if (generation !== this.#generation || this.#closed) return 'error';
    const started = performance.now();
    if (d.attempt <= d.failFirst || this.faults.failsAttempt()) {
      this.#record(d.tracked, d.copy, d.attempt, 500, 0, { fault: true });
      return 500;
    }
    const { status, error } = await this.#post(d.tracked.event);
    if (generation !== this.#generation || this.#closed) return status;
    this.#record(d.tracked, d.copy, d.attempt, status, performance.now() - started, error ? { error } : {});
    return status;
  }

  #after(d: Delivery, status: AttemptStatus): void {
    const { tracked } = d;
    if (typeof status === 'number' && status >= 200 && status < 300) {
      tracked.entry.delivered++;
      this.#settle(tracked);
      return;
    }
    const delay = this.#retries[d.attempt - 1];
    if (delay === undefined) {
      this.#record(tracked, d.copy, d.attempt, 'dropped', 0, {});
      this.#settle(tracked);
      return;
    }
    d.attempt++;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      this.#ready.push(d);
      this.#pump();
    }, delay);
    this.#timers.add(t);
  }

  /** One delivery of the event ended (delivered or dropped). */
  #settle(tracked: Tracked): void {
    tracked.open--;
    if (tracked.open === 0) tracked.entry.state = tracked.entry.delivered > 0 ? 'delivered' : 'dropped';
  }

  #record(
    tracked: Tracked,
    copy: number,
    attempt: number,
    status: AttemptStatus,
    ms: number,
    extra: Pick<DeliveryRecord, 'fault' | 'error'>,
  ): void {
    const { event, entry } = tracked;
    if (status !== 'dropped') entry.attempts++;
    const record: DeliveryRecord = {
      event_id: event.event_id,
      event_type: event.event_type,
      url: event.url,
      copy,
      attempt,
      status,
      at: new Date(this.#now()).toISOString(),
      ms: Math.round(ms),
      ...extra,
      ...event.refs,
    };
    this.#records.push(record);
    this.#onDelivery?.(record);
  }

  /** POST the event's body; the HTTP status, or why there is none. */
  #post(event: NotifyEvent): Promise<{ status: AttemptStatus; error?: string }> {
    let url: URL;
    try {
      url = new URL(event.url);
    } catch {
      return Promise.resolve({ status: 'error', error: 'notify_url is not a URL' });
    }
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:')
      return Promise.resolve({ status: 'error', error: `notify_url is not http(s): ${url.protocol}` });
    const send = secure ? httpsRequest : httpRequest;
    const body = Buffer.from(event.text, 'utf8');
    return new Promise((resolve) => {
      let done = false;
      const finish = (status: AttemptStatus, error?: string) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.#timers.delete(timer);
        resolve(error ? { status, error } : { status });
      };
      const req = send(url, {
        method: 'POST',
        agent: secure ? this.#https : this.#http,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'user-agent': 'payops-sandbox-notify',
        },
      });
      this.#requests.add(req);
      const timer = setTimeout(() => {
        finish('timeout');
        req.destroy();
      }, this.#timeoutMs);
      this.#timers.add(timer);
      req.on('response', (res) => {
        finish(res.statusCode ?? 'error', res.statusCode ? undefined : 'no status');
        // The answer's body means nothing; read it so the socket can be kept alive.
        res.resume();
        res.on('error', () => {});
      });
      req.on('error', (err: NodeJS.ErrnoException) => finish('error', err.code ?? 'request failed'));
      req.on('close', () => {
        this.#requests.delete(req);
        finish('error', 'closed without an answer');
      });
      req.end(body);
    });
  }
}
