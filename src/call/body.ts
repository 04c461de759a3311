// Builds the body of `payops call` from --json and --data key=value pairs. Dotted keys nest
// (`beneficiary.bank_details.iban=…`), `[n]` indexes arrays (`capture_orders[0].order_no=O1`), the
// same paths the signature's canonical form uses. Values stay strings, as on the wire.
import { InputError, UsageError } from '../errors.js';

type Json = Record<string, unknown>;

export function parseJsonBody(text: string, source: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${source} is not valid JSON`, [
      { file: source, message: (err as Error).message, expected: 'a JSON object such as {"order_no":"O1"}' },
    ]);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InputError(`${source} must hold a JSON object`, [{ file: source, message: 'not an object' }]);
  }
  return parsed as Json;
}

/** `a.b[0].c` → ['a', 'b', 0, 'c']. */
export function parseKeyPath(key: string): Array<string | number> {
  const out: Array<string | number> = [];
  const re = /([^.[\]]+)|\[(\d+)\]/gy;
  let pos = 0;
  while (pos < key.length) {
    if (key[pos] === '.' && pos > 0) pos++;
    re.lastIndex = pos;
    const m = re.exec(key);
    if (!m)
      throw new UsageError(`--data key "${key}" is not a valid path`, { hint: 'use a.b=1 or list[0].b=1' });
    out.push(m[1] !== undefined ? m[1] : Number(m[2]));
    pos = re.lastIndex;
  }
  if (out.length === 0 || typeof out[0] !== 'string') {
    throw new UsageError(`--data key "${key}" is not a valid path`, { hint: 'use a.b=1 or list[0].b=1' });
  }
  return out;
}

export function applyData(body: Json, pairs: readonly string[]): Json {
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw new UsageError(`--data "${pair}" is not key=value`, {
        hint: 'e.g. --data order_no=ORD-1 --data a.b=2',
      });
    }
    const path = parseKeyPath(pair.slice(0, eq));
    setPath(body, path, pair.slice(eq + 1), pair);
  }
  return body;
}

function setPath(root: Json, path: Array<string | number>, value: string, pair: string): void {
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i]!;
    const nextIsIndex = typeof path[i + 1] === 'number';
    let child = node[seg];
    if (child === undefined) {
      child = nextIsIndex ? [] : {};
      node[seg] = child;
    }
    if (typeof child !== 'object' || child === null || Array.isArray(child) !== nextIsIndex) {
      throw new UsageError(
        `--data "${pair}" conflicts with another value at "${path.slice(0, i + 1).join('.')}"`,
      );
    }
    node = child as Record<string | number, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** Form bodies are flat: refuse nested values rather than send something the gateway cannot read. */
export function assertFlat(body: Json): void {
  for (const [k, v] of Object.entries(body)) {
    if (v !== null && typeof v === 'object') {
      throw new UsageError(`"${k}" is nested, but a --form body is flat key=value pairs`, {
        hint: 'drop --form to send JSON, or give flat fields only',
      });
    }
  }
}
