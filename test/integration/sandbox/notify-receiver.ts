// A notification receiver for tests (node:http on loopback): keeps every event it is sent, answers
// as the test says (a status, or hold the request unanswered), and lets a test wait for what it
// observes — an event arriving — instead of sleeping.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  /** 1 for the first request this receiver got. */
  n: number;
  path: string;
  contentType: string;
  body: Record<string, unknown>;
  text: string;
  /** The sender closed the connection before this receiver answered. */
  aborted: boolean;
}

/**
 * What to answer a request: an HTTP status, `hold` (never answer; the socket stays open), or a
 * status sent `afterMs` later (a slow receiver).
 */
export type Answer = number | 'hold' | { status: number; afterMs: number };

export class Receiver {
  readonly received: Received[] = [];
  /** Requests being held unanswered. */
  readonly held: ServerResponse[] = [];
  answer: (r: Received) => Answer = () => 200;
  #waiters: Array<() => void> = [];
  #sockets = new Set<Socket>();
  readonly #server = createServer((req, res) => this.#handle(req, res));
  url = '';

  static async start(answer?: (r: Received) => Answer): Promise<Receiver> {
    const r = new Receiver();
    if (answer) r.answer = answer;
    r.#server.on('connection', (s) => {
      r.#sockets.add(s);
      s.on('close', () => r.#sockets.delete(s));
    });
    await new Promise<void>((resolve) => r.#server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.#server.address() as AddressInfo).port}/hook`;
    return r;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const got: Received = {
        n: this.received.length + 1,
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: JSON.parse(text) as Record<string, unknown>,
        text,
        aborted: false,
      };
      res.on('close', () => {
        if (!res.writableFinished) got.aborted = true;
      });
      this.received.push(got);
      const answer = this.answer(got);
      if (answer === 'hold') this.held.push(res);
      else if (typeof answer === 'object') {
        setTimeout(() => {
          if (res.destroyed) return;
          res.statusCode = answer.status;
          res.end('{}');
        }, answer.afterMs);
      } else {
        res.statusCode = answer;
        res.end('{}');
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** Events of one type (in arrival order). */
  of(type: string): Array<Record<string, unknown>> {
    return this.received.filter((r) => r.body.event_type === type).map((r) => r.body);
  }

  /** Until `check` holds over what has arrived (checked at each arrival); a safety net of 30 s. */
  async until(check: (received: Received[]) => boolean, what = 'the expected events'): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!check(this.received)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver: ${what} did not arrive (got ${this.received.length})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Until `n` requests have arrived in all. */
  count(n: number): Promise<void> {
    return this.until((r) => r.length >= n, `${n} requests`);
  }

  async close(): Promise<void> {
    const done = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    await done;
  }
}
