// What the audit export says of one run (docs/audit.md): the run (who ran it where, on which file,
// who made and approved its plan, its state, its journal's chain) and, per row, what was sent and what
// the gateway answered — derived from the journal as `runs show` derives it (bulk/engine/replay.ts
// over the run's input copy; a payout's results from its records). Reads only; sends nothing.
import { chunkRows, wireElement } from '../bulk/engine/chunk.js';
import { type BulkRecord, parseBulkRecord } from '../bulk/engine/records.js';
import { replayRun } from '../bulk/engine/replay.js';
import { foldRecords, skippedRows } from '../bulk/engine/run-state.js';
import { inputRows, runInput, skippedHiddenRows } from '../bulk/input.js';
import { OPERATIONS } from '../bulk/operations.js';
import { skippedHidden } from '../bulk/report/results.js';
import { type BatchOperation, ENDPOINTS } from '../gateway/endpoints.js';
import type { ChainReport } from '../lifecycle/chain.js';
import { type RunInfo, readRun } from '../lifecycle/read.js';
import type { RunHeader } from '../lifecycle/records.js';
import { formatAmount } from '../money/amount.js';
import { type PayoutRecord, parsePayoutRecord } from '../payout/records.js';
import { latestResults } from '../payout/runs.js';
import { stateLabel } from '../runs/state-label.js';

/** A run's columns, the same for every run (repeated on each of its rows in CSV and .xlsx). */
export const RUN_COLUMNS = [
  'run_id',
  'created',
  'operation',
  'gateway',
  'merchant_id',
  'account_id',
  'profile',
  'sandbox',
  'file',
  'content_key',
  'sha256',
  'run_rows',
  'state',
  'plan_id',
  'plan_maker',
  'plan_maker_fingerprint',
  'plan_approvers',
  'chain',
  'chain_head',
  'chain_lines',
  'chain_break',
] as const;

/** A row's columns: what was sent for it and what the gateway answered, as the journal has them. */
export const ROW_COLUMNS = [
  'line',
  'transaction_id',
  'order_no',
  'request_id',
  'reference',
  'currency',
  'amount',
  'outcome',
  'detail',
  'gateway_status',
  'sent',
  'answer',
] as const;

export type RunData = Record<(typeof RUN_COLUMNS)[number], string | number | boolean | null> & {
  approvers: Array<{ name: string; fingerprint: string; at: string }>;
};
export type RowData = Record<(typeof ROW_COLUMNS)[number], string | number | null>;

/** The run's header field `approval` as written (records.ts NewRunHeader.approval), checked. */
function approvalOf(raw: unknown): RunHeader['approval'] | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const a = raw as Record<string, unknown>;
  const person = (p: unknown) =>
    typeof p === 'object' && p !== null && typeof (p as { name?: unknown }).name === 'string'
      ? (p as { name: string; fingerprint?: unknown; at?: unknown })
      : undefined;
  const maker = person(a.maker);
  if (maker === undefined) return undefined;
  const approvers = Array.isArray(a.approvers) ? a.approvers.map(person).filter((p) => p !== undefined) : [];
  return {
    planId: typeof a.planId === 'string' ? a.planId : '',
    planDigest: typeof a.planDigest === 'string' ? a.planDigest : '',
    maker: { name: maker.name, fingerprint: String(maker.fingerprint ?? '') },
    approvers: approvers.map((p) => ({
      name: p.name,
      fingerprint: String(p.fingerprint ?? ''),
      at: String(p.at ?? ''),
    })),
  };
}

/** The run's own columns. `approval`: the header's field as read from its first line. */
export function runData(
  info: RunInfo,
  rawApproval: unknown,
  chain: ChainReport | undefined,
  problem?: string,
): RunData {
  const h = info.header;
  const approval = approvalOf(rawApproval);
  const b = chain?.broken;
  return {
    run_id: info.runId,
    created: h.createdAt,
    operation: h.op,
    gateway: h.gatewayIdentity ?? h.baseUrl ?? '',
    merchant_id: h.merchantId ?? '',
    account_id: h.accountId ?? '',
    profile: h.profile ?? '',
    sandbox: h.sandbox === true,
    file: h.file ?? h.label ?? '',
    content_key: h.content ?? '',
    sha256: h.sha256 ?? '',
    run_rows: h.rows ?? null,
    state: problem === undefined ? stateLabel(info) : 'damaged',
    plan_id: approval?.planId ?? 'none',
    plan_maker: approval?.maker.name ?? '',
    plan_maker_fingerprint: approval?.maker.fingerprint ?? '',
    plan_approvers: (approval?.approvers ?? [])
      .map((p) => `${p.name} (${p.fingerprint}) at ${p.at}`)
      .join('; '),
    approvers: approval?.approvers ?? [],
    chain: problem !== undefined ? 'unreadable' : b ? 'broken' : chain?.legacy ? 'none' : 'intact',
    chain_head: chain?.head ?? '',
    chain_lines: chain?.lines ?? null,
    chain_break: problem ?? (b ? `line ${b.line} (${b.type}): ${b.why}` : ''),
  };
}

