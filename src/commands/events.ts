import { defineCommand, defineGroup } from './define.js';

const FILTERS = {
  type: {
    type: 'string',
    value: 'types',
    description: 'only these event types, comma-separated (payment.approved, payout.completed, …)',
  },
  'order-no': {
    type: 'string',
    value: 'id',
    description: "only one order's events (or a payout's request_id)",
  },
  since: {
    type: 'string',
    value: 'time',
    description: 'only events created since TIME (2026-12-06 14:00, …Z/±hh:mm) or a span back: 30m, 2h, 7d',
  },
} as const;

export const registerEvents = defineGroup({
  name: 'events',
  description: 'list, show and resend the events payops listen received (its events journal)',
  help: `
Every event \`payops listen\` accepted is kept in the events journal (<state>/events/events.jsonl),
with the exact bytes the gateway signed. See docs/events.md.

Examples:
  payops events list --since 2h
  payops events show EV20261206A1B2C3
  payops events resend --order-no ORD-1001 --forward-to http://localhost:3000/webhooks`,
  commands: [
    defineCommand({
      name: 'list',
      description:
        'list journaled events, oldest first (received, id, type, order/payout, amount, status, forwarded)',
      options: FILTERS,
      help: `
Examples:
  payops events list
  payops events list --type payment.refunded,payment.cancelled --since 7d
  payops events list --order-no ORD-1001 --output json`,
      run: async (ctx, opts) => (await import('../events/run-events.js')).listEvents(ctx, opts),
    }),
    defineCommand({
      name: 'show',
      description:
        "show one event whole (pretty JSON) and whether its signature verifies with the profile's key",
      args: { id: { description: 'event id (EV…), as in `payops events list`' } },
      help: `
Exit 4 when the stored event does not verify with the profile's sign key (another profile's event).

Examples:
  payops events show EV20261206A1B2C3`,
      run: async (ctx, _opts, { id }) => (await import('../events/run-events.js')).showEvent(ctx, id),
    }),
    defineCommand({
      name: 'resend',
      description:
        'replay stored events (their original bytes, marked Payops-Replay) to your app; exit 1 if any failed',
      args: { ids: { description: 'event ids (or use a filter, or --all)', optional: true, variadic: true } },
      options: {
        ...FILTERS,
        all: { type: 'boolean', description: 'every journaled event' },
        'forward-to': {
          type: 'string',
          value: 'url',
          description: 'the app to post them to',
          required: true,
        },
      },
      help: `
Events go one at a time, in the journal's order, each with Payops-Event-Id,
Payops-Delivery: <id>/replay and Payops-Replay: true; one line per event says its answer.

Examples:
  payops events resend EV20261206A1B2C3 --forward-to http://localhost:3000/webhooks
  payops events resend --since 2026-12-06T14:00 --forward-to http://localhost:3000/webhooks
  payops events resend --all --forward-to http://localhost:3000/webhooks`,
      run: async (ctx, opts, { ids }) =>
        (await import('../events/run-events.js')).resendEvents(ctx, ids ?? [], opts),
    }),
  ],
});
