// listen's line per event: whole into a pipe; fitted to a terminal's width without splitting a value.
import { describe, expect, it } from 'vitest';
import { type EventFacts, eventLine, localTime } from '../../../src/events/view.js';

const facts: EventFacts = {
  receivedAt: '2026-12-06T01:02:03.000Z',
  eventId: 'EV08D4D85AE15E33D000F501CD',
  eventType: 'payment.captured',
  createdAt: '2026-12-06T01:02:00+0000',
  subject: 'PO-20261206-022759-f15917',
  amount: '25.00',
  currency: 'USD',
  status: '3000 captured',
};
const day = localTime(facts.receivedAt);
const clock = day.slice(11);

describe('eventLine', () => {
  it('without a width (a pipe): every field, the event id last', () => {
    expect(eventLine(facts)).toBe(
      `${day}  payment.captured   PO-20261206-022759-f15917  USD 25.00  3000 captured  EV08D4D85AE15E33D000F501CD\n`,
    );
  });

  it('narrower: the event id goes first, then the date, then the padding', () => {
    expect(eventLine(facts, 200)).toBe(eventLine(facts));
    expect(eventLine(facts, 95)).toBe(
      `${day}  payment.captured   PO-20261206-022759-f15917  USD 25.00  3000 captured\n`,
    );
    expect(eventLine(facts, 80)).toBe(
      `${clock}  payment.captured   PO-20261206-022759-f15917  USD 25.00  3000 captured\n`,
    );
    expect(eventLine(facts, 79)).toBe(
      `${clock}  payment.captured  PO-20261206-022759-f15917  USD 25.00  3000 captured\n`,
    );
  });

  it('narrower still: breaks between values, never inside one', () => {
    const out = eventLine(facts, 40);
    for (const l of out.trimEnd().split('\n')) expect(l.length).toBeLessThanOrEqual(40);
    for (const v of ['PO-20261206-022759-f15917', 'USD 25.00', '3000 captured', 'payment.captured'])
      expect(out.split('\n').some((l) => l.includes(v))).toBe(true);
  });
});
