import { defineCommand } from './define.js';
import { addAllPayFieldFlags } from './pay.js';

export const registerCompletion = defineCommand({
  name: 'completion',
  description: 'print a shell completion script (bash, zsh, fish)',
  args: { shell: { description: 'shell to complete for', choices: ['bash', 'zsh', 'fish'] } },
  help: `
Install:
  bash  echo 'source <(payops completion bash)' >> ~/.bashrc
  zsh   echo 'source <(payops completion zsh)' >> ~/.zshrc
  fish  payops completion fish > ~/.config/fish/completions/payops.fish`,
  run: async (ctx, _opts, { shell }, cmd) => {
    // The pay commands generate their ~200 field flags only when they run; completion lists them
    // all. Added here, in the shell, with the shell's own commander.
    await addAllPayFieldFlags(cmd.parent!);
    return (await import('../completion/run.js')).runCompletion(ctx, shell, cmd);
  },
});
