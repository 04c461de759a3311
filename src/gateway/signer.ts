// The request/response signature of design.md §1.1. One small module behind the `Signer`
// interface, so that a gateway with another scheme needs only a new implementation here.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignableBody = Record<string, unknown>;

export interface Signer {
  /** Signature of a body; any top-level `encryption_data` in it is ignored. */
  sign(body: SignableBody): string;
  /** Constant-time check of `signature` against the body's own signature. */
  verify(body: SignableBody, signature: string): boolean;
}

const SIGNATURE_FIELD = 'encryption_data';

/** Flatten a body into the sorted `path=value` string that is signed. */
export function canonical(body: SignableBody): string {
  // Fast path: emit pairs already in order, level by level, with no full-path sort. It is exact
  // unless a key that holds an object or array is a prefix of a sibling key; then sort the pairs.
  const walk: Walk = { text: '', shapeKeys: undefined, shape: undefined };
  // Every pair is appended with its `&` in front, the first one's cut off: one string grown pair
  // by pair (V8 joins the pieces once, when the HMAC reads it) costs ~15 % less than an array of
  // pairs joined at the end.
  if (emitOrdered('', body, true, walk)) return walk.text.slice(1);
  return canonicalBySort(body);
}

/** Sorted keys of an object, and which of them are a prefix of the next one. */
interface Shape {
  sorted: string[];
  prefixOfNext: boolean[];
}

/** State of one `canonical` call: the pairs so far, and the last object shape (batch elements share one). */
interface Walk {
  text: string;
  shapeKeys: string[] | undefined;
  shape: Shape | undefined;
}

/** The reference definition of `canonical`: flatten everything, sort by path bytes. */
export function canonicalBySort(body: SignableBody): string {
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === SIGNATURE_FIELD) continue;
    flatten(key, value, pairs);
  }
  pairs.sort((a, b) => compareUtf8(a[0], b[0]));
  return pairs.map(([path, value]) => `${path}=${value}`).join('&');
}

/**
 * Byte order of the UTF-8 encodings, without encoding anything: UTF-8 byte order is code-point
 * order, which differs from UTF-16 code-unit order only between surrogates and U+E000–U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Pushes the `path=value` pairs of `value` in full-path byte order. Sibling segments (`.key`,
 * `[i]`) sorted among themselves give full-path order, except when one key is a prefix of another
 * and the shorter one has children (`a.x` vs `a_b`): then it returns false.
 */
function emitOrdered(path: string, value: unknown, top: boolean, walk: Walk): boolean {
  if (value === undefined) return true;
  if (value === null) {
    walk.text += `&${path}=`;
    return true;
  }
  if (Array.isArray(value)) {
    // `[10]` sorts before `[1]` and `[2]` (`0` < `]`): visit indices in that order.
    for (const i of decimalOrder(value.length)) {
      if (!emitOrdered(`${path}[${i}]`, value[i], false, walk)) return false;
    }
    return true;
  }
  switch (typeof value) {
    case 'string':
      walk.text += `&${path}=${value}`;
      return true;
    case 'number':
    case 'boolean':
      walk.text += `&${path}=${JSON.stringify(value)}`;
      return true;
    case 'bigint':
      walk.text += `&${path}=${value.toString()}`;
      return true;
    case 'object': {
      const obj = value as Record<string, unknown>;
      const { sorted, prefixOfNext } = shapeOf(Object.keys(obj), top, walk);
      const base = top ? '' : `${path}.`;
      const pair = `&${base}`;
      for (let j = 0; j < sorted.length; j++) {
        const key = sorted[j]!;
        const child = obj[key];
        // Strings are nearly every value: appended here without a call.
        if (typeof child === 'string') {
          walk.text += pair + key + '=' + child;
          continue;
        }
        if (prefixOfNext[j] && typeof child === 'object' && child !== null) return false;
        if (!emitOrdered(base + key, child, false, walk)) return false;
      }
      return true;
    }
    default:
      throw new TypeError(`cannot sign a ${typeof value} at ${path}`);
  }
}

/** The sorted keys of an object; the elements of a batch array share theirs, so it is reused. */
function shapeOf(keys: string[], top: boolean, walk: Walk): Shape {
  if (!top) {
    const last = walk.shapeKeys;
    if (last !== undefined && last.length === keys.length) {
      let same = true;
      for (let i = 0; i < keys.length; i++) {
        if (last[i] !== keys[i]) {
          same = false;
          break;
        }
      }
      if (same) return walk.shape!;
    }
  }
  const sorted = keys.slice();
  if (top) {
    const at = sorted.indexOf(SIGNATURE_FIELD);
    if (at >= 0) sorted.splice(at, 1);
  }
  // The built-in sort (UTF-16 order) is several times faster than a comparator and equals byte
  // order unless a key holds a surrogate or U+E000–U+FFFF character; only then pay for compareUtf8.
  sorted.sort();
  if (sorted.some(hasHighCodeUnit)) sorted.sort(compareUtf8);
  const prefixOfNext = sorted.map((key, j) => j + 1 < sorted.length && sorted[j + 1]!.startsWith(key));
  const shape = { sorted, prefixOfNext };
  if (!top) {
    walk.shapeKeys = keys;
    walk.shape = shape;
  }
  return shape;
}

const HIGH_CODE_UNIT = /[\uD800-\uFFFF]/;
function hasHighCodeUnit(key: string): boolean {
  return HIGH_CODE_UNIT.test(key);
}

/** 0..n-1 in the byte order of `i]`: 0, 10, 11, …, 19, 1, 20, …, 2, … */
function decimalOrder(n: number): number[] {
  if (n <= 10) return Array.from({ length: n }, (_, i) => i);
  const order: number[] = [];
  const visit = (x: number): void => {
    if (x >= n) return;
    if (x !== 0) for (let d = 0; d < 10; d++) visit(x * 10 + d);
    order.push(x);
  };
  for (let d = 0; d < 10; d++) visit(d);
  return order;
}

function flatten(path: string, value: unknown, out: Array<[string, string]>): void {
  if (value === null || value === undefined) {
    if (value === null) out.push([path, '']);
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) flatten(`${path}[${i}]`, item, out);
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push([path, value]);
      return;
    case 'number':
    case 'boolean':
      out.push([path, JSON.stringify(value)]);
      return;
    case 'bigint':
      out.push([path, value.toString()]);
      return;
    case 'object':
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        flatten(`${path}.${key}`, child, out);
      }
      return;
    default:
      throw new TypeError(`cannot sign a ${typeof value} at ${path}`);
  }
}

export function hmacSignature(key: string, message: string): string {
  return createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

/** Case-insensitive hex comparison in constant time (for equal lengths). */
export function signaturesEqual(expected: string, actual: string): boolean {
  const a = Buffer.from(expected.toLowerCase(), 'utf8');
  const b = Buffer.from(actual.toLowerCase(), 'utf8');
  if (a.length !== b.length) {
    // Still spend the comparison so that length is the only thing a timing attack learns.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

export class HmacSha256Signer implements Signer {
  readonly #key: string;
  constructor(key: string) {
    this.#key = key;
  }
  sign(body: SignableBody): string {
    return hmacSignature(this.#key, canonical(body));
  }
  verify(body: SignableBody, signature: string): boolean {
    return signaturesEqual(this.sign(body), signature);
  }
  /** Never let the key leak through util.inspect or JSON.stringify of an object holding a signer. */
  toJSON(): string {
    return '[Signer]';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '[Signer]';
  }
}

export function createSigner(key: string): Signer {
  return new HmacSha256Signer(key);
}
