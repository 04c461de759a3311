import { CommanderError } from 'commander';
import { defineCommand } from './define.js';

function portNumber(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new CommanderError(2, 'commander.invalidArgument', `${flag} must be 0–65535, not "${value}"`);
  }
  return Number(value);
}

export const registerListen = defineCommand({
  name: 'listen',
  description: "receive the gateway's event notifications: verify, keep, forward (until Ctrl-C)",
  options: {
    port: {
      type: 'number',
      value: 'port',
      description: 'port to listen on; 0 picks a free one',
      parse: portNumber,
      required: true,
    },
    host: {
      type: 'string',
      value: 'host',
      description: 'address to listen on (loopback by default; another one behind your TLS proxy)',
      default: '127.0.0.1',
    },
    'forward-to': {
      type: 'string',
      value: 'url',
      description: 'post every new event to your app at URL, retried until it answers 2xx',
    },
  },
  help: `
Every event is checked against the profile's sign key, merchant and account: a forged or foreign
one is answered 401/403 and kept nowhere. A new event is written to the events journal
(<state>/events/events.jsonl) and flushed to disk before the gateway is answered 200; the same
event_id again is answered 200 and not kept twice. One line per new event on stdout (JSON lines
with --output json). With --forward-to, events not yet forwarded are sent again after a restart.
One listen per PAYOPS_HOME at a time. Point the payment's notify_url at it. See docs/events.md.

Examples:
  payops listen --port 8788
  payops listen --port 8788 --forward-to http://localhost:3000/webhooks
  payops --output json listen --port 8788 | jq .event_type`,
  run: async (ctx, opts) =>
    (await import('../events/listen.js')).runListen(ctx, {
      port: opts.port,
      host: opts.host,
      ...(opts.forwardTo !== undefined ? { forwardTo: opts.forwardTo } : {}),
    }),
});
