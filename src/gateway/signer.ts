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
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === SIGNATURE_FIELD) continue;
    flatten(key, value, pairs);
  }
  // Byte order, not UTF-16 code-unit order: the two differ for non-BMP characters.
  pairs.sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  return pairs.map(([path, value]) => `${path}=${value}`).join('&');
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
