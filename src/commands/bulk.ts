import type { Command } from 'commander';
import type { App } from './app.js';

const DESCRIPTIONS = {
  capture: 'capture authorised orders from a CSV file or one order by flags',
  cancel: 'cancel authorised or held orders from a CSV file or one order by flags',
  review: 'approve (1) or reject (0) orders held for review, from a CSV file or by flags',
  refund: 'refund captured orders, fully or partially, from a CSV file or one order by flags',
} as const;

export function registerBulk(program: Command, app: App): void {
  for (const [name, description] of Object.entries(DESCRIPTIONS)) {
    program
      .command(name)
      .description(description)
      .action(app.action(async () => (await import('./not-built.js')).notBuilt(name)));
  }
}
