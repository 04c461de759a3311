import { defineCommand, defineGroup } from './define.js';

const RUN_ID = { id: { description: 'run id, as in `payops runs list`' } } as const;

export const registerRuns = defineGroup({
  name: 'runs',
  description: 'bulk runs and their journals',
  commands: [
    defineCommand({
      name: 'list',
      description: 'list runs, newest first (id, operation, file, counts, state)',
      run: async (ctx) => (await import('../history/list.js')).listRunsCommand(ctx),
    }),
    defineCommand({
      name: 'show',
      description: 'show the results of run ID, regenerated from its journal (sends nothing)',
      args: RUN_ID,
      run: async (ctx, _opts, { id }) => (await import('../history/runs.js')).showRun(ctx, id),
    }),
    defineCommand({
      name: 'verify',
      description:
        'ask the gateway about every row refund run ID sent: rows refunded twice (duplicated) or not as reported (read-only)',
      args: RUN_ID,
      run: async (ctx, _opts, { id }) => (await import('../history/runs.js')).verifyRun(ctx, id),
    }),
    defineCommand({
      name: 'resume',
      description: 'resume the interrupted run ID: reconcile unknown requests, send the rest',
      args: RUN_ID,
      run: async (ctx, _opts, { id }) => (await import('../history/runs.js')).resumeRun(ctx, id),
    }),
  ],
});
