// The journal's hash chain (issue 28, docs/audit.md): from version 2 on, every record after the
// header carries `prev`, the SHA-256 (lowercase hex) of the previous line's exact bytes without its
// newline. A record changed, removed or moved breaks the link after it; this module finds the first
// break, pure over the lines, for the reader (resume refuses, show warns) and `runs verify --journal`.
// What it cannot see alone: the last line changed or records cut from the end — the head kept
// elsewhere (an audit export, the plan) shows those (`runs verify --journal --head`).
import { createHash } from 'node:crypto';

/** The first journal version whose records are chained. */
export const CHAINED_VERSION = 2;

/** SHA-256 of one line (without its newline), as `prev` holds it. */
export function lineHash(line: string | Uint8Array): string {
  return createHash('sha256').update(line).digest('hex');
}

/** `line` (a serialised record, `{…}`) with its link to the line before appended as its last field. */
export function withPrev(line: string, prev: string): string {
  return `${line.slice(0, -1)},"prev":"${prev}"}`;
}

/** Where the chain breaks first, said for a person. */
export interface ChainBreak {
  /** 1-based line of the file. */
  line: number;
  /** The record type on that line, or `?` when it is not a record. */
  type: string;
  why: string;
}

export interface ChainReport {
  /** The header's version; below CHAINED_VERSION the journal has no chain (written before issue 28). */
  version: number;
  /** A journal of a version with no chain: nothing to check, said as such. */
  legacy: boolean;
  /** Complete lines (header included). */
  lines: number;
  /** SHA-256 of the last complete line: the chain's head, what an auditor keeps elsewhere. */
  head: string | undefined;
  /** Type of the last complete record. */
  lastType: string | undefined;
  /** The first break, when there is one. */
  broken?: ChainBreak;
  /** A last line left incomplete by a crash mid-write (not an edit: a resume cuts it). */
  tornLine?: number;
}

/** One complete line: its number, its bytes (or text) as in the file, and its JSON when it is a record. */
export interface ChainLine {
  line: number;
  bytes: string | Uint8Array;
  record: { type?: unknown; v?: unknown; prev?: unknown } | undefined;
}

function typeOf(l: ChainLine): string {
  return typeof l.record?.type === 'string' ? l.record.type : '?';
}

/**
 * Checks a journal's lines in file order (blank lines left out by the caller; `torn`: the number of
 * an incomplete last line, if any). Names the first record changed, removed, moved or added after
 * the run's `finished` record. Pure: the same lines give the same report.
 */
export function checkChain(lines: readonly ChainLine[], torn?: number): ChainReport {
  const first = lines[0];
  const version = typeof first?.record?.v === 'number' ? first.record.v : 0;
  const report: ChainReport = {
    version,
    legacy: version < CHAINED_VERSION,
    lines: lines.length,
    head: undefined,
    lastType: undefined,
    ...(torn === undefined ? {} : { tornLine: torn }),
  };
  if (first === undefined) return report;
  const hashes = lines.map((l) => lineHash(l.bytes));
  report.head = hashes[hashes.length - 1];
  report.lastType = typeOf(lines[lines.length - 1]!);
  report.broken = firstBreak(lines, hashes, report.legacy);
  return report;
}

