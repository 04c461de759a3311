// A sandbox gateway in its own process (`payops sandbox --port 0 --seed N`) and its admin API.
import { fileURLToPath } from 'node:url';
import { cleanEnv, procStats, startProcess, stop } from './proc.js';

export const BIN = fileURLToPath(new URL('../../bin/payops.js', import.meta.url));
const URL_RE = /https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+/;

/**
 * Start a sandbox; resolves once it has printed its URL and /_sandbox/health answers.
 * `urlMs` is the time to the printed URL, `readyMs` to the first healthy answer.
 */
export async function startSandbox({ seed = 0, timeoutMs = 60_000, extraArgs = [] } = {}) {
  // --quiet: no line per request on stderr. That log is for a person watching a terminal; in a
  // bench it cost the sandbox CPU per request on the same two cores as the client being measured.
  const args = [BIN, 'sandbox', '--quiet', '--host', '127.0.0.1', '--port', '0', ...extraArgs];
  if (seed > 0) args.push('--seed', String(seed));
  const started = performance.now();
  const child = startProcess(process.execPath, args, { env: cleanEnv() });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sandbox printed no URL in ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (b) => {
      output += b.toString('utf8');
      const m = URL_RE.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited (${code}) before printing its URL:\n${output}`));
    });
  });
  const urlMs = performance.now() - started;
  // Keep draining its output so a chatty sandbox never blocks on a full pipe.
  child.stdout.resume();
  child.stderr.resume();
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${url}/_sandbox/health`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch (err) {
      if (i > 600) throw err;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const readyMs = performance.now() - started;
  return {
    url,
    pid: child.pid,
    urlMs,
    readyMs,
    stats: () => procStats(child.pid),
    stop: () => stop(child),
  };
}

export async function admin(url, path, body) {
  const res = await fetch(`${url}/_sandbox/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`sandbox ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return text;
}

export async function exportOrdersCsv(url) {
  return admin(url, 'orders?format=csv');
}

export async function ledger(url) {
  return JSON.parse(await admin(url, 'ledger'));
}
