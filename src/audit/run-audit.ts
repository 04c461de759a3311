// `payops audit export --from DATE --to DATE --out audit.xlsx|csv|json` (issue 28, docs/audit.md):
// every run created in the range — bulk and payout — with who made and approved its plan, its file
// and content key, what was sent and answered per row, its state, and its journal's chain head and
// whether the chain verifies. Offline: no gateway, no credentials; the journal holds no secret and
// no card number, and nothing else is read but each run's own input copy.
import { extname, resolve } from 'node:path';
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { BATCH_OPERATIONS } from '../gateway/endpoints.js';
import { listRunsChecked, type RunInfo, readRecords } from '../lifecycle/read.js';
import { formatCount } from '../output/summary.js';
import { parseDateArg } from '../query/dates.js';
import { type OpenedRun, openBulkRun, openPayoutRun, runData } from './audit-rows.js';
import { type AuditFormat, openAuditWriter } from './audit-view.js';

export interface AuditOptions {
  from: string;
  to: string;
}

function formatOf(out: string, output: string | undefined): AuditFormat {
  const ext = extname(out).toLowerCase();
  if (ext === '.xlsx') return 'xlsx';
  if (ext === '.csv') return 'csv';
  if (ext === '.json') return 'json';
  if (output === 'csv' || output === 'json') return output;
  throw new UsageError(`--out ${out}: an audit export is a .xlsx, .csv or .json file`, {
    hint: 'payops audit export --from 2026-11-01 --to 2026-11-30 --out audit.xlsx',
  });
}

/** The run id's own time (UTC, `YYYYMMDD-hhmmss-…`): when a run whose header cannot be read was made. */
function idTime(runId: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(runId);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Number.NaN;
}

/** The header's `approval` as written (the parsed header keeps only what runs need). */
async function rawApproval(state: string, runId: string): Promise<unknown> {
  for await (const first of readRecords(state, runId)) return first.approval;
  return undefined;
}

export async function runAuditExport(ctx: Context, opts: AuditOptions): Promise<number> {
  const out = ctx.globals.out;
  if (out === undefined) {
    throw new UsageError('audit export writes a file: give --out audit.xlsx, audit.csv or audit.json');
  }
  const format = formatOf(out, ctx.globals.output);
  const from = parseDateArg(opts.from, { bound: 'start', utc: false, flag: '--from' });
  const to = parseDateArg(opts.to, { bound: 'end', utc: false, flag: '--to' });
  if (to < from) throw new UsageError(`--to ${opts.to} is before --from ${opts.from}`);
  // --to is inclusive to its last second (a run's time has milliseconds).
  const inRange = (t: number) => t >= from.getTime() && t < to.getTime() + 1000;

  const state = stateDir(ctx.io.env);
  const { runs, damaged } = await listRunsChecked(state);
  const known = new Set<string>([...BATCH_OPERATIONS, 'payout']);
  const picked = runs
    .filter((r) => known.has(r.header.op) && inRange(Date.parse(r.header.createdAt)))
    .sort((a, b) => a.header.createdAt.localeCompare(b.header.createdAt));
  const unreadable = damaged.filter((d) => inRange(idTime(d.runId)));

  const writer = await openAuditWriter(resolve(ctx.io.cwd, out), format);
  ctx.onClose(() => writer.discard());
  let rows = 0;
  let broken = 0;
  const emit = (row: Parameters<Parameters<OpenedRun['rows']>[0]>[0]) => {
    rows++;
    return writer.row(row);
  };
  for (const info of picked) {
    let opened: OpenedRun | undefined;
    let problem: string | undefined;
    try {
      opened = await (info.header.op === 'payout' ? openPayoutRun : openBulkRun)(state, info.header);
    } catch (err) {
      // Said in the export, in the run's place, rather than leaving the run out.
      problem = err instanceof Error ? err.message : String(err);
    }
    if (opened?.chain.broken || problem) broken++;
    await writer.run(
      runData(info, await rawApproval(state, info.runId).catch(() => undefined), opened?.chain, problem),
    );
    await opened?.rows(emit);
  }
  for (const d of unreadable) {
    broken++;
    const info: RunInfo = {
      runId: d.runId,
      dir: d.dir,
      state: 'interrupted',
      header: {
        type: 'header',
        v: 0,
        runId: d.runId,
        createdAt: new Date(idTime(d.runId)).toISOString(),
        op: '',
      },
    };
    await writer.run(runData(info, undefined, undefined, d.error.message));
  }
  await writer.end();

  const n = picked.length + unreadable.length;
  ctx.log.info(
    `audit export: ${formatCount(n)} run${n === 1 ? '' : 's'} created ${opts.from} to ${opts.to}, ${formatCount(rows)} row${rows === 1 ? '' : 's'}, written to ${out}`,
  );
  if (broken > 0) {
    ctx.log.warn(
      `payops: ${broken} run${broken === 1 ? "'s journal" : "s' journals"} cannot be trusted as written (chain broken or journal unreadable): see the chain and chain_break columns; \`payops runs verify ID --journal\` names the line`,
    );
  }
  // A journal that does not verify is not a clean audit: a script must notice.
  return broken > 0 ? ExitCode.config : ExitCode.ok;
}
