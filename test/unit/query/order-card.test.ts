import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  orderCardSections,
  orderCardTitle,
  refundTotals,
  renderOrderCard,
} from '../../../src/query/order-card.js';
import { order, refund } from './fixtures.js';

const saved = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Europe/Paris';
});
afterAll(() => {
  if (saved === undefined) delete process.env.TZ;
  else process.env.TZ = saved;
});

const section = (sections: ReturnType<typeof orderCardSections>, heading: string | undefined) =>
  Object.fromEntries(sections.find((s) => s.heading === heading)?.fields ?? []);

describe('order card', () => {
  it('titles the card with the order and its labelled status (profile override first)', () => {
    expect(orderCardTitle(order())).toBe('Order ORD-1 · 4100 partially refunded');
    expect(orderCardTitle(order(), { '4100': 'part-refunded' })).toBe('Order ORD-1 · 4100 part-refunded');
  });

  it('shows status, money, local and ISO date, ids', () => {
    const main = section(orderCardSections(order()), undefined);
    expect(main).toMatchObject({
      status: '4100 partially refunded',
      amount: 'USD 1,234.50',
      // 09:05:07 UTC is 10:05:07 in Paris in November.
      date: '2026-11-21 10:05:07 +01:00  (2026-11-21T09:05:07Z)',
      transaction_id: 'T100',
      reference_no: 'R-9',
      website: 'shop.example',
    });
    expect(main).not.toHaveProperty('query_result');
  });

  it('shows 3-D Secure and each fraud check with ACCEPT/REJECT', () => {
    const sec = orderCardSections(order()).find((s) => s.heading === 'Security')!;
    expect(sec.fields).toEqual([
      ['3-D Secure', 'yes'],
      ['fraud screening', 'screen-co'],
      ['  velocity', 'ACCEPT'],
      ['  geo_ip', 'REJECT'],
    ]);
    const none = orderCardSections(order({ is3ds: '0', fraud_check_result: [] })).find(
      (s) => s.heading === 'Security',
    )!;
    expect(none.fields).toContainEqual(['3-D Secure', 'no']);
    expect(none.fields).toContainEqual(['fraud checks', 'none reported']);
  });

  it('shows shopper, delivery and subscription, and leaves out empty sections', () => {
    const s = orderCardSections(order());
    expect(section(s, 'Shopper')).toEqual({ email: 'ann@example.com', phone: '+44 20 7946 0000' });
    expect(section(s, 'Delivery')).toEqual({
      name: 'Ann Lee',
      address: '1 High St',
      city: 'N1 9GU London',
      country: 'GB',
    });
    expect(section(s, 'Subscription')).toMatchObject({
      contract: 'Monthly box',
      recurring_id: 'SUB-7',
      status: 'ok',
    });

    const bare = orderCardSections(
      order({
        shopper_email: '',
        shopper_phone: '',
        delivery_information: {},
        subscription_result: { recurring_status: '' },
      }),
    );
    expect(bare.map((x) => x.heading)).toEqual([undefined, 'Security']);
  });

  it('lists refunds only when asked for, "none" when there are none', () => {
    expect(orderCardSections(order()).some((s) => s.heading?.startsWith('Refunds'))).toBe(false);
    const none = orderCardSections(order(), { refunds: [] }).find((s) => s.heading === 'Refunds: none')!;
    expect(none.fields).toEqual([]);
    const two = orderCardSections(order(), { refunds: [refund(1), refund(2, { refund_amount: '5.5' })] });
    const rows = two.find((s) => s.heading === 'Refunds (2)')!.fields;
    // Issue 15: the refunds are followed by the refunded total and what is left to refund.
    expect(rows.map((r) => r[0])).toEqual(['T100-01', 'T100-02', 'refunded', 'refundable']);
    expect(rows[0]![1]).toBe('USD 10.00  ok  2026-11-21 11:00:00 +01:00  “damaged”');
    expect(rows[1]![1]).toContain('USD 5.50');
    const settled = orderCardSections(order(), {
      refunds: [
        refund(1, { refund_processing_date: '20261122080000' }),
        refund(2, { refund_processing_date: '20261121100000' }),
      ],
    }).find((s) => s.heading === 'Refunds (2)')!.fields;
    expect(settled[0]![1]).toMatch(/“damaged” {2}processed 2026-11-22 09:00:00 \+01:00$/);
    expect(settled[1]![1]).not.toContain('processed');
  });

  it('totals the refunds that succeeded and shows the refundable rest, in minor units', () => {
    const totals = (refunds: Parameters<typeof refundTotals>[1], o = order()) =>
      Object.fromEntries(refundTotals(o, refunds));
    // 0.10 + 0.20 is exactly 0.30 here; a failed refund (status 0) is not money returned.
    expect(
      totals([
        refund(1, { refund_amount: '0.10' }),
        refund(2, { refund_amount: '0.20' }),
        refund(3, { refund_amount: '100.00', refund_status: '0' }),
      ]),
    ).toEqual({ refunded: 'USD 0.30', refundable: 'USD 1,234.20' });
    expect(totals([refund(1, { refund_amount: '1234.50' })])).toEqual({
      refunded: 'USD 1,234.50',
      refundable: 'USD 0.00',
    });
    expect(
      totals(
        [refund(1, { refund_amount: '7', currency: 'JPY' })],
        order({ amount: '1000', currency: 'JPY' }),
      ),
    ).toEqual({
      refunded: 'JPY 7',
      refundable: 'JPY 993',
    });
    // Never a guessed total: an amount that does not parse, or another currency, leaves them out.
    expect(totals([refund(1, { refund_amount: '1,00' })])).toEqual({});
    expect(totals([refund(1, { currency: 'EUR' })])).toEqual({});
    expect(totals([refund(1)], order({ amount: 'n/a' }))).toEqual({});
  });

  it('shows a malformed gateway value as it came rather than guessing', () => {
    const main = section(
      orderCardSections(order({ amount: '12,50', transaction_date: 'yesterday' })),
      undefined,
    );
    expect(main.amount).toBe('USD 12,50');
    expect(main.date).toBe('yesterday');
  });
});

describe('renderOrderCard', () => {
  it('renders the whole card as aligned text without colour codes unless asked', () => {
    const text = renderOrderCard(order(), { refunds: [refund(1)], color: false });
    expect(text).not.toMatch(/\u001b\[/);
    const lines = text.split('\n');
    expect(lines[0]).toBe('Order ORD-1 · 4100 partially refunded');
    // Labels aligned on the widest ("fraud screening", 15) plus two spaces.
    expect(text).toContain('\n  amount           USD 1,234.50\n');
    expect(text).toContain('\n\nSecurity\n  3-D Secure       yes\n');
    expect(text).toContain('\n    geo_ip         REJECT\n');
    expect(text).toContain('\nRefunds (1)\n  T100-01          USD 10.00  ok');
    expect(renderOrderCard(order(), { color: true })).toMatch(/\u001b\[1m/);
  });

  it('never lets gateway text drive the terminal', () => {
    const text = renderOrderCard(order({ shopper_email: 'x\u001b]0;pwned\u0007@example.com' }), {
      color: false,
    });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('x\\x1b]0;pwned\\x07@example.com');
  });
});
