import type { Command } from 'commander';
import { type App, collect } from './app.js';

export function registerCall(program: Command, app: App): void {
  program
    .command('call')
    .description('send a signed raw request to any gateway path')
    .argument('<path>', 'gateway path, e.g. /v1/capture')
    .option('--json <file>', 'request body from a JSON file, or - for stdin')
    .option('--data <key=value>', 'set a body field (repeatable; a.b=1 nests, list[0].x=1 indexes)', collect)
    .option('--form', 'send form-urlencoded (default: what the endpoint takes, JSON for unknown paths)')
    .addHelpText(
      'after',
      `
merchant_id and account_id are filled from the profile when absent; encryption_data is computed.
The response is printed on stdout; its signature is checked when it carries one (exit 3 if invalid).

Examples:
  payops call /v1/capture --json body.json
  payops call /v1/retrievalTrans --data order_no=ORD-1,ORD-2
  payops call /v1/subscription/cancel --data recurring_id=R-17 --data reason.text=moved`,
    )
    .action(
      app.action(async (ctx, opts, args) => (await import('../call/run.js')).runCall(ctx, args[0]!, opts)),
    );
}
