// Drives the sandbox the way a client that knows only gateway-api.md and design.md would: real
// HTTP over loopback, bodies signed with the design's signer, nothing from payops' client.
import { createSigner } from '../../../src/gateway/signer.js';
import {
  SANDBOX_CREDENTIALS,
  type SandboxHandle,
  type SandboxOptions,
  startSandbox,
} from '../../../src/sandbox/index.js';

export const signer = createSigner(SANDBOX_CREDENTIALS.signKey);
export const MERCHANT = SANDBOX_CREDENTIALS.merchantId;
export const ACCOUNT = SANDBOX_CREDENTIALS.accountId;

export type Json = Record<string, unknown>;

export function signed<T extends Json>(body: T): T & { encryption_data: string } {
  const withCreds = { merchant_id: MERCHANT, account_id: ACCOUNT, ...body };
  return { ...withCreds, encryption_data: signer.sign(withCreds) };
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  json: Json;
}

export class Client {
  constructor(readonly url: string) {}

  async raw(path: string, init: RequestInit = {}): Promise<Answer> {
    const res = await fetch(this.url + path, { method: 'POST', ...init });
    const text = await res.text();
    let json: Json = {};
    if ((res.headers.get('content-type') ?? '').includes('json')) json = JSON.parse(text) as Json;
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json };
  }

  /** POST a JSON body as is (sign it yourself with `signed`). */
  post(path: string, body: unknown): Promise<Answer> {
    return this.raw(path, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  }

  /** POST form fields as is. */
  form(path: string, fields: Record<string, string>): Promise<Answer> {
    return this.raw(path, {
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }

  /** Signed form request (query, refund search). */
  search(path: string, fields: Record<string, string> = {}): Promise<Answer> {
    return this.form(path, signed(fields) as Record<string, string>);
  }

  /** Signed batch request with one array. */
  batch(path: string, array: string, orders: Json[]): Promise<Answer> {
    return this.post(path, signed({ [array]: orders }));
  }

  async admin(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    return this.raw(`/_sandbox/${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
  }

  async createOrders(count: number, state = '3000', currency = 'USD', extra: Json = {}): Promise<Json[]> {
    const a = await this.admin('POST', 'orders', { count, state, currency, ...extra });
    return a.json as unknown as Json[];
  }

  /** GET /_sandbox/ledger: every money movement so far. */
  async ledger(): Promise<Json[]> {
    return (await this.admin('GET', 'ledger')).json as unknown as Json[];
  }
}

/**
 * Poll `check` until it holds (or throw after `timeoutMs`, a safety net generous for a loaded
 * machine): for effects that land later by design.
 */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function withSandbox(
  opts: SandboxOptions = {},
): Promise<{ sandbox: SandboxHandle; client: Client }> {
  const sandbox = await startSandbox({ port: 0, ...opts });
  return { sandbox, client: new Client(sandbox.url) };
}

/** The response's own signature checks out (body minus encryption_data). */
export function signatureValid(body: Json): boolean {
  return typeof body.encryption_data === 'string' && signer.verify(body, body.encryption_data);
}

/** Key → text of the XML `respon` children (one level of nesting, as the sandbox writes it). */
export function parseRespon(xml: string): Record<string, string | Record<string, string>> {
  const inner = /<respon>([\s\S]*)<\/respon>/.exec(xml)?.[1] ?? '';
  const out: Record<string, string | Record<string, string>> = {};
  const re = /<([a-z_]+)>([\s\S]*?)<\/\1>/g;
  for (let m = re.exec(inner); m; m = re.exec(inner)) {
    const [, name, content] = m as unknown as [string, string, string];
    if (content.includes('<')) {
      const child: Record<string, string> = {};
      const cre = /<([a-z_]+)>([\s\S]*?)<\/\1>/g;
      for (let c = cre.exec(content); c; c = cre.exec(content)) child[c[1]!] = unescapeXml(c[2]!);
      out[name] = child;
    } else {
      out[name] = unescapeXml(content);
    }
  }
  return out;
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
