// bash, zsh and fish completion scripts generated from the command tree (tree.ts). Each script
// finds the command path typed so far (skipping options), then offers that command's subcommands
// and options plus the program's global options; after an option that takes a value it offers
// the option's choices or file names, and profile names and run ids from `payops __complete`.
import { type CompletionCommand, type CompletionOption, everyCommand } from './tree.js';

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const names = (o: CompletionOption) => [o.long, o.short].filter((n): n is string => Boolean(n));

function words(spec: CompletionCommand, root: CompletionCommand): string[] {
  const own = [
    ...spec.subcommands.map((c) => c.name),
    ...(spec.argChoices ?? []),
    ...spec.options.flatMap(names),
  ];
  const globals = spec === root ? [] : root.options.flatMap(names);
  return [...new Set([...own, ...globals])];
}

/** Options taking a value, by command path ('*' for the global ones). */
function valueOptions(root: CompletionCommand): Array<{ path: string; option: CompletionOption }> {
  const out: Array<{ path: string; option: CompletionOption }> = [];
  for (const spec of everyCommand(root)) {
    for (const option of spec.options) {
      if (option.takesValue) out.push({ path: spec === root ? '*' : spec.path, option });
    }
  }
  return out;
}

export function bashScript(root: CompletionCommand): string {
  const all = everyCommand(root);
  const paths = all.filter((s) => s !== root).map((s) => s.path);
  const prog = root.name;
  const fn = `_${prog}_complete`;
  const valueCases = valueOptions(root)
    .map(({ path, option }) => {
      const pattern = names(option)
        .map((n) => `${path === '*' ? '*' : q(path)}\\|${n}`)
        .join('|')
        .replace(/\\\|/g, '"|"');
      const action = option.choices
        ? `COMPREPLY=($(compgen -W ${q(option.choices.join(' '))} -- "$cur"))`
        : option.dynamic
          ? `COMPREPLY=($(compgen -W "$(${prog} __complete ${option.dynamic} 2>/dev/null)" -- "$cur"))`
          : option.file
            ? 'COMPREPLY=($(compgen -f -- "$cur"))'
            : 'COMPREPLY=()';
      return `    ${pattern}) ${action}; return ;;`;
    })
    .join('\n');
  const wordCases = all
    .map(
      (s) =>
        `    ${q(s.path)}) opts=${q(words(s, root).join(' '))}${s.argKind ? `; kind=${s.argKind}` : ''} ;;`,
    )
    .join('\n');
  return `# ${prog} bash completion. Load with:  source <(${prog} completion bash)
${fn}() {
  local cur prev path="" w i opts="" kind=""
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local known=" ${paths.join(' ')} "
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    if [[ "$known" == *" \${path:+$path/}$w "* ]]; then path="\${path:+$path/}$w"; fi
  done
  case "$path|$prev" in
${valueCases}
  esac
  case "$path" in
${wordCases}
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  case "$kind" in
    files) COMPREPLY+=($(compgen -f -- "$cur")) ;;
    profiles|runs) COMPREPLY+=($(compgen -W "$(${prog} __complete "$kind" 2>/dev/null)" -- "$cur")) ;;
  esac
}
complete -o default -F ${fn} ${prog}
`;
}

