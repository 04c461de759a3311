import { defineCommand, defineGroup } from './define.js';

export const registerAudit = defineGroup({
  name: 'audit',
  description: 'export what runs did, for an auditor: plans, rows sent and answered, journal chain heads',
  commands: [
    defineCommand({
      name: 'export',
      description:
        'every run created between two dates to one file: who made and approved its plan, its file, each row sent and answered, its chain head',
      options: {
        from: {
          type: 'string',
          value: 'date',
          required: true,
          description: 'first day (or time) of the range, local time unless it ends in Z or ±hh:mm',
        },
        to: {
          type: 'string',
          value: 'date',
          required: true,
          description: 'last day (or time) of the range, inclusive',
        },
      },
      help: `
Offline: reads the run journals under PAYOPS_HOME, asks no gateway. --out names the file and its
kind: .xlsx and .csv have one line per order row with its run's columns repeated, .json one
document {"runs":[{…, "rows":[…]}]}. Each run's chain_head is what to keep elsewhere: later,
\`payops runs verify ID --journal --head HASH\` shows whether the journal still ends there.
Exit 0, or 4 when a run's journal does not verify (chain broken, or unreadable).

Examples:
  payops audit export --from 2026-11-01 --to 2026-11-30 --out november.xlsx
  payops audit export --from 2026-11-01 --to 2026-11-01T12:00 --out morning.json`,
      run: async (ctx, opts) =>
        (await import('../audit/run-audit.js')).runAuditExport(ctx, { from: opts.from, to: opts.to }),
    }),
  ],
});
