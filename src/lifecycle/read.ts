// Reading runs back: one run's records (parsed once, by the reader of that kind of run), and the list
// of every run with its state, for the re-run guard, resume and `payops runs list`.
import { createReadStream } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { JournalChainError, JournalDamagedError } from '../errors.js';
import { type ChainReport, chainLines, checkChain } from './chain.js';
import { sameGateway } from './identity.js';
import { isLocked } from './lock.js';
import { assertRunExists, isRunId, JOURNAL_FILE, runDir, runsDir, SNAPSHOT_FILE } from './paths.js';
import {
  parseCommonRecord,
  parseHeader,
  type RawRecord,
  type RecordParser,
  type RunHeader,
  rawRecords,
  type TerminalRecord,
} from './records.js';

export type RunState = 'finished' | 'interrupted' | 'running';

export interface RunInfo {
  runId: string;
  dir: string;
  header: RunHeader;
  /** `running` only while a live process holds the lock; a crashed run reads as `interrupted`. */
  state: RunState;
  /** The last record when it is a terminal one (`finished` / `interrupted`): callers keep counts there. */
  terminal?: TerminalRecord;
}

export interface ReadRunResult<R = RawRecord> {
  header: RunHeader;
  /** Every record after the header that the parser reads, in file order. */
  records: R[];
  /** True when the last line was incomplete (a crash mid-write) and was ignored. */
  torn: boolean;
  /** The hash chain as checked (lifecycle/chain.ts): its head, and where it breaks if it does. */
  chain: ChainReport;
}

function damaged(stateDir: string, runId: string, line: number, cause: unknown): JournalDamagedError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new JournalDamagedError(runId, runDir(stateDir, runId), line, why);
}

function asRaw(value: unknown): RawRecord {
  if (typeof value !== 'object' || value === null || typeof (value as RawRecord).type !== 'string') {
    throw new Error('not a journal record');
  }
  return value as RawRecord;
}

/** Records of a run in file order (header first), unchecked; a torn last line is skipped. */
export async function* readRecords(stateDir: string, runId: string): AsyncGenerator<RawRecord> {
  const path = join(runDir(stateDir, runId), JOURNAL_FILE);
  await assertRunExists(path, runId);
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let pendingBad: { lineNo: number; err: unknown } | undefined;
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (line === '') continue;
    if (pendingBad !== undefined) throw damaged(stateDir, runId, pendingBad.lineNo, pendingBad.err);
    try {
      yield asRaw(JSON.parse(line));
    } catch (err) {
      // Only acceptable as the very last line (a crash mid-write); decided when the next line comes.
      pendingBad = { lineNo, err };
    }
  }
}

/** What a reader does with a broken hash chain (lifecycle/chain.ts). */
export interface ReadRunOptions {
  /**
   * `refuse` (the default: anything that acts on a run, such as a resume): a JournalChainError
   * naming the first bad line. `report`: read it all the same and say so in `chain` (views that
   * only show a run, which warn).
   */
  chain?: 'refuse' | 'report';
}

/**
 * A run's header and records, each parsed once by `parse` (records it does not read are skipped).
 * A line that is not JSON, or a record that is not what its type says, is damage — except a torn
 * last line, which a crash mid-write leaves and which is ignored. The hash chain is checked as well
 * (`chain` in the result); a broken one is refused unless `opts.chain` is `report`.
 */
export async function readRun<R = RawRecord>(
  stateDir: string,
  runId: string,
  parse?: RecordParser<R>,
  opts: ReadRunOptions = {},
): Promise<ReadRunResult<R>> {
  const read = (parse ?? rawRecords) as RecordParser<R>;
  const path = join(runDir(stateDir, runId), JOURNAL_FILE);
  await assertRunExists(path, runId);
  const { lines, torn } = chainLines(await readFile(path));
  const records: R[] = [];
  let header: RunHeader | undefined;
  for (const l of lines) {
    try {
      // Not JSON: parsed again for the parser's own words on where.
      const raw = asRaw(l.record ?? JSON.parse(Buffer.from(l.bytes).toString('utf8')));
      if (header === undefined) {
        header = parseHeader(raw);
        continue;
      }
      const rec = read(raw);
      if (rec !== undefined) records.push(rec);
    } catch (err) {
      throw damaged(stateDir, runId, l.line, err);
    }
  }
  if (header === undefined) throw damaged(stateDir, runId, 1, 'no header');
  const chain = checkChain(lines, torn);
  if (chain.broken && opts.chain !== 'report') {
    const b = chain.broken;
    throw new JournalChainError(runId, runDir(stateDir, runId), b.line, b.type, b.why);
  }
  return { header, records, torn: torn !== undefined, chain };
}

/**
 * The first line of a journal: the header, or undefined when there is no complete first line (the
 * process died while creating the run, before anything could be sent). A complete first line that
 * is not a header is damage.
 */
async function readHeader(path: string): Promise<RunHeader | undefined> {
  const fh = await open(path, 'r');
  let first: string;
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    const nl = text.indexOf('\n');
    if (nl < 0) {
      if (bytesRead < buf.length) return undefined;
      throw new Error('the header line is longer than a header can be');
    }
    first = text.slice(0, nl);
  } finally {
    await fh.close();
  }
  return parseHeader(asRaw(JSON.parse(first)));
}

