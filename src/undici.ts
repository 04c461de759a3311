// The parts of undici payops uses when it runs: the Agent (keep-alive pools), the Client its proxy
// tunnels are opened with, and the proxy agent that reads HTTPS_PROXY / HTTP_PROXY / NO_PROXY.
// Import undici through this module (types may come from 'undici' itself): the build makes it
// dist/undici.cjs from these parts of undici alone, not the whole of undici (its fetch, WebSocket,
// cache and mock parts, ~1 MB, were compiled at every query: issue 15). A name added here must be
// added to the build's list of undici's files too (scripts/build.js, UNDICI_PARTS), or the build
// stops and says so. Under vitest this is undici itself, so tests may inject a MockAgent.
export { Agent, Client, EnvHttpProxyAgent } from 'undici';
