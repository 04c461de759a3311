// Renders `payops status`: `key  value  (from …)` lines for a person, or one JSON object for
// scripts. Values that came from the user or the gateway (a URL, a file name) are made
// terminal-safe; the sign key is never here (the report carries only "set" / "not set").
import type { Io } from '../io.js';
import { terminalSafe } from '../quote.js';
import type { StatusReport } from './types.js';

function lines(r: StatusReport): string[] {
  const out: string[] = [];
  const c = r.check;
  const kv = (k: string, v: string) => out.push(`${k.padEnd(12)}${v}`);
  kv('profile', `${r.profile.name} (${r.profile.from})${r.profile.exists ? '' : ', not in the config file'}`);
  kv(
    'gateway',
    r.gateway.sandbox ? `${r.gateway.url} — built-in sandbox, no real money` : r.gateway.url || '(none)',
  );
  kv('  answers', c.answers === 'yes' && c.ms !== undefined ? `yes (${c.ms} ms)` : c.answers);
  kv('  key', c.keyAccepted === 'yes' ? 'accepted' : c.keyAccepted === 'no' ? 'refused' : c.keyAccepted);
  kv(
    '  query',
    c.queryAllowed === 'yes'
      ? 'allowed from this machine'
      : c.queryAllowed === 'no'
        ? "refused: this machine's IP address is not registered"
        : c.queryAllowed,
  );
  if (c.problem) {
    out.push(`  problem:  ${c.problem.message}`);
    if (c.problem.hint) out.push(`  what to do: ${c.problem.hint}`);
  }
  kv(
    'read-only',
    r.readOnly ? 'yes: refunds, captures, payments and payouts are refused' : 'no: can move money',
  );
  out.push('settings');
  const width = Math.max(...r.settings.map((s) => s.key.length));
  const vwidth = Math.min(50, Math.max(...r.settings.map((s) => s.value.length)));
  for (const s of r.settings) out.push(`  ${s.key.padEnd(width)}  ${s.value.padEnd(vwidth)}  from ${s.from}`);
  kv('config file', r.configFile);
  kv('journal', r.journal);
  if (r.attention.length === 0 && r.damaged.length === 0) {
    out.push('runs        none need attention');
  } else {
    out.push('runs that need attention');
    for (const a of r.attention) {
      out.push(`  ${a.runId}  ${a.op} ${a.file}: ${a.why}`);
      out.push(`      ${a.command}`);
    }
    for (const id of r.damaged) out.push(`  ${id}  its journal cannot be read (payops runs list says why)`);
  }
  return out;
}

export function printStatus(io: Io, r: StatusReport, format: 'json' | 'text'): void {
  if (format === 'json') {
    io.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return;
  }
  io.stdout.write(`${terminalSafe(lines(r).join('\n'))}\n`);
}
