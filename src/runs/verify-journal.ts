// `payops runs verify ID --journal`: the run journal's hash chain checked offline (lifecycle/chain.ts,
// docs/audit.md) — no gateway, no credentials, nothing written. Names the first record that was
// changed, removed or reordered; with --head, compares the journal's end with a head kept elsewhere
// (an audit export, a plan), which is what shows the last records changed or cut away.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PLAN_ID, readUse } from '../approval/registry.js';
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import {
  type ChainReport,
  chainLines,
  checkChain,
  compareHead,
  type HeadFinding,
} from '../lifecycle/chain.js';
import { assertRunExists, JOURNAL_FILE, runDir } from '../lifecycle/paths.js';
import { readRunHeader } from '../lifecycle/read.js';
import { openTextSink } from '../output/sink.js';

export interface JournalCheck {
  runId: string;
  path: string;
  report: ChainReport;
  head?: HeadFinding;
  /** Where the head compared came from: --head, or the registry entry of the run's approved plan. */
  headFrom?: 'flag' | 'plan';
}

/** The chain of run `runId` checked, and against `keptHead` when one is given. */
export async function checkRunJournal(
  state: string,
  runId: string,
  keptHead?: string,
): Promise<JournalCheck> {
  const path = join(runDir(state, runId), JOURNAL_FILE);
  await assertRunExists(path, runId);
  const { lines, torn } = chainLines(await readFile(path));
  const report = checkChain(lines, torn);
  return { runId, path, report, ...(keptHead === undefined ? {} : { head: compareHead(lines, keptHead) }) };
}

/** Whether the journal can be trusted as written: its chain whole, and its end the head kept, if any. */
export function journalIntact(c: JournalCheck): boolean {
  return c.report.broken === undefined && c.head?.kind !== 'absent';
}

/** The check said for a person, one finding a line. */
export function journalCheckLines(c: JournalCheck): string[] {
  const { report: r, runId } = c;
  const out = [`run ${runId}: journal ${c.path}`];
  out.push(
    `  ${r.lines} line${r.lines === 1 ? '' : 's'}, version ${r.version}${r.legacy ? ' (written before payops chained its records)' : ''}`,
  );
  if (r.broken) {
    const b = r.broken;
    out.push(`  chain: broken at line ${b.line} (${b.type}): ${b.why}`);
    out.push(
      `  what the journal says from line ${b.line} on cannot be trusted; \`payops runs verify ${runId}\` asks the gateway what the run did`,
    );
  } else if (r.legacy) {
    out.push('  chain: none — a version 1 journal has no hash chain, so an edit cannot be seen in it');
  } else {
    out.push(
      `  chain: intact, every record linked to the one before (line ${r.lines}, ${r.lastType}, is the last)`,
    );
  }
  if (r.head !== undefined) out.push(`  head: ${r.head}`);
  if (r.tornLine !== undefined) {
    out.push(
      `  line ${r.tornLine} is incomplete (a crash while writing it): not part of the chain; a resume cuts it`,
    );
  }
  if (c.headFrom === 'plan')
    out.push("  the head kept with the run's approved plan (<state>/plans/) is compared");
  if (c.head?.kind === 'same') out.push('  the head you hold: the journal ends there');
  else if (c.head?.kind === 'earlier') {
    out.push(
      `  the head you hold is line ${c.head.line}: the journal goes on for ${c.head.more} more record${c.head.more === 1 ? '' : 's'} after it (a resume, or records added)`,
    );
  } else if (c.head?.kind === 'absent') {
    out.push(
      '  the head you hold is no line of this journal: its last records were changed or cut away, or the whole chain was written again',
    );
  }
  return out;
}

/** The check as data (--output json). */
export function journalCheckData(c: JournalCheck): Record<string, unknown> {
  const r = c.report;
  return {
    run: c.runId,
    journal: c.path,
    version: r.version,
    lines: r.lines,
    chain: r.broken ? 'broken' : r.legacy ? 'none' : 'intact',
    head: r.head ?? null,
    last: r.lastType ?? null,
    broken: r.broken ?? null,
    torn_line: r.tornLine ?? null,
    ...(c.head ? { kept_head: c.head.kind } : {}),
    intact: journalIntact(c),
  };
}

/** `runs verify ID --journal [--head HASH]`: exit 0 when intact (or a version 1 journal), 4 when not. */
export async function verifyJournalCommand(ctx: Context, runId: string, keptHead?: string): Promise<number> {
  if (keptHead !== undefined && !/^[0-9a-fA-F]{64}$/.test(keptHead)) {
    throw new UsageError(`--head takes the 64 hex digits of a journal's head, not "${keptHead}"`, {
      hint: `an audit export's chain_head column, or \`payops runs verify ${runId} --journal\` run when the head was kept`,
    });
  }
  const state = stateDir(ctx.io.env);
  // A run of an approved plan has its head kept with the plan's use (approval/registry.ts): compared
  // unless --head names another.
  const fromPlan = keptHead === undefined ? await planHead(state, runId) : undefined;
  const c = {
    ...(await checkRunJournal(state, runId, keptHead ?? fromPlan)),
    ...(keptHead !== undefined
      ? { headFrom: 'flag' as const }
      : fromPlan !== undefined
        ? { headFrom: 'plan' as const }
        : {}),
  };
  const sink = openTextSink(ctx.io.stdout);
  await sink.ready;
  const text =
    ctx.globals.output === 'json'
      ? `${JSON.stringify(journalCheckData(c), null, 2)}\n`
      : `${journalCheckLines(c).join('\n')}\n`;
  const w = sink.write(text);
  if (w) await w;
  await sink.end();
  // A journal edited after it was written is refused as a damaged one is (exit 4).
  return journalIntact(c) ? ExitCode.ok : ExitCode.config;
}

/** The head kept with run `runId`'s approved plan when the run finished; undefined without one. */
async function planHead(state: string, runId: string): Promise<string | undefined> {
  const header = await readRunHeader(state, runId).catch(() => undefined);
  const planId = header?.approval?.planId;
  if (planId === undefined || !PLAN_ID.test(planId)) return undefined;
  const use = await readUse(state, planId).catch(() => undefined);
  return use?.runId === runId ? use.head : undefined;
}
