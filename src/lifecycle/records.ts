// The records every run's journal has, whatever the run does: the header (first line), `resumed`,
// and the terminal records (`finished`, `interrupted`) that give a run its state. Each kind of run
// (bulk operations, payouts) adds its own record types and parses what it reads exactly once, into
// a discriminated union, with the helpers here; past that point nothing casts a record.

/** The smallest thing the journal writes: a typed record. `at` (ISO 8601) is added when absent. */
export interface JournalRecord {
  type: string;
  at?: string;
}

/** A line as read back: JSON with a `type`, not yet checked. */
export type RawRecord = { type: string; at?: string } & Record<string, unknown>;

/** What the caller gives `createRun`; the journal adds type, v, runId and createdAt. */
export interface NewRunHeader {
  /** What the run does: `refund`, `capture`, `cancel`, `review`, `payout`, … */
  op: string;
  /** Absolute path of the input file, when there is one. */
  file?: string | undefined;
  /** The input as the user named it (a path as typed, or "this order"). */
  label?: string;
  /** One order given by flags rather than a file. */
  inline?: boolean;
  /** SHA-256 (hex) of the input's bytes. */
  sha256?: string;
  /** What the input means, whatever its bytes (bulk runs: bulk/plan/content-key.ts). */
  content?: string;
  profile?: string;
  baseUrl?: string;
  merchantId?: string;
  accountId?: string;
  /**
   * Who the money moved at: base URL + merchant + account (+ a per-process id for an in-process
   * sandbox), in normal form (identity.ts); older headers hold it as typed: compare with sameGateway.
   */
  gatewayIdentity?: string;
  sandbox?: boolean;
  rows?: number;
  chunkSize?: number;
  requests?: number;
  /** The input's columns, in file order (bulk runs). */
  columns?: string[];
  /** The input's copy inside the run folder (bulk runs). */
  snapshot?: string;
  /** The sheet read of a workbook input, when --sheet named one. */
  sheet?: string;
  /** Payouts: whether the input was one JSON request or a CSV. */
  inputKind?: 'json' | 'csv';
  /**
   * How the input is read (encoding, decimal mark, refund reason): JSON of bulk/read-as.ts ReadAs,
   * a payout's of tabular/read-as.ts TableReadAs.
   */
  readAs?: string;
  /** The results file (--out) the run was started with, absolute: a resume writes it again. */
  out?: string;
  /** `skipped`: the run was started with --no-check (no gateway check; a resume makes none either). */
  check?: string;
  /**
   * What the run moves when it begins, currency → decimal text (`{"USD":"1200.00"}`): approval/gate.ts
   * adds up the runs made without a plan in the last 24 hours, so that splitting a file does not get
   * around approval_required. Older headers have none (counted as 0).
   */
  moving?: Record<string, string>;
  /**
   * The approved plan the run was started with (approval/plan-doc.ts RunApproval, issue 28): a
   * resume keeps it, the audit export names its maker and approvers.
   */
  approval?: {
    planId: string;
    planDigest: string;
    maker: { name: string; fingerprint: string };
    approvers: Array<{ name: string; fingerprint: string; at: string }>;
  };
}

/** First record of every journal. */
export interface RunHeader extends NewRunHeader {
  type: 'header';
  v: number;
  runId: string;
  /** ISO 8601 UTC. */
  createdAt: string;
}

/** A process took up the run again (`--resume`). */
export interface ResumedRecord extends JournalRecord {
  type: 'resumed';
  pid?: number;
  /** Payouts: how many were left to send. */
  toSend?: number;
}

/** The last record of a run that ended (`finished`: nothing left to do) or stopped short. */
export interface TerminalRecord extends JournalRecord {
  type: 'finished' | 'interrupted';
  /** Why it stopped: `interrupted`, `unreachable`, `auth`, `route`, `journal`, `busy`, `error`. */
  reason?: string;
  message?: string;
  /** Rows per outcome, as the run counted them. */
  counts?: Record<string, number>;
  /** Bulk runs: outcome → currency → minor units as text. */
  money?: Record<string, Record<string, string>>;
}

export type CommonRecord = ResumedRecord | TerminalRecord;

/** A record that is not what its type says: the journal is damaged there. */
export class RecordShapeError extends Error {}

export function str(raw: RawRecord, key: string): string {
  const v = raw[key];
  if (typeof v !== 'string') throw new RecordShapeError(`${raw.type} record without ${key}`);
  return v;
}

export function num(raw: RawRecord, key: string): number {
  const v = raw[key];
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new RecordShapeError(`${raw.type} record without ${key}`);
  return v;
}

export function optStr(raw: RawRecord, key: string): string | undefined {
  const v = raw[key];
  return typeof v === 'string' ? v : undefined;
}

