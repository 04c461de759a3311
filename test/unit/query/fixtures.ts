import type { OrderRecord, RefundRecord } from '../../../src/gateway/types.js';

/** An order with every field of the spec's orders_list table filled. */
export function order(overrides: Partial<OrderRecord> = {}): OrderRecord {
  return {
    order_no: 'ORD-1',
    transaction_id: 'T100',
    reference_no: 'R-9',
    amount: '1234.50',
    currency: 'USD',
    payment_status: '4100',
    query_result: '1',
    is3ds: '1',
    transaction_date: '20261121090507',
    website: 'shop.example',
    shopper_email: 'ann@example.com',
    shopper_phone: '+44 20 7946 0000',
    delivery_information: {
      delivery_address: '1 High St',
      delivery_city: 'London',
      delivery_country: 'GB',
      delivery_firstname: 'Ann',
      delivery_lastname: 'Lee',
      delivery_postal_code: 'N1 9GU',
      delivery_state: '',
    },
    antifraud_provider: 'screen-co',
    fraud_check_result: [
      { check_items: 'velocity', status: 'ACCEPT' },
      { check_items: 'geo_ip', status: 'REJECT' },
    ],
    subscription_result: {
      contract_name: 'Monthly box',
      recurring_deduction_period: 'month',
      recurring_deduction_time: '2026-12-21',
      recurring_id: 'SUB-7',
      recurring_status: '1',
    },
    ...overrides,
  };
}

export function refund(seq: number, overrides: Partial<RefundRecord> = {}): RefundRecord {
  const nn = String(seq).padStart(2, '0');
  return {
    transaction_id: 'T100',
    order_no: 'ORD-1',
    amount: '1234.50',
    currency: 'USD',
    refund_status: '1',
    payment_status: '4100',
    refund_amount: '10.00',
    refund_reference: `RR-${nn}`,
    refund_reason: 'damaged',
    refund_reference_id: `T100-${nn}`,
    refund_date: '20261121100000',
    refund_processing_date: '',
    ...overrides,
  };
}
