import { positiveInt } from './app.js';
import { defineCommand, defineGroup } from './define.js';

const RUN_ID = { id: { description: 'run id, as in `payops runs list`' } } as const;
const LATEST_ID = { id: { description: 'run id (default: the newest run)', optional: true } } as const;
const UNFINISHED_ID = {
  id: { description: 'run id (default: the only unfinished run)', optional: true },
} as const;

export const registerRuns = defineGroup({
  name: 'runs',
  description: 'list, show, check and resume the runs of bulk commands',
  help: `
Every refund, capture, cancel, review and payout run is recorded (its journal) before anything is
sent, so its results can be shown again and an interrupted run finished without sending twice.

Examples:
  payops runs list
  payops runs show --only failed,not_sent,unknown --out fix.csv
  payops runs resume`,
  commands: [
    defineCommand({
      name: 'list',
      description: 'list runs, newest first, one line each (id, when, operation, gateway, state, counts)',
      options: {
        limit: {
          type: 'number',
          value: 'n',
          description: 'only the newest N runs (after --state, --op)',
          parse: positiveInt,
        },
        state: {
          type: 'string',
          value: 'state',
          description:
            'only runs in this state: finished, interrupted, unfinished, stopped, running, damaged',
        },
        op: {
          type: 'string',
          value: 'operation',
          description: 'only runs of refund, capture, cancel, review or payout',
        },
      },
      help: `
On a terminal, one line per run. CSV and JSON (--output) carry every field:
the file, the profile, the time in UTC and every count (in JSON as numbers;
null when the run ended without recording them).

Examples:
  payops runs list --limit 10
  payops runs list --state unfinished --op refund
  payops runs list --output json`,
      run: async (ctx, opts) =>
        (await import('../runs/list.js')).listRunsCommand(ctx, {
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
          ...(opts.state !== undefined ? { state: opts.state } : {}),
          ...(opts.op !== undefined ? { op: opts.op } : {}),
        }),
    }),
    defineCommand({
      name: 'show',
      description: 'show the results of run ID, regenerated from its journal (sends nothing)',
      args: LATEST_ID,
      options: {
        only: {
          type: 'string',
          value: 'outcomes',
          description:
            "only the rows with these outcomes, e.g. failed,not_sent,unknown; to a file (--out) in the input's own columns, ready to correct and run again",
        },
      },
      help: `
Without an id, shows the newest run. The exit code is the run's: 0 all succeeded, 1 some failed,
3 some unknown, not sent or duplicated.

Examples:
  payops runs show
  payops runs show 20261123-175049-cd1f --output csv --out results.csv
  payops runs show 20261123-175049-cd1f --only failed,not_sent,unknown --out fix.csv`,
      run: async (ctx, opts, { id }) => {
        const runId = id ?? (await (await import('../runs/latest.js')).latestRunId(ctx));
        return (await import('../runs/dispatch.js')).showRunById(ctx, runId, opts.only);
      },
    }),
    defineCommand({
      name: 'verify',
      description:
        'ask the gateway about every row refund run ID sent: rows refunded twice (duplicated) or not as reported (read-only)',
      args: RUN_ID,
      options: {
        journal: {
          type: 'boolean',
          description:
            "check the run journal's hash chain instead (offline, any run): names the first record changed, removed or moved",
        },
        head: {
          type: 'string',
          value: 'hash',
          description:
            "with --journal: the journal's head kept elsewhere (an audit export); says whether the journal still ends there",
        },
      },
      help: `
With --journal nothing is asked of the gateway: exit 0 when every record is linked to the one
before (or the journal predates the chain), 4 when one was changed, removed or moved.

Examples:
  payops runs verify 20261123-175049-cd1f
  payops runs verify 20261123-175049-cd1f --output csv --out checked.csv
  payops runs verify 20261123-175049-cd1f --journal
  payops runs verify 20261123-175049-cd1f --journal --head 3f2a…(64 hex digits)`,
      run: async (ctx, opts, { id }) =>
        (await import('../runs/dispatch.js')).verifyRunById(ctx, id, {
          ...(opts.journal ? { journal: true } : {}),
          ...(opts.head !== undefined ? { head: opts.head } : {}),
        }),
    }),
    defineCommand({
      name: 'resume',
      description: 'resume the interrupted run ID: reconcile unknown requests, send the rest',
      args: UNFINISHED_ID,
      help: `
Without an id, resumes the one unfinished run; when there are several it lists them and sends
nothing, so that no run is resumed on a guess.

Examples:
  payops runs resume
  payops runs resume 20261123-175049-cd1f --yes`,
      run: async (ctx, _opts, { id }) => {
        const runId = id ?? (await (await import('../runs/latest.js')).unfinishedRunId(ctx));
        return (await import('../runs/dispatch.js')).resumeRunById(ctx, runId);
      },
    }),
  ],
});
