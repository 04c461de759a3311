import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSigner } from '../../src/gateway/signer.js';
import { type RecordingServer, type Reply, startRecordingServer } from '../helpers/recording-server.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

const KEY = 'sandbox-sign-key';
const signer = createSigner(KEY);
const VECTOR1 = {
  merchant_id: '800001',
  account_id: '800001001',
  capture_orders: [{ transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '10.00' }],
};

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function envFor(url: string, signKey: string | null = KEY) {
  return {
    PAYOPS_BASE_URL: url,
    PAYOPS_MERCHANT_ID: '800001',
    PAYOPS_ACCOUNT_ID: '800001001',
    PAYOPS_SIGN_KEY: signKey ?? undefined,
  };
}

function signedJson(body: Record<string, unknown>): Reply {
  return { body: JSON.stringify({ ...body, encryption_data: signer.sign(body) }) };
}

describe('payops call', () => {
  it('sends the body of --json with the design.md vector-1 signature and verifies the answer', async () => {
    // With its per-order result: a capture answer without one leaves the order's outcome unknown (exit 3).
    server = await startRecordingServer(() =>
      signedJson({
        return_status: '1',
        return_message: '0000:OK',
        capture_orders: [{ ...VECTOR1.capture_orders[0], capture_status: '1' }],
      }),
    );
    const dir = tempDir();
    const file = join(dir, 'body.json');
    // Credentials left out: the profile (here the environment) fills them in.
    writeFileSync(file, JSON.stringify({ capture_orders: VECTOR1.capture_orders }));
    const r = await runCli(['--yes', 'call', '/v1/capture', '--json', file], { env: envFor(server.url) });
    expect(r.stderr).toContain('signature verified');
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/capture');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['user-agent']).toMatch(/^payops\//);
    const body = JSON.parse(sent.body);
    expect(body.encryption_data).toBe('650f414b96d3ac145071f9be90f689b41e26bad1b185e023604bff9846868e86');
    expect(body.merchant_id).toBe('800001');
    expect(JSON.parse(r.stdout).return_status).toBe('1');
  });

  it('reads the body from stdin with --json - and builds nested fields from --data', async () => {
    server = await startRecordingServer(() => ({ body: '{"ok":"1"}' }));
    const r = await runCli(
      [
        '--yes',
        'call',
        '/v1/subscription/cancel',
        '--json',
        '-',
        '--data',
        'reason.code=moved',
        '--data',
        'items[0].id=7',
      ],
      { env: envFor(server.url), input: '{"recurring_id":"R-17"}' },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no signature in the response');
    const body = JSON.parse(server.requests[0]!.body);
    expect(body).toMatchObject({ recurring_id: 'R-17', reason: { code: 'moved' }, items: [{ id: '7' }] });
    const { encryption_data, ...rest } = body;
    expect(encryption_data).toBe(signer.sign(rest));
  });

  it('sends form endpoints form-encoded with the vector-2 signature', async () => {
    server = await startRecordingServer(() => ({ body: '{"return_status":"1","orders_list":[]}' }));
    const r = await runCli(['--yes', 'call', '/v1/retrievalTrans', '--data', 'order_no=ORD-1,ORD-2'], {
      env: envFor(server.url),
    });
    expect(r.code).toBe(0);
    const sent = server.requests[0]!;
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(sent.body).get('encryption_data')).toBe(
      'f2cd329021058f5b56f133801b4589cafb9ebb67f3fa207e921d30018ddda20a',
    );
  });

  it('prints XML answers indented and flags an INVALID signature with exit 3', async () => {
    server = await startRecordingServer(() => ({
      contentType: 'application/xml',
      body: '<?xml version="1.0"?><respon><order_no>O1</order_no><encryption_data>00ff</encryption_data></respon>',
    }));
    const r = await runCli(['--yes', 'call', '/v1/authorise', '--data', 'order_no=O1'], {
      env: envFor(server.url),
    });
    expect(r.stdout).toContain('  <order_no>O1</order_no>');
    expect(r.stderr).toContain('INVALID');
    expect(r.code).toBe(3);
  });

  it('exits 3 on HTTP errors and 4 on 403 E1003, naming the caller IP', async () => {
    server = await startRecordingServer((req) =>
      req.path === '/v1/retrievalTrans'
        ? {
            status: 403,
            body: '{"return_status":"0","return_message":"E1003:caller IP 192.0.2.44 is not registered"}',
          }
        : { status: 500, contentType: 'text/html', body: '<html>boom</html>' },
    );
    const auth = await runCli(['--yes', 'call', '/v1/retrievalTrans', '--data', 'order_no=A'], {
      env: envFor(server.url),
    });
    expect(auth.code).toBe(4);
    expect(auth.stderr).toContain('192.0.2.44');
    expect(auth.stderr).toMatch(/register/);
    const boom = await runCli(['--yes', 'call', '/v1/capture', '--data', 'x=1'], { env: envFor(server.url) });
    expect(boom.code).toBe(3);
    expect(boom.stdout).toContain('<html>boom</html>');
    // A raw call is never re-sent.
    expect(server.requests.filter((q) => q.path === '/v1/capture')).toHaveLength(1);
  });

  it('exits 4 with a message saying how to set a sign key when none is configured', async () => {
    server = await startRecordingServer();
    const r = await runCli(['--yes', 'call', '/v1/capture', '--data', 'a=1'], {
      env: envFor(server.url, null),
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no sign key configured');
    expect(r.stderr).toContain('payops config set sign_key');
    expect(r.stderr).toContain('PAYOPS_SIGN_KEY');
    expect(server.requests).toHaveLength(0);
  });

  it('never shows the sign key, even with --debug and in errors', async () => {
    const secret = 'very-secret-sign-key-42';
    server = await startRecordingServer(() => ({
      status: 400,
      body: `{"code":"E1005","message":"bad ${secret}"}`,
    }));
    // Card data in a raw call comes on stdin (as arguments it is refused: issue 13).
    const r = await runCli(['--debug', '--yes', 'call', '/v1/capture', '--json', '-'], {
      env: envFor(server.url, secret),
      input: '{"card":"4242424242424242","security_code":"737"}',
    });
    expect(r.code).toBe(3);
    const all = r.stdout + r.stderr;
    expect(all).not.toContain(secret);
    expect(r.stderr).not.toContain('4242424242424242');
    expect(r.stderr).toContain('424242******4242');
  });

  it('accepts --sign-key but warns about shell history', async () => {
    server = await startRecordingServer(() => signedJson({ return_status: '1' }));
    const r = await runCli(['--sign-key', KEY, '--yes', 'call', '/v1/capture', '--data', 'a=1'], {
      env: envFor(server.url, null),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('shell history');
    expect(r.stderr).toContain('signature verified');
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('refuses plain http to a remote host unless --allow-insecure-http', async () => {
    const r = await runCli(['--yes', 'call', '/v1/capture', '--data', 'a=1'], {
      env: envFor('http://gateway.invalid'),
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('--allow-insecure-http');
  });

  it('rejects a malformed --data pair before sending anything (exit 2)', async () => {
    server = await startRecordingServer();
    const r = await runCli(['--yes', 'call', '/v1/capture', '--data', 'novalue'], {
      env: envFor(server.url),
    });
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});
