// The signed gateway client: fills the credentials, signs, encodes the body as the endpoints table
// says, sends through the one transport, parses and verifies the answer, and turns definite
// rejections into typed errors (rejections.ts). Every other module codes against `GatewayClient`.
import { ConfigError, GatewayError, UnknownOutcomeError, type UnknownOutcomeReason } from '../errors.js';
import {
  type BatchOperation,
  ENDPOINTS,
  type Endpoint,
  endpointFor,
  type OperationName,
} from './endpoints.js';
import { isRedirect, redirectError } from './redirect.js';
import { authRejection, rejection } from './rejections.js';
import type { SignableBody, Signer } from './signer.js';
import { requestHeaders, type Transport, type TransportResponse } from './transport.js';
import type { BatchOrderOf, BatchResultOf, Credentials, RequestOf, ResponseOf } from './types.js';

/** A request body without the fields the client fills in itself. */
export type RequestBody<K extends OperationName> = Omit<RequestOf[K], keyof Credentials> &
  Partial<Credentials>;

export interface GatewayResponse<T> {
  /** HTTP status. */
  status: number;
  /** Parsed body: JSON as parsed, XML `respon` children as an object of strings, HTML as text. */
  data: T;
  /** `valid` when the body carried a correct encryption_data; `absent` when it carried none. */
  signature: 'valid' | 'absent';
  durationMs: number;
}

/** The answer to a batch operation, with its per-order result elements typed. */
export interface BatchResponse<K extends BatchOperation> extends GatewayResponse<ResponseOf[K]> {
  /**
   * The answer's per-order results (`refund_orders`, …) in the gateway's order; empty when it has
   * none. Returned whatever `return_status` says: per-order results may come with a return_status
   * other than success, and a batch answer's elements decide their rows (design.md). Callers that
   * need the whole request accepted call `assertAccepted(res.data)` themselves.
   */
  results: BatchResultOf[K][];
}

export interface RawResponse {
  status: number;
  contentType: string;
  /** Body text as received. */
  body: string;
  /** Parsed JSON / XML when the body is one of those. */
  parsed?: unknown;
  signature: 'valid' | 'invalid' | 'absent';
  durationMs: number;
}

/** A signed request as `raw` would send it, not sent (`payops --dry-run call`). */
export interface PreparedRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  /** The body with merchant_id, account_id and encryption_data filled in. */
  body: Record<string, unknown>;
  /** The bytes that would go on the wire. */
  text: string;
}

export interface SendOptions {
  signal?: AbortSignal;
}

export interface GatewayClient {
  readonly baseUrl: string;
  readonly merchantId: string;
  readonly accountId: string;
  /**
   * Sign and send one operation of the endpoints table; fills merchant_id/account_id when absent,
   * encodes the body as the endpoint says, parses and verifies the response.
   *
   * Throws TransportError when the request certainly never reached the gateway (after retries);
   * UnknownOutcomeError for a money-moving operation whose outcome is not known (timeout, reset,
   * 5xx, unparseable, bad or missing signature); GatewayError / AuthError for definite rejections
   * (4xx with an error body; 403 E1003 is an AuthError); RouteError (exit 4) for a proxy asking for
   * credentials or a redirect (redirect.ts: 302/303 to a money-moving request are lost answers). HTTP 200 bodies are returned as they are:
   * callers read return_status and per-order statuses themselves (see `assertAccepted`).
   */
  send<K extends OperationName>(
    op: K,
    body: RequestBody<K>,
    opts?: SendOptions,
  ): Promise<GatewayResponse<ResponseOf[K]>>;
  /**
   * One batch operation (capture, cancel, review, refund): `elements` go in the endpoint's array
   * (`refund_orders`, …) and are sent exactly as `send(op, { [batchArray]: elements })` would send
   * them, with the same errors. The answer comes back parsed and verified, with its per-order
   * results typed (see BatchResponse); a return_status `0` does not throw here.
   */
  sendBatch<K extends BatchOperation>(
    op: K,
    elements: readonly BatchOrderOf[K][],
    opts?: SendOptions,
  ): Promise<BatchResponse<K>>;
  /** Signed raw request to any path (payops call). Never retried once sent. */
  raw(
    path: string,
    body: Record<string, unknown>,
    opts: { form: boolean } & SendOptions,
  ): Promise<RawResponse>;
  close(): Promise<void>;
}

export interface ClientOptions {
  transport: Transport;
  signer: Signer;
  baseUrl: string;
  merchantId: string;
  accountId: string;
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Split a base URL into the origin the transport pools on and the path prefix of every request. */
export function splitBaseUrl(baseUrl: string): { origin: string; prefix: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`base_url "${baseUrl}" is not a valid URL`, {
      hint: 'payops config set base_url https://gateway.example.com',
    });
  }
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
}

/** Form-urlencoded text of a flat body (nested values are not part of any form endpoint). */
export function encodeForm(body: Record<string, unknown>): string {
  let text = '';
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    const value = v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    text += `${text === '' ? '' : '&'}${formComponent(k)}=${formComponent(value)}`;
  }
  return text;
}

