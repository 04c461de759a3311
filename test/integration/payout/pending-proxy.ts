// A loopback HTTP proxy in front of the test sandbox that plays two gateway behaviours the sandbox of
// this branch does not have:
// - `pendingFor7777`: a payout to a bank account_number ending in 7777 is answered PENDING on the
//   first request of its request_id (nothing paid), and the same request_id coming again is passed
//   to the sandbox, which pays it and answers COMPLETED. This is the sandbox's own rule from the
//   cross-run safety work (design.md §1.5); once the sandbox has it, point the tests at
//   `sandbox.url` instead of the proxy's and they assert the same things.
// - `unsigned`: every payout answer loses its encryption_data, as gateway-api.md allows for the
//   payout record (only batch and direct-payment answers are said to carry one).
// Everything else goes to the sandbox unchanged (including /_sandbox/ admin calls).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSigner } from '../../../src/gateway/signer.js';

export interface ProxyOptions {
  pendingFor7777?: boolean;
  unsigned?: boolean;
  /** Signs the PENDING answers it makes (unless `unsigned`). */
  signKey: string;
}

export interface PendingProxy {
  url: string;
  /** request_ids answered PENDING by the proxy (never seen by the sandbox then). */
  pendingAnswered: string[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function endsIn7777(body: Json): boolean {
  const bank = (body.beneficiary as { bank_details?: Json } | undefined)?.bank_details;
  return String(bank?.account_number ?? '').endsWith('7777');
}

export async function startPendingProxy(target: string, opts: ProxyOptions): Promise<PendingProxy> {
  const signer = createSigner(opts.signKey);
  const seen = new Set<string>();
  const pendingAnswered: string[] = [];

  async function answer(path: string, contentType: string, text: string): Promise<[number, string, string]> {
    if (path === '/v1/payout' && opts.pendingFor7777) {
      const body = JSON.parse(text) as Json;
      const id = String(body.request_id);
      if (endsIn7777(body) && !seen.has(id)) {
        seen.add(id);
        pendingAnswered.push(id);
        const { encryption_data: _sig, notify_url: _n, ...echo } = body;
        const reply: Json = {
          ...echo,
          amount_beneficiary_receives: 0,
          amount_payer_pays: 0,
          fee_amount: 0,
          fee_currency: body.payment_currency,
          failure_reason: '',
          failure_type: '',
          transaction_id: '',
          short_reference_id: '',
          status: 'PENDING',
        };
        if (!opts.unsigned) reply.encryption_data = signer.sign(reply);
        return [200, 'application/json', JSON.stringify(reply)];
      }
      seen.add(id);
    }
    const res = await fetch(`${target}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: text,
    });
    let out = await res.text();
    if (path === '/v1/payout' && opts.unsigned && res.status === 200) {
      const { encryption_data: _sig, ...rest } = JSON.parse(out) as Json;
      out = JSON.stringify(rest);
    }
    return [res.status, res.headers.get('content-type') ?? 'application/json', out];
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      answer(req.url ?? '/', req.headers['content-type'] ?? '', Buffer.concat(chunks).toString('utf8')).then(
        ([status, type, body]) => {
          res.writeHead(status, { 'content-type': type });
          res.end(body);
        },
        (err: unknown) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(err));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pendingAnswered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
