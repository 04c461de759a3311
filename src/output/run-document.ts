// The JSON summary of a money-moving run under `--output json` (issue 27): ONE document on stdout,
// whatever way the run ends — finished, some rows failed, bad input (nothing sent), interrupted,
// the gateway or the network failing — so a cron job parses stdout and never stderr:
//
//   {"run_id", "operation", "gateway", "rows": […], "state", "counts", "totals", "exit_code", "error"}
//
// Rows are streamed as they come (a 100,000-row run is never held), so the keys known only at the
// end follow them; JSON readers do not care about key order. Counts are numbers; amounts are decimal
// strings in the currency's digits (money is never a float). docs/bulk.md has the schema; a test
// pins its keys (test/unit/output/run-document.test.ts).
import type { GlobalOptions, Io } from '../io.js';
import { jsonTerminalSafe } from '../quote.js';
import { outputJsonReplacer } from '../redact.js';

/** Where the run was sent; null before the settings were read. */
export interface GatewayFacts {
  base_url: string;
  merchant_id: string;
  account_id: string;
  profile: string;
  sandbox: boolean;
}

/**
 * finished: every row settled · interrupted: stopped by a signal or with rows not sent (resumable) ·
 * stopped: the gateway, the network or the journal ended it mid-run · not_started: refused or
 * failed before anything was sent · dry_run: --dry-run, nothing sent.
 */
/** The facts of the settings a run goes to (a ResolvedConfig's). */
export function gatewayFacts(c: {
  baseUrl: string;
  merchantId: string;
  accountId: string;
  profile: string;
  sandbox: boolean;
}): GatewayFacts {
  return {
    base_url: c.baseUrl,
    merchant_id: c.merchantId,
    account_id: c.accountId,
    profile: c.profile,
    sandbox: c.sandbox,
  };
}

export type RunDocumentState = 'finished' | 'interrupted' | 'stopped' | 'not_started' | 'dry_run';

export interface RunDocumentEnd {
  state: RunDocumentState;
  /** Rows per outcome, every outcome present (0 when none). */
  counts: Record<string, number>;
  /** outcome → currency → amount as a decimal string ("12.50"); only outcomes with money. */
  totals: Record<string, Record<string, string>>;
  exit_code: number;
  error: { code: string; message: string } | null;
}

/** The document's keys in the order written: what the schema test pins. */
export const RUN_DOCUMENT_KEYS = [
  'run_id',
  'operation',
  'gateway',
  'rows',
  'state',
  'counts',
  'totals',
  'exit_code',
  'error',
] as const;

export interface RunDocument {
  readonly operation: string;
  /** Set when the run's journal begins (or, for `runs show`, from the journal). */
  runId: string | null;
  gateway: GatewayFacts | null;
  /** What the command knows of its end; main() adds the exit code and the error. */
  outcome: {
    state: RunDocumentState;
    counts?: Record<string, number>;
    totals?: RunDocumentEnd['totals'];
    /** Why a run that threw nothing still ended early (a signal, rows not sent). */
    error?: RunDocumentEnd['error'];
  } | null;
  /** The outcomes counted, in order: every one appears in `counts`. */
  readonly outcomes: readonly string[];
  /** One result row; the promise, when returned, resolves once stdout takes more. */
  row(record: Record<string, string>): Promise<void> | undefined;
  /** Close the rows and write the rest; once only (later calls do nothing). */
  finish(end: Omit<RunDocumentEnd, 'counts' | 'totals'> & Partial<RunDocumentEnd>): Promise<void>;
  readonly finished: boolean;
}

const stringify = (v: unknown) => jsonTerminalSafe(JSON.stringify(v, outputJsonReplacer));

export function createRunDocument(
  out: NodeJS.WritableStream,
  operation: string,
  outcomes: readonly string[],
): RunDocument {
  let started = false;
  let rows = 0;
  let finished = false;
  let buffer = '';
  // Rows per outcome as written: the counts of a document whose command gave none (a finished
  // run's results shown again).
  const tally = new Map<string, number>();
  const flush = (): Promise<void> | undefined => {
    const text = buffer;
    buffer = '';
    if (text === '' || out.write(text)) return undefined;
    return new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  const doc: RunDocument = {
    operation,
    runId: null,
    gateway: null,
    outcome: null,
    outcomes,
    get finished() {
      return finished;
    },
    row(record) {
      if (finished) return undefined;
      head();
      const o = record.outcome;
      if (o !== undefined) tally.set(o, (tally.get(o) ?? 0) + 1);
      buffer += `${rows === 0 ? '\n' : ',\n'}${stringify(record)}`;
      rows++;
      return buffer.length >= 64 * 1024 ? flush() : undefined;
    },
    async finish(end) {
      if (finished) return;
      head();
      finished = true;
      const counts = Object.fromEntries(
        outcomes.map((o) => [o, end.counts ? (end.counts[o] ?? 0) : (tally.get(o) ?? 0)]),
      );
      const tail = {
        state: end.state,
        counts,
        totals: end.totals ?? {},
        exit_code: end.exit_code,
        error: end.error,
      };
      // The rows' closing bracket, then the keys known at the end, one per line.
      const rest = Object.entries(tail).map(([k, v]) => `${JSON.stringify(k)}:${stringify(v)}`);
      buffer += `${rows === 0 ? '],\n' : '\n],\n'}${rest.join(',\n')}\n}\n`;
      // Not waited on: a reader that takes nothing must not hold the exit (main() settles stdout).
      void flush();
    },
  };
  function head() {
    if (started) return;
    started = true;
    const lead = { run_id: doc.runId, operation, gateway: doc.gateway };
    buffer += `{${Object.entries(lead)
      .map(([k, v]) => `${JSON.stringify(k)}:${stringify(v)}`)
      .join(',\n')},\n"rows":[`;
  }
  return doc;
}

/**
 * `--output json` of a money-moving command: its stdout is one document, opened before anything
 * can fail so that every way out writes it (main() finishes it). `--out FILE` still takes the rows.
 */
export function openRunDocument(
  ctx: { io: Io; globals: GlobalOptions; runDocument: RunDocument | undefined },
  operation: string,
  outcomes: readonly string[],
): void {
  if (ctx.globals.output !== 'json' || ctx.runDocument) return;
  ctx.runDocument = createRunDocument(ctx.io.stdout, operation, outcomes);
}
