import { Argument, type Command } from 'commander';
import type { App } from './app.js';
import { addAllPayFieldFlags } from './pay.js';

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
      app.action(async (ctx, _opts, args, cmd) => {
        // The pay commands generate their ~200 field flags only when they run; completion lists them
        // all. Added here, in the shell, with the shell's own commander.
        await addAllPayFieldFlags(cmd.parent!);
        return (await import('../completion/run.js')).runCompletion(ctx, args[0]!, cmd);
      }),
    );
}
