import { type Command, Option } from 'commander';
import type { FlagGroup, PaymentKind } from '../pay/fields.js';
import type { App } from './app.js';
import { defineCommand, defineGroup } from './define.js';

const GROUP_ORDER: readonly FlagGroup[] = [
  'Order',
  'Alternative method',
  'Shopper',
  'Person (APM)',
  'Billing address',
  'Delivery address',
  'Device and session',
  'Card and checkout',
];

/**
 * Adds one flag per request field (`shopper_email` → `--shopper-email`), grouped in the help. Called
 * only when a pay subcommand is about to run (or show its help): ~200 generated options cost tens of
 * milliseconds to build, which every other invocation of payops must not pay.
 */
export async function addFieldFlags(cmd: Command, kind: PaymentKind): Promise<void> {
  if (cmd.options.some((o) => o.long === '--amount')) return;
  const { flagFields } = await import('../pay/fields.js');
  const fields = flagFields(kind);
  for (const group of GROUP_ORDER) {
    for (const f of fields) {
      if (f.group !== group) continue;
      cmd.addOption(new Option(`${f.flag} <value>`, f.help).helpGroup(`${group} fields:`));
    }
  }
}

/** Adds the generated flags to every pay subcommand (for `payops completion`, which lists them all). */
export async function addAllPayFieldFlags(program: Command): Promise<void> {
  const pay = program.commands.find((c) => c.name() === 'pay');
  for (const sub of pay?.commands ?? []) {
    const kind = sub.name();
    if (kind === 'card' || kind === 'apm' || kind === 'checkout') await addFieldFlags(sub, kind);
  }
}

const COMMON_HELP = `
A flag is the request field's name with "_" written as "-"; --request FILE.json gives a whole
request (nested objects included) and flags override its fields. order_no is generated and printed
when omitted. The card number and security code are never accepted as arguments or in files.
Every payment is confirmed on a terminal; without one it needs --yes (--dry-run sends nothing).`;

// Each pay subcommand's `opts` also holds the generated field flags (addFieldFlags); runPay reads
// them by the fields table, which is why PayFlags has an index signature.
/** --wait of apm and checkout: the shopper finishes on another page. */
const WAIT_FOR_SHOPPER = {
  type: 'string',
  value: 'duration',
  optionalValue: true,
  description: 'wait for the shopper to finish: the final state on stdout, up to DURATION (default 10m)',
} as const;

const payCommands = defineGroup({
  name: 'pay',
  description: 'create a payment: card, alternative method (APM) or hosted checkout',
  setup: (pay) =>
    pay.hook('preSubcommand', async (_pay, sub) => {
      const kind = sub.name();
      if (kind === 'card' || kind === 'apm' || kind === 'checkout') await addFieldFlags(sub, kind);
    }),
  commands: [
    defineCommand({
      name: 'card',
      description: 'direct card payment (card number and security code from a hidden prompt or stdin)',
      options: {
        request: {
          type: 'string',
          value: 'file',
          description: 'JSON payment request without card data; flags override its fields',
        },
        expiry: {
          type: 'string',
          value: 'MM/YYYY',
          description: 'card expiry month and year (MM/YYYY or MM/YY)',
        },
        wait: {
          type: 'string',
          value: 'duration',
          optionalValue: true,
          description:
            'when pending (3-D Secure, review): wait for the final state, up to DURATION (default 10m)',
        },
      },
      help: `${COMMON_HELP}
On a terminal payops asks for the card number and security code (hidden); otherwise it reads
them from stdin, one per line. Exit 0 approved, 1 declined, 3 pending (3-D Secure, review) or unknown.
With --wait [DURATION] a pending payment is waited for, as for pay apm (docs/payments.md): 0 approved,
1 declined or cancelled, 3 still pending at the deadline, 130 Ctrl-C (the payment stays as it is).

Examples:
  payops pay card --amount 12.50 --currency USD --expiry 12/2030 --shopper-email a@example.com
  printf '%s\\n%s\\n' "$CARD" "$CVC" | payops pay card --request samples/card-request.json --expiry 12/2030 --output json --yes`,
      run: async (ctx, opts, _args, cmd) =>
        (await import('../pay/run-pay.js')).runPay('card', ctx, opts, cmd),
    }),
    defineCommand({
      name: 'apm',
      description: 'alternative payment method; prints the issuer_url to send the shopper to',
      options: {
        request: {
          type: 'string',
          value: 'file',
          description: 'JSON payment request (APM fields and person); flags override its fields',
        },
        open: { type: 'boolean', description: 'open the issuer_url in the browser' },
        serve: {
          type: 'boolean',
          description: 'with the in-process sandbox: keep serving its URLs until Ctrl-C',
        },
        wait: WAIT_FOR_SHOPPER,
      },
      help: `${COMMON_HELP}
The issuer_url is printed on stdout. Exit 0 when it came back, 3 when the answer was lost.
With --wait [DURATION] payops waits for the final state (default 10m; 90s, 5m, 1h): by the events a
running \`payops listen\` journals, else by asking the gateway (order query) with backoff. The payment as
created goes to stderr then, the final order to stdout. Exit 0 approved or captured, 1 declined or
cancelled, 3 still pending at the deadline (payops query looks again later), 130 Ctrl-C (waiting
stops; the payment stays as it is).

Examples:
  payops pay apm --payment-method PIX --amount 50.00 --currency BRL --person-email a@example.com
  payops pay apm --request samples/apm-request.json --open --wait 15m`,
      run: async (ctx, opts, _args, cmd) => (await import('../pay/run-pay.js')).runPay('apm', ctx, opts, cmd),
    }),
    defineCommand({
      name: 'checkout',
      description: 'hosted checkout: save the page (--out FILE) or open it, and list its form fields',
      options: {
        request: {
          type: 'string',
          value: 'file',
          description: 'JSON payment request without card data; flags override its fields',
        },
        open: { type: 'boolean', description: 'open the checkout page in the browser' },
        serve: {
          type: 'boolean',
          description: 'with the in-process sandbox: keep serving its URLs until Ctrl-C',
        },
        wait: WAIT_FOR_SHOPPER,
      },
      help: `${COMMON_HELP}
The page's form (action, method, hidden fields) is reported as a card or JSON; the page itself is
written to --out FILE. Exit 0 when the page came back, 3 when the answer was lost.
With --wait [DURATION] payops waits for the final state (default 10m; 90s, 5m, 1h): by the events a
running \`payops listen\` journals, else by asking the gateway (order query) with backoff. The payment as
created goes to stderr then, the final order to stdout. Exit 0 approved or captured, 1 declined or
cancelled, 3 still pending at the deadline (payops query looks again later), 130 Ctrl-C (waiting
stops; the payment stays as it is).

Examples:
  payops pay checkout --request samples/checkout-request.json --out checkout.html
  payops pay checkout --request samples/checkout-request.json --open --wait`,
      run: async (ctx, opts, _args, cmd) =>
        (await import('../pay/run-pay.js')).runPay('checkout', ctx, opts, cmd),
    }),
  ],
});

// Card data in arguments is refused for every command, pay included: src/commands/argv-guard.ts.
export function registerPay(program: Command, app: App): Command {
  return payCommands(program, app);
}
