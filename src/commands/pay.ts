import type { Command } from 'commander';
import type { App } from './app.js';

export function registerPay(program: Command, app: App): void {
  const pay = program
    .command('pay')
    .description('create a payment: card, alternative method (APM) or hosted checkout');
  for (const [name, description] of [
    ['card', 'direct card payment (card number and security code from a prompt or stdin)'],
    ['apm', 'alternative payment method; prints the issuer_url for the shopper'],
    ['checkout', 'hosted checkout page'],
  ] as const) {
    pay
      .command(name)
      .description(description)
      .action(app.action(async () => (await import('./not-built.js')).notBuilt(`pay ${name}`)));
  }
}
