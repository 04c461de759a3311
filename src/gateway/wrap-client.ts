// A gateway client wrapped: the same requests, with a hook told of each one as it is handed over.
import type { GatewayClient, SendOptions } from './client.js';
import type { BatchOperation, OperationName } from './endpoints.js';

/** A request as a wrapped client is handed it (wrapClient). */
export type ClientCall =
  | { kind: 'send'; op: OperationName }
  | { kind: 'batch'; op: BatchOperation }
  | { kind: 'raw'; path: string };

/**
 * The same client, with `before` told of each request as it is handed over; the options it returns
 * (a signal, say) are the ones the request goes with. Used to abort a run's requests on a second
 * Ctrl-C (bulk/engine/engine.ts) and to note the money-moving ones (factory.ts).
 */
export function wrapClient(
  client: GatewayClient,
  before: (call: ClientCall, opts: SendOptions) => SendOptions,
): GatewayClient {
  return {
    get baseUrl() {
      return client.baseUrl;
    },
    get merchantId() {
      return client.merchantId;
    },
    get accountId() {
      return client.accountId;
    },
    send: (op, body, opts) => client.send(op, body, before({ kind: 'send', op }, opts ?? {})),
    sendBatch: (op, elements, opts) =>
      client.sendBatch(op, elements, before({ kind: 'batch', op }, opts ?? {})),
    raw: (path, body, opts) => client.raw(path, body, { ...opts, ...before({ kind: 'raw', path }, opts) }),
    close: () => client.close(),
  };
}
