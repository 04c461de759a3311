// THE bulk operations table: one entry per operation with everything payops knows about it — help
// text, input columns and the single-order flags they give, the wire element (from the gateway's
// batch rules), result columns, the amount that moves, the words of plans and summaries, and how a
// chunk whose answer was lost is reconciled. Every bulk module reads its rules from here.
// Data only and cheap to load: the CLI shell (src/commands/bulk.ts) imports it for the help text,
// so it imports nothing but types and the gateway's small data files.
import { BATCH_RULES, type BatchRules, type ElementCondition } from '../gateway/batch-rules.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { PaymentStatus } from '../gateway/status.js';

/** Commander's key of a single-order flag (`--refund-amount` → `refundAmount`). */
export type OrderFlagKey =
  | 'transactionId'
  | 'orderNo'
  | 'currency'
  | 'amount'
  | 'refundAmount'
  | 'refundReason'
  | 'reviewFlag';

/** The flag that gives one input column when a single order is given by flags. */
export interface OrderFlag {
  column: string;
  key: OrderFlagKey;
  /** `--refund-amount` */
  option: string;
  /** Placeholder in `--refund-amount <amount>`. */
  arg: string;
  help: string;
}

/** payment_status values that mean the operation took effect, for elements matching `when`. */
export interface DoneRule {
  when?: ElementCondition;
  states: readonly PaymentStatus[];
}

/**
 * How rows whose request may have reached the gateway, but whose answer was lost, are settled: by
 * the refund records found since the request (refund search), or by the order's payment_status now
 * (query; the first `done` rule matching the element applies). `by` names the endpoint, whose limit
 * bounds the ids per request.
 */
export type ReconcileRule = { by: 'refundSearch' } | { by: 'query'; done: readonly DoneRule[] };

export interface OperationSpec extends BatchRules {
  op: BatchOperation;
  /** One line for `payops --help`. */
  description: string;
  /** The example file in samples/ named by the help text. */
  sample: string;
  /** Input columns: the wire element's fields; `optional` ones may be absent (sent as ''). */
  columns: { required: readonly string[]; optional: readonly string[] };
  /** The flags of a single order, in column order (one per column). */
  flags: readonly OrderFlag[];
  /** The gateway's result fields that become result columns, in column order (after the input's). */
  resultColumns: readonly string[];
  /** What a terminal table shows (CSV and JSON carry every column): input and result columns. */
  table: { input: readonly string[]; result: readonly string[] };
  /** The row's minor units that the operation moves: the refund amount, or the order amount. */
  moves: 'refundMinor' | 'amountMinor';
  /**
   * Element fields that tell apart several rows of one order in one file (partial refunds, whose
   * sum may not pass the order amount). Empty: each order at most once per file.
   */
  distinctBy: readonly string[];
  words: {
    /** `plan: refund 3 orders …`, `Refund 3 orders (…)?` */
    verb: string;
    /** `the refunds in the file total …` */
    plural: string;
    /** `  to refund: USD 30.00` in the plan. */
    moneyLabel: string;
    /** `the file refunds USD 30.00` / `the file moves USD 30.00` */
    moneyVerb: string;
    /** `not refunded: …` in reconciliation details. */
    done: string;
  };
  reconcile: ReconcileRule;
  /**
   * A request applied twice is two effects (a refund sent twice is two refunds), where the
   * gateway's state machine refuses a second capture, cancel or review of an order. Such a run can
   * be checked afterwards (`runs verify`: a lost request the gateway applied later than the settle
   * time shows as a double), and its summary says so when rows were sent again.
   */
  verifiable: boolean;
  /**
   * Why `--no-check` is refused, when the check before a run cannot be left out; absent: the check
   * may be left out (the gateway refuses a second application itself).
   */
  checkRequired?: string;
  /** Each row approves (review_flag 1) or rejects (0): the plan counts and totals each side. */
  approvesOrRejects: boolean;
}

const COLUMN_FLAGS: Readonly<Record<string, Omit<OrderFlag, 'column' | 'option'>>> = {
  transaction_id: { key: 'transactionId', arg: 'id', help: 'one order: its transaction_id' },
  order_no: { key: 'orderNo', arg: 'no', help: 'one order: its order_no' },
  currency: { key: 'currency', arg: 'code', help: 'one order: ISO 4217 currency code' },
  amount: { key: 'amount', arg: 'amount', help: 'one order: the order amount, e.g. 10.50' },
  refund_amount: { key: 'refundAmount', arg: 'amount', help: 'one order: the amount to refund (≤ amount)' },
  refund_reason: {
    key: 'refundReason',
    arg: 'text',
    help: 'one order: the refund reason (required); with --file: the reason of rows that have none',
  },
  review_flag: { key: 'reviewFlag', arg: '0|1', help: 'one order: 1 approves, 0 rejects' },
};

