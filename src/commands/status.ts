import { defineCommand } from './define.js';

export const registerStatus = defineCommand({
  name: 'status',
  description: 'show the profile in use, where each setting comes from, and whether the gateway accepts it',
  help: `
Asks the gateway two read-only questions (a refund search and a query for an order number no one
uses), so it shows whether the gateway answers, accepts the key, and answers query calls from this
machine (the gateway only does for registered IP addresses). Nothing that moves money is sent.
Also lists runs that need attention — unfinished, or with unknown, not sent or duplicated rows —
with the command that deals with each.

Exit code: 0 all good; 4 the key, the merchant or this machine's IP address is refused (or the
profile is incomplete); 3 the gateway does not answer. Runs that need attention do not change it.

Examples:
  payops status
  payops status --profile live
  payops status --output json | jq .check`,
  run: async (ctx) => (await import('../status/status.js')).runStatus(ctx),
});
