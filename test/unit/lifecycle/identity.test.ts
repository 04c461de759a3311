import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../../../src/config/resolve.js';
import {
  gatewayIdentity,
  normaliseBaseUrl,
  normaliseIdentity,
  payoutGatewayIdentity,
  sameGateway,
} from '../../../src/lifecycle/identity.js';

function config(baseUrl: string, merchantId = '800001', accountId = '800001001', sandbox = false) {
  return { baseUrl, merchantId, accountId, sandbox } as ResolvedConfig;
}

describe('normaliseBaseUrl: a base URL by meaning', () => {
  it.each([
    ['HTTP://LocalHost:80/v1/', 'http://localhost/v1'],
    ['http://localhost/v1', 'http://localhost/v1'],
    ['https://GW.Example.com:443', 'https://gw.example.com'],
    ['https://gw.example.com/', 'https://gw.example.com'],
    ['https://gw.example.com:8443/api//', 'https://gw.example.com:8443/api'],
    // Every loopback name is one host.
    ['http://127.0.0.1:8080', 'http://localhost:8080'],
    ['  http://127.0.0.1:8080/  ', 'http://localhost:8080'],
    ['http://[::1]:8080/v1', 'http://localhost:8080/v1'],
    ['http://127.1:8080', 'http://localhost:8080'],
    ['http://LOCALHOST.:8080', 'http://localhost:8080'],
    ['http://gw.localhost:8080', 'http://localhost:8080'],
    ['http://[::ffff:127.0.0.1]:8080', 'http://localhost:8080'],
    ['https://127.0.0.1', 'https://localhost'],
    ['http://0.0.0.0:8080', 'http://localhost:8080'],
    ['http://[::]:8080', 'http://localhost:8080'],
    // Not loopback: kept as written.
    ['http://128.0.0.1:8080', 'http://128.0.0.1:8080'],
    ['http://localhost.example.com:8080', 'http://localhost.example.com:8080'],
    // http's default port is not https's: kept.
    ['https://gw.example.com:80/', 'https://gw.example.com:80'],
    // The path keeps its case; user info is no part of the gateway (and never recorded).
    ['https://user:secret@GW.example.com/V1', 'https://gw.example.com/V1'],
    ['not a url//', 'not a url'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseBaseUrl(input)).toBe(expected);
  });
});

describe('sameGateway: identities compared by meaning', () => {
  const id = (url: string, m = '800001', a = '800001001') => gatewayIdentity(config(url, m, a));

  it('`HTTP://LocalHost:80/v1/` is `http://localhost/v1`', () => {
    expect(id('HTTP://LocalHost:80/v1/')).toBe('http://localhost/v1|800001|800001001');
    expect(sameGateway(id('HTTP://LocalHost:80/v1/'), id('http://localhost/v1'))).toBe(true);
  });

  it('https with and without its default port', () => {
    expect(sameGateway(id('https://gw.example.com:443/v1'), id('https://gw.example.com/v1/'))).toBe(true);
  });

  it('another path, host, port or scheme is another gateway', () => {
    expect(sameGateway(id('http://localhost/v1'), id('http://localhost/v2'))).toBe(false);
    expect(sameGateway(id('http://localhost/v1'), id('http://localhost/V1'))).toBe(false);
    expect(sameGateway(id('http://localhost:8080'), id('http://localhost:8081'))).toBe(false);
    expect(sameGateway(id('http://gw.example.com'), id('https://gw.example.com'))).toBe(false);
    // The loopback names are one machine; its ports are still two gateways.
    expect(sameGateway(id('http://localhost:8080'), id('http://127.0.0.1:8080'))).toBe(true);
    expect(sameGateway(id('http://[::1]:8080'), id('http://127.0.0.1:8080'))).toBe(true);
    expect(sameGateway(id('http://localhost:8080'), id('http://127.0.0.1:8081'))).toBe(false);
  });

  it('merchant and account ids are trimmed; another merchant or account is another gateway', () => {
    expect(sameGateway(id('http://x', ' 800001 ', '800001001\t'), id('http://x'))).toBe(true);
    expect(sameGateway(id('http://x', '800002'), id('http://x'))).toBe(false);
    expect(sameGateway(id('http://x', '800001', '800001002'), id('http://x'))).toBe(false);
  });

  it('an identity written by an older version (the URL as typed) matches today’s', () => {
    const old = 'HTTP://127.0.0.1:4010//| 800001|800001001';
    expect(normaliseIdentity(old)).toBe('http://localhost:4010|800001|800001001');
    expect(sameGateway(old, id('http://127.0.0.1:4010'))).toBe(true);
    expect(sameGateway(id('http://127.0.0.1:4010'), old)).toBe(true);
    expect(sameGateway(old, id('http://127.0.0.1:4011'))).toBe(false);
  });

  it('no identity never matches; an in-process sandbox never matches another process’s', () => {
    expect(sameGateway(undefined, id('http://x'))).toBe(false);
    expect(sameGateway(id('http://x'), undefined)).toBe(false);
    const a = gatewayIdentity(config('', '800001', '800001001', true));
    const b = gatewayIdentity(config('', '800001', '800001001', true));
    expect(a).toMatch(/\|in-process-sandbox:\d+-[0-9a-f]{8}$/);
    expect(sameGateway(a, b)).toBe(false);
    expect(sameGateway(a, a)).toBe(true);
    expect(normaliseIdentity(a)).toBe(a);
  });

  it('payouts use the same normal form', () => {
    expect(payoutGatewayIdentity(config('HTTPS://GW.example.com:443/'))).toBe(
      'https://gw.example.com|800001|800001001',
    );
  });
});
