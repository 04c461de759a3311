import { describe, expect, it } from 'vitest';
import { JSON_TYPE, XML_TYPE } from '../../../src/sandbox/context.js';
import type { DeliveryRecord } from '../../../src/sandbox/notify-queue.js';
import { deliveryLine, requestLine } from '../../../src/sandbox/request-log.js';

const at = new Date(2026, 10, 24, 9, 5, 7);
const json = (status: number, value: unknown) => ({
  status,
  contentType: JSON_TYPE,
  body: JSON.stringify(value),
});

describe('sandbox request log line', () => {
  it('says time, method, path, result and the orders of a batch answer', () => {
    const reply = json(200, {
      return_status: '1',
      refund_orders: [{ refund_status: '1' }, { refund_status: '1' }, { refund_status: '0' }],
    });
    expect(requestLine({ at, method: 'POST', path: '/v1/refund', reply, ms: 3.4 })).toBe(
      '09:05:07  POST /v1/refund  200 ok · 3 orders (2 ok, 1 failed) · 3 ms',
    );
    const query = json(200, { return_status: '1', orders_list: [{}] });
    expect(requestLine({ at, method: 'POST', path: '/v1/retrievalTrans', reply: query, ms: 1 })).toBe(
      '09:05:07  POST /v1/retrievalTrans  200 ok · 1 order · 1 ms',
    );
  });

  it('counts the records of a refund search as refunds', () => {
    const reply = json(200, {
      return_status: '1',
      refund_orders: [{ refund_status: '1' }, { refund_status: '1' }],
    });
    expect(requestLine({ at, method: 'POST', path: '/v1/retrievalRefund', reply, ms: 2 })).toBe(
      '09:05:07  POST /v1/retrievalRefund  200 ok · 2 refunds · 2 ms',
    );
  });

  it('names a refusal by its code, never by its message (which may quote what was sent)', () => {
    const reply = json(400, { code: 'E1003', message: 'card_number 4242424242424242 is not valid' });
    const line = requestLine({ at, method: 'POST', path: '/v1/apm', reply, ms: 2 });
    expect(line).toBe('09:05:07  POST /v1/apm  400 E1003 · 2 ms');
    const refused = json(200, { return_status: '0', refund_orders: [] });
    expect(requestLine({ at, method: 'POST', path: '/v1/refund', reply: refused, ms: 0 })).toBe(
      '09:05:07  POST /v1/refund  200 refused · 0 orders · 0 ms',
    );
  });

  it('shows an XML answer by its status, and a connection closed unanswered as such', () => {
    const xml = { status: 200, contentType: XML_TYPE, body: '<respon><order_no>ORD-1</order_no></respon>' };
    expect(requestLine({ at, method: 'POST', path: '/v1/authorise', reply: xml, ms: 5 })).toBe(
      '09:05:07  POST /v1/authorise  200 · 5 ms',
    );
    expect(requestLine({ at, method: 'POST', path: '/v1/refund', ms: 30000 })).toBe(
      '09:05:07  POST /v1/refund  closed without an answer · 30000 ms',
    );
  });

  it('says how a card payment ended (its XML answer): approved or declined, with the code', () => {
    const xml = (body: string) => ({ status: 200, contentType: XML_TYPE, body: `<respon>${body}</respon>` });
    const declined = xml(
      '<order_status>0</order_status><result_info>E1005:token_id tok_x is not a stored token</result_info>',
    );
    expect(requestLine({ at, method: 'POST', path: '/v1/authorise', reply: declined, ms: 4 })).toBe(
      '09:05:07  POST /v1/authorise  200 declined E1005 · 4 ms',
    );
    const approved = xml('<order_status>1</order_status><result_info>0000:Approved</result_info>');
    expect(requestLine({ at, method: 'POST', path: '/v1/authorise', reply: approved, ms: 4 })).toBe(
      '09:05:07  POST /v1/authorise  200 approved · 4 ms',
    );
  });
});

describe('sandbox delivery log line', () => {
  const base: DeliveryRecord = {
    event_id: 'EV0123456789ABCDEF01234567',
    event_type: 'payment.captured',
    url: 'https://shop.example:8443/hooks/payops?token=s3cret',
    copy: 1,
    attempt: 1,
    status: 200,
    at: '2026-11-24T09:05:07.000Z',
    ms: 3,
    order_no: 'ORD-1',
    transaction_id: 'T1000000007',
  };
  it('says time, event, order, the receiver by its origin only, and the outcome', () => {
    expect(deliveryLine(base, at)).toBe(
      '09:05:07  notify payment.captured T1000000007 → https://shop.example:8443  200 · 3 ms',
    );
    expect(deliveryLine(base, at)).not.toContain('s3cret');
    expect(deliveryLine({ ...base, status: 'error', error: 'ECONNREFUSED', attempt: 2, ms: 1 }, at)).toBe(
      '09:05:07  notify payment.captured T1000000007 → https://shop.example:8443  error ECONNREFUSED · attempt 2 · 1 ms',
    );
    expect(deliveryLine({ ...base, status: 'dropped', attempt: 6 }, at)).toMatch(
      / {2}dropped after 6 attempts$/,
    );
    expect(deliveryLine({ ...base, status: 500, fault: true, copy: 2 }, at)).toBe(
      '09:05:07  notify payment.captured T1000000007 (copy 2) → https://shop.example:8443  500 (fault) · 3 ms',
    );
    const { transaction_id: _t, order_no: _o, ...payout } = base;
    expect(
      deliveryLine(
        {
          ...payout,
          event_type: 'payout.completed',
          request_id: 'R-1',
          transaction_id: 'PO1000000001',
          url: 'nope',
        },
        at,
      ),
    ).toBe('09:05:07  notify payout.completed PO1000000001 → an invalid URL  200 · 3 ms');
  });
});