export function optNum(raw: RawRecord, key: string): number | undefined {
  const v = raw[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function plain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function counts(v: unknown): Record<string, number> | undefined {
  if (!plain(v)) return undefined;
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(v)) if (typeof n === 'number') out[k] = n;
  return out;
}

function money(v: unknown): Record<string, Record<string, string>> | undefined {
  if (!plain(v)) return undefined;
  const out: Record<string, Record<string, string>> = {};
  for (const [outcome, byCurrency] of Object.entries(v)) {
    if (!plain(byCurrency)) continue;
    const m: Record<string, string> = {};
    for (const [cur, minor] of Object.entries(byCurrency)) if (typeof minor === 'string') m[cur] = minor;
    out[outcome] = m;
  }
  return out;
}

/** `resumed`, `finished` and `interrupted`; undefined for any other type. */
export function parseCommonRecord(raw: RawRecord): CommonRecord | undefined {
  const at = optStr(raw, 'at');
  const base = at === undefined ? {} : { at };
  switch (raw.type) {
    case 'resumed': {
      const pid = optNum(raw, 'pid');
      const toSend = optNum(raw, 'toSend');
      return {
        type: 'resumed',
        ...base,
        ...(pid === undefined ? {} : { pid }),
        ...(toSend === undefined ? {} : { toSend }),
      };
    }
    case 'finished':
    case 'interrupted': {
      const rec: TerminalRecord = { type: raw.type, ...base };
      const reason = optStr(raw, 'reason');
      const message = optStr(raw, 'message');
      const c = counts(raw.counts);
      const m = money(raw.money);
      if (reason !== undefined) rec.reason = reason;
      if (message !== undefined) rec.message = message;
      if (c !== undefined) rec.counts = c;
      if (m !== undefined) rec.money = m;
      return rec;
    }
    default:
      return undefined;
  }
}

/** The header, checked: what a run is, where and against whom it ran. */
export function parseHeader(raw: RawRecord): RunHeader {
  if (raw.type !== 'header') throw new RecordShapeError('the first record is not a header');
  const header: RunHeader = {
    type: 'header',
    v: num(raw, 'v'),
    runId: str(raw, 'runId'),
    createdAt: str(raw, 'createdAt'),
    op: str(raw, 'op'),
  };
  for (const key of [
    'file',
    'label',
    'sha256',
    'content',
    'profile',
    'baseUrl',
    'merchantId',
    'accountId',
    'gatewayIdentity',
    'snapshot',
    'sheet',
    'readAs',
    'out',
    'check',
  ] as const) {
    const v = optStr(raw, key);
    if (v !== undefined) header[key] = v;
  }
  for (const key of ['rows', 'chunkSize', 'requests'] as const) {
    const v = optNum(raw, key);
    if (v !== undefined) header[key] = v;
  }
  if (typeof raw.inline === 'boolean') header.inline = raw.inline;
  if (typeof raw.sandbox === 'boolean') header.sandbox = raw.sandbox;
  if (raw.inputKind === 'json' || raw.inputKind === 'csv') header.inputKind = raw.inputKind;
  if (Array.isArray(raw.columns) && raw.columns.every((c) => typeof c === 'string')) {
    header.columns = raw.columns as string[];
  }
  if (raw.approval !== undefined) header.approval = approvalOf(raw.approval);
  if (plain(raw.moving)) {
    const moving = Object.entries(raw.moving).filter((e): e is [string, string] => typeof e[1] === 'string');
    header.moving = Object.fromEntries(moving);
  }
  return header;
}

/** The header's approval, checked: a resume keeps it, so a damaged one is damage (fail closed). */
function approvalOf(v: unknown): NonNullable<NewRunHeader['approval']> {
  const person = (p: unknown, at: boolean): p is { name: string; fingerprint: string; at: string } =>
    plain(p) &&
    typeof p.name === 'string' &&
    typeof p.fingerprint === 'string' &&
    (!at || typeof p.at === 'string');
  if (
    plain(v) &&
    typeof v.planId === 'string' &&
    typeof v.planDigest === 'string' &&
    person(v.maker, false) &&
    Array.isArray(v.approvers) &&
    v.approvers.every((a) => person(a, true))
  ) {
    return {
      planId: v.planId,
      planDigest: v.planDigest,
      maker: { name: v.maker.name, fingerprint: v.maker.fingerprint },
      approvers: v.approvers.map((a: { name: string; fingerprint: string; at: string }) => ({
        name: a.name,
        fingerprint: a.fingerprint,
        at: a.at,
      })),
    };
  }
  throw new RecordShapeError('header record with a damaged approval');
}

/** Reads each record of one kind of run; undefined skips a record type this reader does not use. */
export type RecordParser<R> = (raw: RawRecord) => R | undefined;

/** Reads every record as it is, unchecked (listing, tests). */
export const rawRecords: RecordParser<RawRecord> = (raw) => raw;