const FORM_ESCAPES: Record<string, string> = {
  '!': '%21',
  "'": '%27',
  '(': '%28',
  ')': '%29',
  '~': '%7E',
  '%20': '+',
};

/**
 * One name or value as `URLSearchParams` writes it (the WHATWG urlencoded serialiser): what
 * `encodeURIComponent` leaves alone, except `!'()~`, and `+` for a space. A look-up names 100
 * transactions and a bulk run makes a thousand of them: a URLSearchParams for each was a tenth of
 * the client's work in the look-ups.
 */
export function formComponent(s: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(s);
  } catch {
    // URIError: a lone surrogate, which URLSearchParams writes as U+FFFD.
    encoded = encodeURIComponent(s.replace(LONE_SURROGATE, '\uFFFD'));
  }
  return encoded.replace(/[!'()~]|%20/g, (c) => FORM_ESCAPES[c]!);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The body as sent: merchant_id and account_id filled when absent, encryption_data computed. */
function signBody(
  body: Record<string, unknown>,
  signer: Signer,
  merchantId: string,
  accountId: string,
): Record<string, unknown> {
  // Rest syntax rather than `delete`, which would turn the body into a slow dictionary object.
  const { encryption_data: _ignored, ...full } = body;
  if (full.merchant_id === undefined || full.merchant_id === '') full.merchant_id = merchantId;
  if (full.account_id === undefined || full.account_id === '') full.account_id = accountId;
  full.encryption_data = signer.sign(full as SignableBody);
  return full;
}

function encode(body: Record<string, unknown>, form: boolean): { text: string; contentType: string } {
  return form
    ? { text: encodeForm(body), contentType: FORM_TYPE }
    : { text: JSON.stringify(body), contentType: JSON_TYPE };
}

const rawPath = (path: string) => (path.startsWith('/') ? path : `/${path}`);

/**
 * The signed request a client of `opts` would send to `path` with `raw`, built and not sent: what
 * `payops --dry-run call` prints. Nothing here can reach the network.
 */
export function prepareRaw(
  opts: Omit<ClientOptions, 'transport'>,
  path: string,
  body: Record<string, unknown>,
  form: boolean,
): PreparedRequest {
  const { origin, prefix } = splitBaseUrl(opts.baseUrl.replace(/\/+$/, ''));
  const full = signBody(body, opts.signer, opts.merchantId, opts.accountId);
  const { text, contentType } = encode(full, form);
  return {
    method: 'POST',
    url: origin + prefix + rawPath(path),
    headers: requestHeaders(contentType),
    body: full,
    text,
  };
}

export function createClient(opts: ClientOptions): GatewayClient {
  const { transport, signer, merchantId, accountId } = opts;
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const { origin, prefix } = splitBaseUrl(baseUrl);

  const signedBody = (body: Record<string, unknown>) => signBody(body, signer, merchantId, accountId);

  async function send<K extends OperationName>(
    op: K,
    body: RequestBody<K>,
    sendOpts: SendOptions = {},
  ): Promise<GatewayResponse<ResponseOf[K]>> {
    const endpoint = endpointFor(op);
    const full = signedBody(body as Record<string, unknown>);
    const { text, contentType } = encode(full, endpoint.requestFormat === 'form');
    for (let attempt = 1; ; attempt++) {
      const res = await transport.request({
        origin,
        path: prefix + endpoint.path,
        body: text,
        contentType,
        kind: endpoint.moneyMoving ? 'moneyMoving' : 'readOnly',
        ...(sendOpts.signal ? { signal: sendOpts.signal } : {}),
      });
      // Never followed, never "not JSON": where it points, and the base_url that would reach it.
      if (isRedirect(res.status)) {
        throw redirectError(res.status, res.headers.location, {
          url: origin + prefix + endpoint.path,
          endpointPath: endpoint.path,
          moneyMoving: endpoint.moneyMoving,
        });
      }
      if (res.status >= 400) throw rejection(res, endpoint.path, { merchantId, accountId });
      try {
        const data = await parseOrFail(res, endpoint);
        const signature = verifyOrFail(data, endpoint, full.encryption_data);
        return { status: res.status, data: data as ResponseOf[K], signature, durationMs: res.durationMs };
      } catch (err) {
        // A garbled or wrongly signed answer to a read is asked again (a read changes nothing); a
        // wrong sign key fails every time and is reported after the last try.
        const again =
          !endpoint.moneyMoving &&
          err instanceof GatewayError &&
          attempt < transport.attempts &&
          !sendOpts.signal?.aborted;
        if (!again) throw err;
        await transport.pause(attempt, sendOpts.signal);
      }
    }
  }

  async function parseOrFail(res: TransportResponse, endpoint: Endpoint): Promise<unknown> {
    if (endpoint.responseFormat === 'html') return res.body;
    try {
      const parsed = endpoint.responseFormat === 'xml' ? await parseXml(res.body) : JSON.parse(res.body);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      return parsed;
    } catch (err) {
      const what = `the gateway's answer to ${endpoint.path} could not be read as ${endpoint.responseFormat.toUpperCase()}`;
      if (endpoint.moneyMoving) throw outcomeUnknown('unparseable', what, err);
      throw new GatewayError(what, {
        status: res.status,
        cause: err,
        hint: 'try again; run with --debug to see the body',
      });
    }
  }

  function verifyOrFail(data: unknown, endpoint: Endpoint, sentSignature: unknown): 'valid' | 'absent' {
    if (typeof data !== 'object' || data === null) return 'absent';
    const record = data as Record<string, unknown>;
    const sig = record.encryption_data;
    if (typeof sig === 'string' && sig !== '' && signer.verify(record as SignableBody, sig)) return 'valid';
    // The payout record echoes every request field (gateway-api.md): an encryption_data equal to the
    // request's own is that echo, not a signature over the answer — the answer is unsigned.
    if (endpoint.op === 'payout' && sig === sentSignature) return 'absent';
    const missing = typeof sig !== 'string' || sig === '';
    if (missing && !endpoint.signedResponse) return 'absent';
    // /v1/authorise answers a card payment signed, but an APM payment with an unsigned result
    // (gateway-api.md lists no encryption_data for it): recognised by its issuer_url and no card.
    if (missing && endpoint.op === 'authorise' && 'issuer_url' in record && !('card' in record))
      return 'absent';
    // A request rejected for its credentials cannot carry a signature the gateway could make with
    // them: report the rejection itself, not a signature problem.
    const auth = authRejection(record, { merchantId, accountId });
    if (auth) throw auth;
    const reason: UnknownOutcomeReason = missing ? 'missing_signature' : 'bad_signature';
    const what = missing
      ? `the gateway's answer to ${endpoint.path} carries no signature (encryption_data)`
      : `the gateway's answer to ${endpoint.path} has an INVALID signature`;
    if (endpoint.moneyMoving) throw outcomeUnknown(reason, what);
    throw new GatewayError(what, {
      code: reason,
      hint: 'check that the sign key matches the gateway (payops config set sign_key); the answer was not trusted',
    });
  }

  async function raw(
    path: string,
    body: Record<string, unknown>,
    rawOpts: { form: boolean } & SendOptions,
  ): Promise<RawResponse> {
    const full = signedBody(body);
    const { text, contentType } = encode(full, rawOpts.form);
    const res = await transport.request({
      origin,
      path: prefix + rawPath(path),
      body: text,
      contentType,
      kind: 'raw',
      ...(rawOpts.signal ? { signal: rawOpts.signal } : {}),
    });
    const parsed = await parseAny(res);
    let signature: RawResponse['signature'] = 'absent';
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const sig = (parsed as Record<string, unknown>).encryption_data;
      if (typeof sig === 'string' && sig !== '') {
        signature = signer.verify(parsed as SignableBody, sig) ? 'valid' : 'invalid';
      }
    }
    return {
      status: res.status,
      contentType: res.contentType,
      body: res.body,
      ...(parsed === undefined ? {} : { parsed }),
      signature,
      durationMs: res.durationMs,
    };
  }

  return {
    baseUrl,
    merchantId,
    accountId,
    send,
    sendBatch: (op, elements, batchOpts) => sendBatchWith(send, op, elements, batchOpts),
    raw,
    close: () => transport.close(),
  };
}

/**
 * `sendBatch` written with `send`: the client's own, and one for a test double that implements only
 * `send` (`sendBatch: (op, els, o) => sendBatchWith(fake.send, op, els, o)`).
 */
export async function sendBatchWith<K extends BatchOperation>(
  send: GatewayClient['send'],
  op: K,
  elements: readonly BatchOrderOf[K][],
  opts?: SendOptions,
): Promise<BatchResponse<K>> {
  const arrayName = ENDPOINTS[op].batchArray;
  // The one place a batch body is built: every batch request is its credentials plus this array.
  const body = { [arrayName]: elements } as unknown as RequestBody<K>;
  const res = await send(op, body, opts);
  const list = (res.data as unknown as Record<string, unknown>)[arrayName];
  return { ...res, results: Array.isArray(list) ? (list as BatchResultOf[K][]) : [] };
}

async function parseXml(text: string) {
  const { parseRespon } = await import('./xml.js');
  return parseRespon(text);
}

/** Parse a body of unknown kind by its content type (or its look); undefined for HTML/text. */
async function parseAny(res: TransportResponse): Promise<unknown> {
  const type = res.contentType.toLowerCase();
  const text = res.body.trimStart();
  try {
    if (type.includes('json') || (!type && (text.startsWith('{') || text.startsWith('['))))
      return JSON.parse(res.body);
    if (type.includes('xml') || text.startsWith('<?xml') || text.startsWith('<respon'))
      return await parseXml(res.body);
  } catch {
    return undefined;
  }
  return undefined;
}

function outcomeUnknown(reason: UnknownOutcomeReason, what: string, cause?: unknown) {
  return new UnknownOutcomeError(`${what}: the request may or may not have been processed`, reason, {
    cause,
    hint: 'do not send it again blindly: look the orders up with `payops query` first (a bulk run reconciles with `payops runs resume`)',
  });
}

// Where callers have always found them.
export { assertAccepted, authError, errorOfBody } from './rejections.js';
