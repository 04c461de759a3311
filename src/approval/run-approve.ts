// `payops approve X.plan [--rows N] [--reject --reason TEXT]` (docs/approvals.md): a checker's
// decision on a plan, added to the plan file as their signature. Offline: no gateway credentials,
// nothing asked of the gateway. Every signature already there is checked first (verify.ts), the
// plan is shown, and an approval needs its row count typed (or --rows N without a terminal).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { stderrWidth } from '../bulk/report/ui.js';
import { readStoredConfig } from '../config/file.js';
import { writeJsonAtomic } from '../config/json-file.js';
import { selectProfile } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ConfigError, UsageError } from '../errors.js';
import { ask, canAsk } from '../output/prompt.js';
import { formatCount } from '../output/summary.js';
import { hiddenTextProblem, quote, terminalSafe } from '../quote.js';
import { approversPath, formatKeyLine } from './approvers.js';
import { assertCopyIsPlanned, copyLines, readCopy } from './check-copy.js';
import { loadSigningKey, readPublicKey } from './keys.js';
import { PLAN_FILE_MODE } from './make-plan.js';
import { checkerMessage, type PlanFile, type PlanSignature, signText } from './plan-doc.js';
import { approveScreenLines, fitPlanLines } from './plan-view.js';
import { loadApprovers, readPlanFile, type VerifiedPlan, verifyPlan, who } from './verify.js';

export interface ApproveFlags {
  rows?: number;
  reject?: boolean;
  reason?: string;
  /** The checker's own copy of the file: read as the plan says, its rows digest must be the plan's. */
  file?: string;
  /** With file: its rows shown before the decision. */
  list?: boolean;
}

const MAX_REASON = 500;

function reasonOf(flags: ApproveFlags): string | undefined {
  if (!flags.reject) {
    if (flags.reason !== undefined)
      throw new UsageError('--reason goes with --reject: an approval has no reason');
    return undefined;
  }
  const reason = flags.reason?.trim();
  if (!reason) {
    throw new UsageError('--reject needs --reason TEXT: the maker must learn why', {
      hint: 'payops approve X.plan --reject --reason "row 12 refunds the wrong order"',
    });
  }
  const hidden = hiddenTextProblem(reason, 'reason');
  if (hidden) throw new UsageError(`--reason ${hidden}`);
  if (reason.length > MAX_REASON) throw new UsageError(`--reason is longer than ${MAX_REASON} characters`);
  return reason;
}

/** The row count typed at the prompt, or --rows; refused when it is not the plan's. */
async function confirmRows(ctx: Context, v: VerifiedPlan, flags: ApproveFlags): Promise<void> {
  const want = v.plan.rows;
  let given: string;
  if (flags.rows !== undefined) given = String(flags.rows);
  else if (canAsk(ctx.io)) {
    given = await ask(
      ctx.io,
      ({ input }, streams) =>
        input({ message: `type the number of rows (${formatCount(want)}) to approve this plan:` }, streams),
      'saved',
    );
  } else {
    throw new UsageError('there is no terminal to type the row count at: give it with --rows N', {
      hint: `--rows ${want} approves this plan (the count you checked)`,
    });
  }
  if (given.replace(/[,\s_]/g, '') !== String(want)) {
    throw new UsageError(
      `not approved: the row count given was ${JSON.stringify(given.trim())}, the plan has ${formatCount(want)} rows`,
    );
  }
}

/**
 * The profile's approval keys only: not the gateway's settings, which an approver need not have
 * (resolving them would refuse a profile without base_url, or start the sandbox).
 */
export function approvalSettings(ctx: Context): {
  profile: string;
  approversFile?: string;
  approvals?: number;
} {
  const { env } = ctx.io;
  const stored = readStoredConfig(env);
  const { name, source } = selectProfile(ctx.globals, env, stored);
  const values = stored.profiles?.[name];
  if (values === undefined && (source === 'flag' || source === 'env')) {
    throw new ConfigError(`there is no profile "${name}"`);
  }
  return {
    profile: name,
    ...(values?.approvers_file === undefined ? {} : { approversFile: values.approvers_file }),
    ...(values?.approvals === undefined ? {} : { approvals: values.approvals }),
  };
}

