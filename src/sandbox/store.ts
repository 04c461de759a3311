// The sandbox's state: orders indexed by transaction_id and by order_no (O(1) each), refunds by
// transaction_id, the ledger, and payouts by request_id. Every mutation is also handed to a
// journal sink as one plain record, so that `--data` can replay it (see journal.ts).

/** Delivery and shopper details kept from a payment request, echoed by the order query. */
export interface OrderDetails {
  website?: string;
  shopper_email?: string;
  shopper_phone?: string;
  delivery?: Record<string, string>;
  is3ds?: boolean;
  /** Masked card (first 6, last 4); the full number is never kept. */
  card?: string;
  notify_url?: string;
  reference_no?: string;
  risk?: 'ACCEPT' | 'REVIEW' | 'REJECT';
  subscription?: { contract_name: string; recurring_id: string; period: string; time: string };
  payment_method?: string;
}

export interface Order {
  readonly transaction_id: string;
  readonly order_no: string;
  readonly account_id: string;
  readonly currency: string;
  /** Integer minor units of the currency. */
  readonly amount: bigint;
  /** payment_status code (design.md §1.3). */
  status: string;
  /** Sum of refunds, minor units. */
  refunded: bigint;
  /** Refunds so far; the next refund_reference_id is `<transaction_id>-<refunds+1>`. */
  refunds: number;
  /** transaction_date, epoch ms. */
  readonly created: number;
  readonly details?: OrderDetails;
}

export interface Refund {
  readonly transaction_id: string;
  readonly refund_amount: bigint;
  readonly refund_reason: string;
  readonly refund_reference: string;
  readonly refund_reference_id: string;
  /** epoch ms */
  readonly date: number;
}

export type LedgerKind = 'capture' | 'cancel' | 'review' | 'refund' | 'payout';

export interface LedgerEntry {
  kind: LedgerKind;
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  /** ISO 8601 UTC */
  at: string;
  request_id: string;
  refund_amount?: string;
  refund_reference_id?: string;
  payment_amount?: string;
  payment_currency?: string;
  /** review only: the flag applied */
  review_flag?: string;
}

export interface StoredPayout {
  /** Canonical request content, to tell a replay from a reuse with other content (E4002). */
  readonly content: string;
  readonly response: Record<string, unknown>;
}

/** One journal record per mutation; replaying them in order rebuilds the store. */
export type JournalRecord =
  | { e: 'order'; o: SerializedOrder }
  | { e: 'status'; id: string; s: string }
  | { e: 'refund'; r: SerializedRefund; s: string }
  | { e: 'ledger'; l: LedgerEntry }
  | { e: 'payout'; id: string; c: string; r: Record<string, unknown> }
  | { e: 'reset' };

export type SerializedOrder = Omit<Order, 'amount' | 'refunded' | 'status' | 'refunds'> & {
  amount: string;
  status: string;
  /** Generated transaction id sequence, so a replayed store keeps numbering where it stopped. */
  seq?: number;
};
export type SerializedRefund = Omit<Refund, 'refund_amount'> & { refund_amount: string };

export class Store {
  readonly byTransactionId = new Map<string, Order>();
  readonly byOrderNo = new Map<string, Order>();
  /** Creation order, for "the newest 100" of a query without a list. */
  readonly orders: Order[] = [];
  readonly refundsByTransactionId = new Map<string, Refund[]>();
  /** Every refund in creation order, for "the newest 100" of a refund search without a list. */
  readonly refunds: Refund[] = [];
  readonly ledger: LedgerEntry[] = [];
  readonly payouts = new Map<string, StoredPayout>();
  /** Last generated transaction id number. */
  seq = 0;
  /** Where mutation records go (the journal, when --data is set). */
  sink: ((record: JournalRecord) => void) | undefined;

  nextTransactionId(): { id: string; seq: number } {
    for (;;) {
      this.seq++;
      const id = `T${String(1_000_000_000 + this.seq)}`;
      if (!this.byTransactionId.has(id)) return { id, seq: this.seq };
    }
  }

  addOrder(order: Order, seq?: number): void {
    this.byTransactionId.set(order.transaction_id, order);
    this.byOrderNo.set(order.order_no, order);
    this.orders.push(order);
    if (seq !== undefined && seq > this.seq) this.seq = seq;
    if (this.sink) {
      const { amount, refunded: _r, refunds: _n, ...rest } = order;
      this.sink({ e: 'order', o: { ...rest, amount: amount.toString(), ...(seq ? { seq } : {}) } });
    }
  }

  setStatus(order: Order, status: string): void {
    order.status = status;
    this.sink?.({ e: 'status', id: order.transaction_id, s: status });
  }

  addRefund(order: Order, refund: Refund, status: string): void {
    order.refunded += refund.refund_amount;
    order.refunds++;
    order.status = status;
    let list = this.refundsByTransactionId.get(order.transaction_id);
    if (!list) {
      list = [];
      this.refundsByTransactionId.set(order.transaction_id, list);
    }
    list.push(refund);
    this.refunds.push(refund);
    this.sink?.({ e: 'refund', r: { ...refund, refund_amount: refund.refund_amount.toString() }, s: status });
  }

  addLedger(entry: LedgerEntry): void {
    this.ledger.push(entry);
    this.sink?.({ e: 'ledger', l: entry });
  }

  /** Record a payout, or replace its stored answer (a PENDING payout that completed). */
  addPayout(requestId: string, payout: StoredPayout): void {
    this.payouts.set(requestId, payout);
    this.sink?.({ e: 'payout', id: requestId, c: payout.content, r: payout.response });
  }

  reset(): void {
    this.byTransactionId.clear();
    this.byOrderNo.clear();
    this.orders.length = 0;
    this.refundsByTransactionId.clear();
    this.refunds.length = 0;
    this.ledger.length = 0;
    this.payouts.clear();
    this.seq = 0;
    this.sink?.({ e: 'reset' });
  }

  /** Apply one journal record (replay); the sink must be unset meanwhile. */
  replay(record: JournalRecord): void {
    switch (record.e) {
      case 'order': {
        const { amount, status, seq, ...rest } = record.o;
        this.addOrder({ ...rest, amount: BigInt(amount), status, refunded: 0n, refunds: 0 }, seq);
        return;
      }
      case 'status': {
        const order = this.byTransactionId.get(record.id);
        if (order) order.status = record.s;
        return;
      }
      case 'refund': {
        const order = this.byTransactionId.get(record.r.transaction_id);
        if (order)
          this.addRefund(order, { ...record.r, refund_amount: BigInt(record.r.refund_amount) }, record.s);
        return;
      }
      case 'ledger':
        this.ledger.push(record.l);
        return;
      case 'payout':
        this.payouts.set(record.id, { content: record.c, response: record.r });
        return;
      case 'reset':
        this.reset();
        return;
    }
  }
}
