import { Argument, type Command } from 'commander';
import type { App } from './app.js';

export function registerCompletion(program: Command, app: App): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh, fish)')
    .addArgument(new Argument('<shell>', 'shell to complete for').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      `
Install:
  bash  echo 'source <(payops completion bash)' >> ~/.bashrc
  zsh   echo 'source <(payops completion zsh)' >> ~/.zshrc
  fish  payops completion fish > ~/.config/fish/completions/payops.fish`,
    )
    .action(
      app.action(async (ctx, _opts, args, cmd) =>
        (await import('../completion/run.js')).runCompletion(ctx, args[0]!, cmd),
      ),
    );
}
