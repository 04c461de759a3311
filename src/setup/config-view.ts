// Rendering of the config commands' results. The sign key is never rendered: only whether it is set.
import type { Io } from '../io.js';

export interface ProfileView {
  name: string;
  current: boolean;
  /** Key → display text (sign key already masked by the caller). */
  values: Array<[string, string]>;
}

export function printConfigList(
  io: Io,
  view: { path: string; profiles: ProfileView[] },
  format: 'json' | 'text',
): void {
  if (format === 'json') {
    const profiles: Record<string, Record<string, string>> = {};
    for (const p of view.profiles) profiles[p.name] = Object.fromEntries(p.values);
    const current = view.profiles.find((p) => p.current)?.name ?? null;
    io.stdout.write(`${JSON.stringify({ path: view.path, current, profiles }, null, 2)}\n`);
    return;
  }
  const lines: string[] = [];
  for (const p of view.profiles) {
    lines.push(`${p.current ? '*' : ' '} ${p.name}${p.current ? ' (current)' : ''}`);
    const width = Math.max(0, ...p.values.map(([k]) => k.length));
    for (const [k, v] of p.values) lines.push(`    ${k.padEnd(width)}  ${v}`);
  }
  io.stdout.write(lines.length ? `${lines.join('\n')}\n` : '');
}

/** One value on stdout (config get). */
export function printValue(io: Io, value: string): void {
  io.stdout.write(`${value}\n`);
}