/** A run's header alone, read from its first line (the rest of the journal is not read). */
export async function readRunHeader(stateDir: string, runId: string): Promise<RunHeader> {
  const path = join(runDir(stateDir, runId), JOURNAL_FILE);
  await assertRunExists(path, runId);
  let header: RunHeader | undefined;
  try {
    header = await readHeader(path);
  } catch (err) {
    throw damaged(stateDir, runId, 1, err);
  }
  if (header === undefined) throw damaged(stateDir, runId, 1, 'the journal has no complete header');
  return header;
}

/** The last complete record, read from the file's tail only. */
async function readLastRecord(path: string): Promise<RawRecord | undefined> {
  const size = (await stat(path)).size;
  const fh = await open(path, 'r');
  try {
    let span = Math.min(size, 64 * 1024);
    for (;;) {
      const buf = Buffer.alloc(span);
      await fh.read(buf, 0, span, size - span);
      const lines = buf.toString('utf8').split('\n');
      // The first piece may be a cut line unless we read from the file's start.
      const from = span === size ? 0 : 1;
      for (let i = lines.length - 1; i >= from; i--) {
        const line = lines[i]!;
        if (line === '') continue;
        try {
          return asRaw(JSON.parse(line));
        } catch {
          // torn tail: try the line before
        }
      }
      if (span === size) return undefined;
      span = Math.min(size, span * 4);
    }
  } finally {
    await fh.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** A run folder whose journal cannot be read. */
export interface DamagedRun {
  runId: string;
  dir: string;
  error: JournalDamagedError;
}

/**
 * Every run, newest first, with its state, and the runs whose journal cannot be read. A folder
 * with no journal, or a journal without a complete first line, is a run that died while being
 * created — before anything could be sent — and is passed over.
 */
export async function listRunsChecked(stateDir: string): Promise<{ runs: RunInfo[]; damaged: DamagedRun[] }> {
  let names: string[];
  try {
    names = await readdir(runsDir(stateDir));
  } catch {
    return { runs: [], damaged: [] };
  }
  const ids = names.filter(isRunId).sort().reverse();
  const runs: RunInfo[] = [];
  const damagedRuns: DamagedRun[] = [];
  for (const runId of ids) {
    const dir = runDir(stateDir, runId);
    const path = join(dir, JOURNAL_FILE);
    let header: RunHeader | undefined;
    try {
      header = await readHeader(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        damagedRuns.push({ runId, dir, error: damaged(stateDir, runId, 1, err) });
        continue;
      }
    }
    if (header === undefined) {
      // The input copy is moved in only once the header is on disk: beside one, a missing or
      // headless journal was cut short later (a full disk, a truncation), not at its creation.
      if (await exists(join(dir, SNAPSHOT_FILE))) {
        damagedRuns.push({
          runId,
          dir,
          error: damaged(stateDir, runId, 1, 'the journal has no complete header'),
        });
      }
      continue;
    }
    const lastRaw = await readLastRecord(path);
    const last = lastRaw === undefined ? undefined : parseCommonRecord(lastRaw);
    const info: RunInfo = { runId, dir, header, state: 'interrupted' };
    if (last?.type === 'finished') info.state = 'finished';
    else if (await isLocked(dir)) info.state = 'running';
    if (last?.type === 'finished' || last?.type === 'interrupted') info.terminal = last;
    runs.push(info);
  }
  return { runs, damaged: damagedRuns };
}

/**
 * Every run, newest first, with its state. Fails closed: a run whose journal cannot be read might
 * be the very run the caller is looking for, so it throws (JournalDamagedError, exit 4) rather
 * than answer without it.
 */
export async function listRuns(stateDir: string): Promise<RunInfo[]> {
  const { runs, damaged: damagedRuns } = await listRunsChecked(stateDir);
  if (damagedRuns.length > 0) throw damagedRuns[0]!.error;
  return runs;
}

/** What a run's input is, to match it with earlier runs. */
export interface InputIdentity {
  /** What the input means (bulk runs: bulk/plan/content-key.ts), when the caller knows it. */
  content?: string | undefined;
  /** SHA-256 of its bytes: matched only against headers written before `content` existed. */
  sha256: string;
}

/**
 * Whether a run's header is of this input: by what it means (`content`) where the header records
 * it, so a file saved again (line ends, a BOM, columns moved or added) or an order typed another way
 * is the same input; by its bytes only for older headers that have no `content`.
 */
export function isSameInput(header: RunHeader, input: InputIdentity): boolean {
  if (header.content !== undefined) return header.content === input.content;
  return header.sha256 !== undefined && header.sha256 === input.sha256;
}

/** Runs of `op` at this gateway (identities compared by meaning: lifecycle/identity.ts), newest first. */
export async function findRunsAt(stateDir: string, op: string, gatewayIdentity: string): Promise<RunInfo[]> {
  return (await listRuns(stateDir)).filter(
    (r) => r.header.op === op && sameGateway(r.header.gatewayIdentity, gatewayIdentity),
  );
}

/** Runs of the same input (isSameInput), operation and gateway, newest first. */
export async function findRunsByInput(
  stateDir: string,
  input: InputIdentity,
  op: string,
  gatewayIdentity: string,
): Promise<RunInfo[]> {
  return (await findRunsAt(stateDir, op, gatewayIdentity)).filter((r) => isSameInput(r.header, input));
}
