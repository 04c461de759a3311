import { describe, expect, it } from 'vitest';
import { verifyEvent } from '../../../src/events/verify.js';
import { createSigner } from '../../../src/gateway/signer.js';

const expected = { merchantId: '800001', accountId: '800001001', signKey: 'sandbox-sign-key' };

function event(fields: Record<string, unknown> = {}, key = 'sandbox-sign-key'): Record<string, unknown> {
  const body: Record<string, unknown> = {
    event_id: 'EV1',
    event_type: 'payment.approved',
    created_at: '2026-12-06T10:00:00+0000',
    merchant_id: '800001',
    account_id: '800001001',
    data: { order_no: 'O1', amount: '12.50', currency: 'USD', payment_status: '2000', refund_amount: 12.5 },
    ...fields,
  };
  body.encryption_data = createSigner(key).sign(body);
  return body;
}

describe('verifyEvent', () => {
  it('accepts an event signed with the key, for this merchant and account (hex in any case)', () => {
    const body = event();
    expect(verifyEvent(JSON.stringify(body), expected)).toMatchObject({
      ok: true,
      event: { event_id: 'EV1' },
    });
    const upper = { ...body, encryption_data: String(body.encryption_data).toUpperCase() };
    expect(verifyEvent(JSON.stringify(upper), expected).ok).toBe(true);
  });

  it.each([
    ['not JSON', '{"event_id":', 400],
    ['an array', '[]', 400],
    ['no signature', JSON.stringify({ ...event(), encryption_data: undefined }), 401],
    ['an empty signature', JSON.stringify({ ...event(), encryption_data: '' }), 401],
    ['another key', JSON.stringify(event({}, 'other')), 401],
    ['a changed amount', JSON.stringify(event()).replace('12.50', '99.00'), 401],
    ['a changed event_id', JSON.stringify(event()).replace('"EV1"', '"EV2"'), 401],
    ['another merchant', JSON.stringify(event({ merchant_id: '800002' })), 403],
    ['another account', JSON.stringify(event({ account_id: '800001002' })), 403],
    ['no event_id', JSON.stringify(event({ event_id: undefined })), 400],
    ['an event_id with a space', JSON.stringify(event({ event_id: 'EV 1' })), 400],
    ['no data', JSON.stringify(event({ data: undefined })), 400],
  ])('refuses %s', (_what, body, status) => {
    const v = verifyEvent(body, expected);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.status).toBe(status);
  });
});