export async function runApprove(ctx: Context, planPath: string, flags: ApproveFlags): Promise<number> {
  if (ctx.globals.out !== undefined) {
    throw new UsageError('--out is not used: approve adds its signature to the plan file itself');
  }
  const reason = reasonOf(flags);
  if (flags.list && flags.file === undefined)
    throw new UsageError('--list goes with --file FILE: the rows listed are those of your copy of the file');
  if (flags.reject && flags.rows !== undefined)
    throw new UsageError('--rows goes with an approval, not with --reject');
  const config = approvalSettings(ctx);
  const approvers = await loadApprovers(approversPath(config.approversFile, ctx.io.env, config.profile));
  const path = resolve(ctx.io.cwd, planPath);
  const before = await readFile(path).catch(() => undefined);
  const file = await readPlanFile(path);
  const v = verifyPlan(file, approvers, new Date(), planPath);

  const me = readPublicKey(ctx.io.env);
  if (me.fingerprint === v.maker.fingerprint) {
    throw new UsageError(
      `${planPath}: you made this plan (${who(me)}); someone else must approve or reject it`,
    );
  }
  if (!approvers.some((a) => a.fingerprint === me.fingerprint && a.publicKey === me.publicKey)) {
    throw new UsageError(`${planPath}: your key ${who(me)} is not in the approvers file`, {
      hint: `whoever keeps the approvers file adds your line: ${formatKeyLine(me)}`,
    });
  }
  const earlier = file.signatures.find((s) => s.fingerprint === me.fingerprint);
  if (earlier) {
    throw new UsageError(
      `${planPath}: you ${earlier.role === 'reject' ? 'rejected' : 'approved'} this plan already, at ${earlier.at}`,
    );
  }
  if (!flags.reject && v.rejections.length > 0) {
    const r = v.rejections[0]!;
    throw new UsageError(
      `${planPath}: ${who(r)} rejected this plan: ${quote(r.reason)}; it cannot be approved`,
      {
        hint: 'the maker makes a new plan (payops plan) once the file is corrected',
      },
    );
  }

  // The checker's copy first: a copy that is not the file planned ends it before anything is shown.
  const copy =
    flags.file === undefined
      ? undefined
      : await readCopy(ctx.io.cwd, flags.file, v.plan, Boolean(flags.list));
  if (copy) assertCopyIsPlanned(copy, v.plan, flags.file!);

  // What a person must see to decide, whatever --quiet says; fitted to the terminal, broken at spaces.
  const { columns } = stderrWidth(ctx);
  const screen = approveScreenLines(v, planPath);
  screen.push(
    copy
      ? `  your copy  ${terminalSafe(flags.file!)}: the rows planned (rows digest ${v.plan.rowsDigest.slice(0, 16)}…)`
      : `  check your own copy of the file against the plan's rows: payops approve ${planPath} --file FILE [--list]`,
  );
  ctx.io.stderr.write(`${fitPlanLines(screen, columns).join('\n')}\n`);
  if (copy && flags.list) ctx.io.stderr.write(`${copyLines(copy, columns).join('\n')}\n`);
  if (!flags.reject) await confirmRows(ctx, v, flags);

  const key = await loadSigningKey(ctx);
  if (key.ref.fingerprint !== me.fingerprint)
    throw new ConfigError('your key file changed while you decided; run again');
  const after = await readFile(path).catch(() => undefined);
  if (!before || !after || !before.equals(after)) {
    throw new UsageError(`${planPath} changed while you decided (another approval?): nothing was signed`, {
      hint: `run \`payops approve ${planPath}\` again to see it as it is now`,
    });
  }
  const unsigned: Omit<PlanSignature, 'signature'> = {
    ...key.ref,
    role: flags.reject ? 'reject' : 'approve',
    at: new Date().toISOString(),
    ...(reason === undefined ? {} : { reason }),
  };
  const signature = signText(
    key.privateKey,
    checkerMessage(file.plan, file.signatures[0]!.signature, unsigned),
  );
  const next: PlanFile = { ...file, signatures: [...file.signatures, { ...unsigned, signature }] };
  writeJsonAtomic(path, next, PLAN_FILE_MODE);

  if (flags.reject) {
    ctx.log.info(`rejected ${planPath} as ${who(key.ref)}: ${quote(reason!)}`);
    ctx.log.info('the plan cannot run; the maker makes a new one once the file is corrected');
    return 0;
  }
  const count = v.approvals.length + 1;
  const needed = config.approvals ?? 1;
  ctx.log.info(
    `approved ${planPath} as ${who(key.ref)}: ${count} approval${count === 1 ? '' : 's'}, the profile asks for ${needed}`,
  );
  ctx.log.info(
    count >= needed
      ? `next: the run, given this plan: payops ${v.plan.op} ${v.plan.file.name} --plan ${planPath}`
      : `next: ${needed - count} more approver${needed - count === 1 ? '' : 's'} run \`payops approve ${planPath}\``,
  );
  return 0;
}
