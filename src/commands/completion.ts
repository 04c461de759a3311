import type { Command } from 'commander';
import type { App } from './app.js';
import { defineCommand } from './define.js';
import { addAllOptions } from './on-demand.js';
import { addAllPayFieldFlags } from './pay.js';

export const registerCompletion = defineCommand({
  name: 'completion',
  description: 'print a shell completion script (bash, zsh, fish)',
  args: { shell: { description: 'shell to complete for', choices: ['bash', 'zsh', 'fish'] } },
  help: `
Completes commands, options, profile names (--profile, config use), run ids (runs show, resume,
verify) and file names.

Install:
  bash  echo 'source <(payops completion bash)' >> ~/.bashrc
  zsh   echo 'source <(payops completion zsh)' >> ~/.zshrc
  fish  payops completion fish > ~/.config/fish/completions/payops.fish`,
  run: async (ctx, _opts, { shell }, cmd) => {
    // Options are added when their command runs (define.ts), and the pay commands generate their
    // ~200 field flags only then; completion lists them all. Added here, in the shell, with the
    // shell's own commander.
    addAllOptions(cmd.parent!);
    await addAllPayFieldFlags(cmd.parent!);
    return (await import('../completion/run-completion.js')).runCompletion(ctx, shell, cmd);
  },
});

/** `payops __complete profiles|runs`: what the completion scripts call for values (hidden). */
export function registerCompleteValues(program: Command, app: App): Command {
  return program
    .command('__complete', { hidden: true })
    .argument('<kind>')
    .action(
      app.action(async (ctx, cmd) =>
        (await import('../completion/values.js')).printValues(ctx, String(cmd.args[0])),
      ),
    );
}
