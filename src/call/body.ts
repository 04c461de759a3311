// Builds the body of `payops call` from --json and --data key=value pairs. Dotted keys nest
// (`beneficiary.bank_details.iban=…`), `[n]` indexes arrays (`capture_orders[0].order_no=O1`), the
// same paths the signature's canonical form uses. Values stay strings, as on the wire.
//
// Bodies are objects without a prototype, and the keys __proto__, constructor and prototype are
// refused: `--data __proto__.merchant_id=999` would otherwise write to Object.prototype, and the
// client, seeing a merchant_id, would sign and send a body without one.
import { InputError, UsageError } from '../errors.js';
import { PROTOTYPE_KEYS } from '../pay/schema.js';
import { quote } from '../quote.js';

type Json = Record<string, unknown>;

/** An object without a prototype, holding `entries` as its own keys. */
function bare(entries: Iterable<[string, unknown]> = []): Json {
  const out: Json = Object.create(null);
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** The paths (a.b[0].c) of prototype keys anywhere in a parsed JSON value. */
function prototypeKeys(value: unknown, path: string, out: string[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      prototypeKeys(v, `${path}[${i}]`, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = path === '' ? k : `${path}.${k}`;
      if (PROTOTYPE_KEYS.has(k)) out.push(p);
      else prototypeKeys(v, p, out);
    }
  }
}

export function parseJsonBody(text: string, source: string): Json {
  let parsed: unknown;
  try {
    // Every object of the body is built without a prototype, as --data builds its own.
    parsed = JSON.parse(text, (_key, value: unknown) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? bare(Object.entries(value))
        : value,
    );
  } catch (err) {
    throw new InputError(`${source} is not valid JSON`, [
      { file: source, message: (err as Error).message, expected: 'a JSON object such as {"order_no":"O1"}' },
    ]);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InputError(`${source} must hold a JSON object`, [{ file: source, message: 'not an object' }]);
  }
  const bad: string[] = [];
  prototypeKeys(parsed, '', bad);
  if (bad.length > 0) {
    throw new InputError(
      `${source} has keys named __proto__, constructor or prototype; nothing was sent`,
      bad.map((field) => ({
        file: source,
        field,
        message: 'is not a field any request has, and could change what is signed',
      })),
      { hint: 'remove these keys from the body' },
    );
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
      throw new UsageError(`--data key ${quote(key)} is not a valid path`, {
        hint: 'use a.b=1 or list[0].b=1',
      });
    if (m[1] !== undefined && PROTOTYPE_KEYS.has(m[1])) {
      throw new UsageError(`--data key ${quote(key)} names ${m[1]}, which no request has`, {
        hint: '__proto__, constructor and prototype would change what is signed; give the field itself, e.g. --data merchant_id=…',
      });
    }
    out.push(m[1] !== undefined ? m[1] : Number(m[2]));
    pos = re.lastIndex;
  }
  if (out.length === 0 || typeof out[0] !== 'string') {
    throw new UsageError(`--data key ${quote(key)} is not a valid path`, {
      hint: 'use a.b=1 or list[0].b=1',
    });
  }
  return out;
}

export function applyData(body: Json, pairs: readonly string[]): Json {
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw new UsageError(`--data ${quote(pair)} is not key=value`, {
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
    let child = Object.hasOwn(node, seg) ? node[seg] : undefined;
    if (child === undefined) {
      child = nextIsIndex ? [] : bare();
      node[seg] = child;
    }
    if (typeof child !== 'object' || child === null || Array.isArray(child) !== nextIsIndex) {
      throw new UsageError(
        `--data ${quote(pair)} conflicts with another value at ${quote(path.slice(0, i + 1).join('.'))}`,
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
      throw new UsageError(`${quote(k)} is nested, but a --form body is flat key=value pairs`, {
        hint: 'drop --form to send JSON, or give flat fields only',
      });
    }
  }
}
