import type { Command } from 'commander';
import type { App } from './app.js';

export function registerRuns(program: Command, app: App): void {
  const runs = program.command('runs').description('bulk runs and their journals');
  runs
    .command('list')
    .description('list runs, newest first (id, operation, file, counts, state)')
    .action(app.action(async (ctx) => (await import('../history/list.js')).listRunsCommand(ctx)));
  runs
    .command('show')
    .description('show the results of run ID, regenerated from its journal (sends nothing)')
    .argument('<id>', 'run id, as in `payops runs list`')
    .action(
      app.action(async (ctx, _opts, args) => (await import('../history/runs.js')).showRun(ctx, args[0]!)),
    );
  runs
    .command('resume')
    .description('resume the interrupted run ID: reconcile unknown requests, send the rest')
    .argument('<id>', 'run id, as in `payops runs list`')
    .action(
      app.action(async (ctx, _opts, args) => (await import('../history/runs.js')).resumeRun(ctx, args[0]!)),
    );
}
