import { defineCommand } from './define.js';

export const registerCall = defineCommand({
  name: 'call',
  description: 'send a signed raw request to any gateway path',
  args: { path: { description: 'gateway path, e.g. /v1/capture' } },
  options: {
    json: { type: 'string', value: 'file', description: 'request body from a JSON file, or - for stdin' },
    data: {
      type: 'string[]',
      value: 'key=value',
      description: 'set a body field (repeatable; a.b=1 nests, list[0].x=1 indexes)',
    },
    form: {
      type: 'boolean',
      description: 'send form-urlencoded (default: what the endpoint takes, JSON for unknown paths)',
    },
  },
  help: `
merchant_id and account_id are filled from the profile when absent; encryption_data is computed.
The response is printed on stdout; its signature is checked when it carries one (exit 3 if invalid).
A path that can move money (or one payops does not know) is confirmed on a terminal, needs --yes
without one, and is recorded in calls.jsonl in the state folder. A batch body over the endpoint's
limit is refused before sending; an order refused in the answer (status 0) exits 1. --dry-run
prints the signed request and sends nothing.

Examples:
  payops call /v1/capture --json body.json
  payops --dry-run call /v1/refund --json body.json
  payops call /v1/retrievalTrans --data order_no=ORD-1,ORD-2
  payops call /v1/subscription/cancel --data recurring_id=R-17 --data reason.text=moved`,
  run: async (ctx, opts, { path }) => (await import('../call/run-call.js')).runCall(ctx, path, opts),
});