function firstBreak(
  lines: readonly ChainLine[],
  hashes: readonly string[],
  legacy: boolean,
): ChainBreak | undefined {
  const first = lines[0]!;
  if (first.record?.type !== 'header') {
    return { line: first.line, type: typeOf(first), why: 'the first line is not the run header' };
  }
  // Where each hash is, to tell a removed record from a moved one.
  const at = new Map<string, number>();
  hashes.forEach((h, i) => {
    if (!at.has(h)) at.set(h, i);
  });
  let finishedAt: number | undefined;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!;
    const type = typeOf(l);
    if (l.record === undefined) {
      return { line: l.line, type, why: 'not a journal record (not JSON) — the line was changed' };
    }
    if (finishedAt !== undefined) {
      return {
        line: l.line,
        type,
        why: `comes after the run's finished record (line ${lines[finishedAt]!.line}) — a record was added after the run ended`,
      };
    }
    if (type === 'finished') finishedAt = i;
    const prev = l.record.prev;
    if (legacy) {
      // A chained record in an unchained journal: the header's version was lowered to hide the chain.
      if (prev !== undefined) {
        return {
          line: l.line,
          type,
          why: `carries a chain link, but the header (line ${first.line}) says version ${String(first.record.v)}, which has none — the header was changed`,
        };
      }
      continue;
    }
    if (prev === hashes[i - 1]) continue;
    const before = lines[i - 1]!;
    if (typeof prev !== 'string') {
      return {
        line: l.line,
        type,
        why: 'has no link to the record before it (prev) — a record was added or changed here',
      };
    }
    const k = at.get(prev);
    if (k !== undefined && k > i - 1) {
      return {
        line: l.line,
        type,
        why: `its prev is the hash of line ${lines[k]!.line}, which comes after it — records were reordered here`,
      };
    }
    if (k !== undefined) {
      return {
        line: l.line,
        type,
        why: `its prev is the hash of line ${lines[k]!.line}, not of line ${before.line} — the records between them were added, or this one was moved here`,
      };
    }
    return {
      line: l.line,
      type,
      why: `its prev does not match line ${before.line} (${typeOf(before)}) — line ${before.line} was changed, or a record between them was removed`,
    };
  }
  return undefined;
}

/** What the head an auditor kept says about the journal now. */
export type HeadFinding =
  | { kind: 'same' }
  /** The kept head is an earlier line: the journal went on after it (a resume, or records added). */
  | { kind: 'earlier'; line: number; more: number }
  /** No line hashes to it: the end was changed or cut, or the whole chain was rewritten. */
  | { kind: 'absent' };

export function compareHead(lines: readonly ChainLine[], kept: string): HeadFinding {
  const want = kept.toLowerCase();
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lineHash(lines[i]!.bytes) !== want) continue;
    return i === lines.length - 1
      ? { kind: 'same' }
      : { kind: 'earlier', line: lines[i]!.line, more: lines.length - 1 - i };
  }
  return { kind: 'absent' };
}

/** Splits a journal's bytes into its complete lines (parsed where they are JSON) and a torn last line. */
export function chainLines(buf: Uint8Array): { lines: ChainLine[]; torn?: number } {
  const lines: ChainLine[] = [];
  let start = 0;
  let lineNo = 0;
  let torn: number | undefined;
  const text = new TextDecoder();
  while (start < buf.length) {
    let nl = buf.indexOf(0x0a, start);
    const complete = nl >= 0;
    if (!complete) nl = buf.length;
    lineNo++;
    const bytes = buf.subarray(start, nl);
    start = nl + 1;
    if (bytes.length === 0) continue;
    let record: ChainLine['record'];
    try {
      const v: unknown = JSON.parse(text.decode(bytes));
      record =
        typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as ChainLine['record']) : undefined;
    } catch {
      record = undefined;
    }
    // A last line that is not JSON is a crash mid-write (as the reader has always taken it).
    if (record === undefined && (!complete || isBlankFrom(buf, start))) {
      torn = lineNo;
      break;
    }
    lines.push({ line: lineNo, bytes, record });
  }
  return torn === undefined ? { lines } : { lines, torn };
}

function isBlankFrom(buf: Uint8Array, from: number): boolean {
  for (let i = from; i < buf.length; i++) if (buf[i] !== 0x0a) return false;
  return true;
}

/** The warning a view of a run prints above it when its chain is broken; undefined when it is not. */
export function chainWarning(runId: string, report: ChainReport): string | undefined {
  const b = report.broken;
  if (b === undefined) return undefined;
  return `payops: warning: the journal of run ${runId} was changed after it was written (line ${b.line}, ${b.type}: ${b.why}); what follows may not be what the run did — \`payops runs verify ${runId} --journal\``;
}