/** A row to the export; may return a promise (backpressure). */
export type EmitRow = (row: RowData) => Promise<void> | undefined;

/** A run opened for the export: its journal's chain (read, reported, never refused), then its rows. */
export interface OpenedRun {
  chain: ChainReport;
  rows(emit: EmitRow): Promise<void>;
}

const NOT_SENT = new Set(['not_sent', 'already_done', 'skipped']);

/** A bulk run: each row in input order, as `runs show` derives it (its input copy replayed with the journal). */
export async function openBulkRun(state: string, header: RunHeader): Promise<OpenedRun> {
  const op = header.op as BatchOperation;
  const { records, chain } = await readRun<BulkRecord>(state, header.runId, parseBulkRecord, {
    chain: 'report',
  });
  const folded = foldRecords(records);
  const snapshot = await runInput(state, header);
  const moves = OPERATIONS[op].moves;
  const status: string = ENDPOINTS[op].statusField ?? 'status';
  return {
    chain,
    async rows(emit) {
      for await (const h of skippedHiddenRows(op, snapshot)) {
        const o = skippedHidden(h.line, h.ref);
        const w = emit({ ...emptyRow(h.line), outcome: o.outcome, detail: o.detail });
        if (w) await w;
      }
      await replayRun({
        chunks: chunkRows(inputRows(op, snapshot), header.chunkSize || 50),
        prior: folded.chunks,
        skip: skippedRows(folded),
        emit: async (chunk, outcomes) => {
          for (let i = 0; i < chunk.rows.length; i++) {
            const row = chunk.rows[i]!;
            const o = outcomes[i]!;
            const fields = o.fields;
            const w = emit({
              line: row.line,
              transaction_id: row.transaction_id,
              order_no: row.order_no,
              request_id: '',
              reference: '',
              currency: row.currency,
              amount: formatAmount(row[moves] ?? row.amountMinor, row.currency),
              outcome: o.outcome,
              detail: o.detail,
              gateway_status: fields[status] ?? '',
              sent: NOT_SENT.has(o.outcome) ? '' : JSON.stringify(wireElement(op, row)),
              answer: Object.keys(fields).length === 0 ? '' : JSON.stringify(fields),
            });
            if (w) await w;
          }
        },
      });
    },
  };
}

function emptyRow(line: number): RowData {
  const row = Object.fromEntries(ROW_COLUMNS.map((c) => [c, ''])) as RowData;
  row.line = line;
  return row;
}

/** A payout run: each payout in line order, its request_id and latest result as journaled. */
export async function openPayoutRun(state: string, header: RunHeader): Promise<OpenedRun> {
  const { records, chain } = await readRun<PayoutRecord>(state, header.runId, parsePayoutRecord, {
    chain: 'report',
  });
  // A payout's journal holds its request_id before it is sent, and the gateway's answer after.
  const planned = new Map<number, string>();
  for (const r of records)
    if (r.type === 'plan') for (const item of r.items) planned.set(item.line, item.request_id);
  const results = new Map(latestResults(records).map((r) => [r.line, r]));
  const lines = [...new Set([...planned.keys(), ...results.keys()])].sort((a, b) => a - b);
  return {
    chain,
    async rows(emit) {
      for (const line of lines) {
        const r = results.get(line);
        const requestId = r?.request_id ?? planned.get(line) ?? '';
        const w = emit({
          line,
          transaction_id: r?.transaction_id ?? '',
          order_no: '',
          request_id: requestId,
          reference: r?.reference ?? '',
          currency: r?.payment_currency ?? '',
          amount: r?.payment_amount ?? '',
          outcome: r?.outcome ?? 'not_sent',
          detail: r
            ? [r.failure_type, r.failure_reason].filter(Boolean).join(': ')
            : 'no result in the journal',
          gateway_status: r?.status ?? '',
          sent: r ? JSON.stringify({ request_id: requestId }) : '',
          answer: r ? JSON.stringify(r) : '',
        });
        if (w) await w;
      }
    },
  };
}
