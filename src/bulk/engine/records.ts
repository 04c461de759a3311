// The journal records of a bulk run (capture, cancel, review, refund), as written and as read back.
// Read back once, by parseBulkRecord, into the BulkRecord union: the fold (run-state.ts) and replay
// use them without casts.
import {
  type CommonRecord,
  num,
  optStr,
  parseCommonRecord,
  type RawRecord,
  RecordShapeError,
  str,
} from '../../lifecycle/records.js';
import type { RowOutcome, WireElement } from '../types.js';
import { type OutcomeTable, outcomeRows } from './outcome-table.js';

/** Written, durably, before a chunk's request may leave: which rows it sends, and when. */
export interface IntentRecord {
  type: 'intent';
  at?: string;
  chunk: number;
  lines: number[];
  /**
   * The wire elements sent, in `lines` order. Written by older versions only: the elements are
   * derived from the run's input snapshot, which holds the same rows byte for byte.
   */
  elements?: WireElement[];
  /** ISO 8601 UTC, on this machine's clock. */
  sentAt: string;
}

/** The chunk's rows as established by the gateway's answer (`outcome`) or by reconciliation (`reconciled`). */
export interface OutcomeRecord {
  type: 'outcome' | 'reconciled';
  at?: string;
  chunk: number;
  rows: RowOutcome[];
}

/** How an outcome record is written: its rows as a table (outcome-table.ts). */
export interface OutcomeRecordWritten extends OutcomeTable {
  type: 'outcome' | 'reconciled';
  at?: string;
  chunk: number;
}

/** The chunk's request may have reached the gateway, but no trustworthy answer came back. */
export interface UnknownRecord {
  type: 'unknown';
  at?: string;
  chunk: number;
  reason: string;
  message: string;
}

/** The chunk certainly never reached the gateway (connection refused, …): it may be sent on resume. */
export interface NotSentRecord {
  type: 'not_sent';
  at?: string;
  chunk: number;
  message: string;
}

/**
 * What the gateway showed before the run (preflight.ts), written before any intent: the refund
 * references the file's transactions already had, the rows it already showed done, and whether the
 * run skips those (--skip-done) or sends them anyway (--force).
 */
export interface PreflightRecord {
  type: 'preflight';
  at?: string;
  before: Record<string, string[]>;
  done: Array<[line: number, where: string]>;
  /** The lines of `done` only possibly done (a refund of the same amount with another reason). */
  possible?: number[];
  skip: boolean;
}

/**
 * Rows a resumed run found done at the gateway by someone else since the run began (before it had
 * sent them): they are not sent, and are reported already_done.
 */
export interface SkippedRecord {
  type: 'skipped';
  at?: string;
  done: Array<[line: number, where: string]>;
}

/** Every record of a bulk run's journal after its header, as read. */
export type BulkRecord =
  | SkippedRecord
  | IntentRecord
  | OutcomeRecord
  | UnknownRecord
  | NotSentRecord
  | PreflightRecord
  | CommonRecord;

/** What the bulk engine and command write. */
export type BulkRecordWritten =
  | SkippedRecord
  | PreflightRecord
  | IntentRecord
  | OutcomeRecordWritten
  | UnknownRecord
  | NotSentRecord
  | CommonRecord;

function lines(raw: RawRecord): number[] {
  const v = raw.lines;
  if (!Array.isArray(v) || !v.every((n) => typeof n === 'number')) {
    throw new RecordShapeError(`${raw.type} record without lines`);
  }
  return v as number[];
}

function elements(raw: RawRecord): WireElement[] | undefined {
  const v = raw.elements;
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((e) => typeof e === 'object' && e !== null)) {
    throw new RecordShapeError('intent record with unreadable elements');
  }
  return v as WireElement[];
}

function before(v: unknown): Record<string, string[]> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new RecordShapeError('preflight record without before');
  const out: Record<string, string[]> = {};
  for (const [tx, refs] of Object.entries(v)) {
    if (!Array.isArray(refs) || !refs.every((r) => typeof r === 'string')) {
      throw new RecordShapeError('preflight record with unreadable references');
    }
    out[tx] = refs as string[];
  }
  return out;
}

function possibleLines(v: unknown): { possible?: number[] } {
  if (v === undefined) return {};
  if (!Array.isArray(v) || !v.every((n) => typeof n === 'number')) {
    throw new RecordShapeError('preflight record with unreadable possibly done rows');
  }
  return { possible: v as number[] };
}

function doneRows(v: unknown): Array<[number, string]> {
  if (
    !Array.isArray(v) ||
    !v.every((d) => Array.isArray(d) && typeof d[0] === 'number' && typeof d[1] === 'string')
  ) {
    throw new RecordShapeError('preflight record without done rows');
  }
  return v as Array<[number, string]>;
}

function at(raw: RawRecord): { at?: string } {
  const v = optStr(raw, 'at');
  return v === undefined ? {} : { at: v };
}

/** One bulk journal record, checked; a type a bulk run never writes is damage. */
export function parseBulkRecord(raw: RawRecord): BulkRecord | undefined {
  switch (raw.type) {
    case 'intent': {
      const rec: IntentRecord = {
        type: 'intent',
        ...at(raw),
        chunk: num(raw, 'chunk'),
        lines: lines(raw),
        sentAt: str(raw, 'sentAt'),
      };
      const els = elements(raw);
      if (els !== undefined) rec.elements = els;
      return rec;
    }
    case 'outcome':
    case 'reconciled':
      return { type: raw.type, ...at(raw), chunk: num(raw, 'chunk'), rows: outcomeRows(raw) };
    case 'unknown':
      return {
        type: 'unknown',
        ...at(raw),
        chunk: num(raw, 'chunk'),
        reason: optStr(raw, 'reason') ?? '',
        message: optStr(raw, 'message') ?? '',
      };
    case 'not_sent':
      return {
        type: 'not_sent',
        ...at(raw),
        chunk: num(raw, 'chunk'),
        message: optStr(raw, 'message') ?? '',
      };
    case 'skipped':
      return { type: 'skipped', ...at(raw), done: doneRows(raw.done) };
    case 'preflight':
      return {
        type: 'preflight',
        ...at(raw),
        before: before(raw.before),
        done: doneRows(raw.done),
        ...possibleLines(raw.possible),
        skip: raw.skip === true,
      };
    default: {
      // A type no version of payops wrote into a bulk run is damage (a flipped byte): fail closed.
      const common = parseCommonRecord(raw);
      if (common === undefined) throw new RecordShapeError(`a record of unknown type "${raw.type}"`);
      return common;
    }
  }
}
