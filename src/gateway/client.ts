import type { ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ConfigError } from '../errors.js';
import type { OperationName } from './endpoints.js';
import type { Credentials, RequestOf, ResponseOf } from './types.js';

// CONTRACT (implementation lands with issue 2). Every other module codes against these types.

/** A request body without the fields the client fills in itself. */
export type RequestBody<K extends OperationName> = Omit<RequestOf[K], keyof Credentials> & Partial<Credentials>;

export interface GatewayResponse<T> {
  /** HTTP status. */
  status: number;
  /** Parsed body: JSON as parsed, XML `respon` children as an object of strings, HTML as text. */
  data: T;
  /** `valid` when the body carried a correct encryption_data; `absent` when it carried none. */
  signature: 'valid' | 'absent';
  durationMs: number;
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
   * (4xx with an error body; 403 E1003 is an AuthError). HTTP 200 bodies are returned as they are:
   * callers read return_status and per-order statuses themselves (see `assertAccepted`).
   */
  send<K extends OperationName>(op: K, body: RequestBody<K>, opts?: SendOptions): Promise<GatewayResponse<ResponseOf[K]>>;
  /** Signed raw request to any path (payops call). Never retried once sent. */
  raw(path: string, body: Record<string, unknown>, opts: { form: boolean } & SendOptions): Promise<RawResponse>;
  close(): Promise<void>;
}

export async function clientFromConfig(_ctx: Context, _config: ResolvedConfig): Promise<GatewayClient> {
  throw new ConfigError('the gateway client is not built yet');
}