export function zshScript(root: CompletionCommand): string {
  const all = everyCommand(root);
  const prog = root.name;
  const paths = all.filter((s) => s !== root).map((s) => s.path);
  const esc = (s: string) => s.replace(/:/g, '\\:');
  const valueCases = valueOptions(root)
    .map(({ path, option }) => {
      const pattern = names(option)
        .map((n) => `${path === '*' ? '*' : q(path)}\\|${n}`)
        .join('|')
        .replace(/\\\|/g, '"|"');
      const action = option.choices
        ? `compadd -- ${option.choices.map(q).join(' ')}`
        : option.dynamic
          ? `compadd -- \${(f)"$(${prog} __complete ${option.dynamic} 2>/dev/null)"}`
          : option.file
            ? '_files'
            : `_message ${q(option.description || 'value')}`;
      return `    ${pattern}) ${action}; return ;;`;
    })
    .join('\n');
  const wordCases = all
    .map((s) => {
      const entries: string[] = [
        ...s.subcommands.map((c) => `${esc(c.name)}:${esc(c.description)}`),
        ...(s.argChoices ?? []).map((c) => `${esc(c)}:${esc(c)}`),
        ...[...s.options, ...(s === root ? [] : root.options)].flatMap((o) =>
          names(o).map((n) => `${esc(n)}:${esc(o.description)}`),
        ),
      ];
      return `    ${q(s.path)}) items=(${[...new Set(entries)].map(q).join(' ')})${s.argKind ? `; kind=${s.argKind}` : ''} ;;`;
    })
    .join('\n');
  return `#compdef ${prog}
# ${prog} zsh completion. Load with:  source <(${prog} completion zsh)
# or save as _${prog} in a folder of your $fpath.
_${prog}() {
  local path="" w i kind=""
  local -a items
  local -A known
  for w in ${paths.join(' ')}; do known[$w]=1; done
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    [[ "$w" == -* ]] && continue
    if (( \${+known[\${path:+$path/}$w]} )); then path="\${path:+$path/}$w"; fi
  done
  case "$path|\${words[CURRENT-1]}" in
${valueCases}
  esac
  case "$path" in
${wordCases}
  esac
  case "$kind" in
    profiles|runs) items+=(\${(f)"$(${prog} __complete $kind 2>/dev/null)"}) ;;
  esac
  _describe -t commands '${prog}' items
  [[ "$kind" == files ]] && _files
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _${prog} "$@"
else
  compdef _${prog} ${prog}
fi
`;
}

export function fishScript(root: CompletionCommand): string {
  const all = everyCommand(root);
  const prog = root.name;
  const paths = all.filter((s) => s !== root).map((s) => s.path);
  const fn = `__${prog}_path`;
  const lines = [
    `# ${prog} fish completion. Load with:  ${prog} completion fish | source`,
    `function ${fn}`,
    `  set -l known ${paths.join(' ')}`,
    '  set -l path ""',
    '  for w in (commandline -opc)[2..-1]',
    `    string match -q -- '-*' $w; and continue`,
    '    if test -z "$path"; set cand $w; else; set cand "$path/$w"; end',
    '    contains -- $cand $known; and set path $cand',
    '  end',
    '  echo $path',
    'end',
    `complete -c ${prog} -f`,
  ];
  const optionLine = (o: CompletionOption, condition?: string) => {
    const parts = [`complete -c ${prog}`];
    if (condition) parts.push(`-n ${q(condition)}`);
    if (o.long) parts.push(`-l ${o.long.replace(/^--/, '')}`);
    if (o.short) parts.push(`-s ${o.short.replace(/^-/, '')}`);
    if (o.takesValue) {
      parts.push(
        o.choices
          ? `-x -a ${q(o.choices.join(' '))}`
          : o.dynamic
            ? `-x -a ${q(`(${prog} __complete ${o.dynamic} 2>/dev/null)`)}`
            : o.file
              ? '-r -F'
              : '-x',
      );
    }
    if (o.description) parts.push(`-d ${q(o.description)}`);
    return parts.join(' ');
  };
  for (const o of root.options) lines.push(optionLine(o));
  for (const s of all) {
    const condition = `test (${fn}) = ${q(s.path)}`;
    for (const c of s.subcommands)
      lines.push(`complete -c ${prog} -n ${q(condition)} -a ${q(c.name)} -d ${q(c.description)}`);
    if (s.argChoices) lines.push(`complete -c ${prog} -n ${q(condition)} -a ${q(s.argChoices.join(' '))}`);
    if (s.argKind === 'files') lines.push(`complete -c ${prog} -n ${q(condition)} -F`);
    else if (s.argKind) {
      lines.push(
        `complete -c ${prog} -n ${q(condition)} -a ${q(`(${prog} __complete ${s.argKind} 2>/dev/null)`)}`,
      );
    }
    if (s !== root) for (const o of s.options) if (o.long !== '--help') lines.push(optionLine(o, condition));
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: Shell, root: CompletionCommand): string {
  return shell === 'bash' ? bashScript(root) : shell === 'zsh' ? zshScript(root) : fishScript(root);
}