/** What an entry states itself; the rest comes from the gateway's rules for the operation. */
type Entry = Omit<OperationSpec, keyof BatchRules | 'op' | 'columns' | 'flags'> & {
  /** Columns a file may leave out. */
  optional?: readonly string[];
};

function operation(op: BatchOperation, { optional = [], ...entry }: Entry): OperationSpec {
  const wire = BATCH_RULES[op];
  return {
    op,
    ...wire,
    ...entry,
    columns: { required: wire.elementFields.filter((f) => !optional.includes(f)), optional },
    flags: wire.elementFields.map((column) => ({
      column,
      option: `--${column.replace(/_/g, '-')}`,
      ...COLUMN_FLAGS[column]!,
    })),
  };
}

const S = PaymentStatus;
const ORDER_TABLE = ['transaction_id', 'order_no', 'currency', 'amount'];
/** Captured, and anything a capture may lead to. */
const CAPTURED_OR_LATER = [S.Captured, S.PartiallyRefunded, S.FullyRefunded];

export const OPERATIONS: Readonly<Record<BatchOperation, OperationSpec>> = {
  capture: operation('capture', {
    description: 'capture authorised orders from a CSV file, a workbook or one order by flags',
    sample: 'samples/capture.csv',
    resultColumns: ['capture_status', 'error_message'],
    table: { input: ORDER_TABLE, result: [] },
    moves: 'amountMinor',
    distinctBy: [],
    words: {
      verb: 'capture',
      plural: 'captures',
      moneyLabel: 'to capture',
      moneyVerb: 'moves',
      done: 'captured',
    },
    verifiable: false,
    approvesOrRejects: false,
    reconcile: { by: 'query', done: [{ states: CAPTURED_OR_LATER }] },
  }),
  cancel: operation('cancel', {
    description: 'cancel authorised or held orders from a CSV file, a workbook or one order by flags',
    sample: 'samples/cancel.csv',
    resultColumns: ['cancel_status', 'error_message'],
    table: { input: ORDER_TABLE, result: [] },
    moves: 'amountMinor',
    distinctBy: [],
    words: {
      verb: 'cancel',
      plural: 'cancels',
      moneyLabel: 'order amounts',
      moneyVerb: 'moves',
      done: 'cancelled',
    },
    verifiable: false,
    approvesOrRejects: false,
    reconcile: { by: 'query', done: [{ states: [S.Cancelled] }] },
  }),
  review: operation('review', {
    description: 'approve (1) or reject (0) orders held for review, from a CSV file, a workbook or by flags',
    sample: 'samples/review.csv',
    resultColumns: ['review_status', 'error_message'],
    table: { input: [...ORDER_TABLE, 'review_flag'], result: [] },
    moves: 'amountMinor',
    distinctBy: [],
    words: {
      verb: 'review',
      plural: 'reviews',
      moneyLabel: 'order amounts',
      moneyVerb: 'moves',
      done: 'reviewed',
    },
    verifiable: false,
    approvesOrRejects: true,
    reconcile: {
      by: 'query',
      // An approved order may have been captured (and refunded) since; a rejected one is cancelled.
      done: [
        { when: { review_flag: '1' }, states: [S.Authorised, ...CAPTURED_OR_LATER] },
        { states: [S.Cancelled] },
      ],
    },
  }),
  refund: operation('refund', {
    description:
      'refund captured orders, fully or partially, from a CSV file, a workbook or one order by flags',
    sample: 'samples/refunds.csv',
    resultColumns: ['refund_status', 'refund_message', 'refund_reference', 'refund_reference_id'],
    table: {
      // The order's amount too: a refused row's reason is often about it (E2002, "the order is 424 JPY").
      input: ['transaction_id', 'order_no', 'currency', 'amount', 'refund_amount'],
      result: ['refund_reference_id'],
    },
    moves: 'refundMinor',
    distinctBy: ['refund_amount', 'refund_reason'],
    words: {
      verb: 'refund',
      plural: 'refunds',
      moneyLabel: 'to refund',
      moneyVerb: 'refunds',
      done: 'refunded',
    },
    verifiable: true,
    checkRequired:
      '--no-check is not for refunds: their check uses refund search, which the gateway answers from any IP address, and a refund sent twice is two refunds; nothing was sent',
    approvesOrRejects: false,
    reconcile: { by: 'refundSearch' },
  }),
};

/** Every single-order flag of any operation (a flag foreign to the operation is refused). */
export const ALL_ORDER_FLAGS: readonly OrderFlagKey[] = Object.entries(COLUMN_FLAGS)
  .filter(([column]) => Object.values(OPERATIONS).some((spec) => spec.elementFields.includes(column)))
  .map(([, flag]) => flag.key);
