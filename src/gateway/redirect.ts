// A redirect answered instead of the gateway's answer. payops never follows one: a signed request
// re-sent to an address nobody configured is not what the user asked for. It reports where the
// redirect points and, when that is the same endpoint at another address, the base_url to set.
import { RouteError, UnknownOutcomeError } from '../errors.js';

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

const REASONS: Record<number, string> = {
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
};

/**
 * What a money-moving request answered with a redirect means for its money.
 *
 * 301, 307 and 308 say "this resource lives elsewhere, ask there": whatever answers them (a load
 * balancer's http→https rule, a web server in front of a moved API) answers instead of the
 * gateway's handler, which never saw the request. Nothing was processed, and every request will
 * meet the same: a definite refusal (exit 4), never a lost answer to reconcile.
 *
 * 302 and 303 are also how a web application answers a POST it HAS processed ("see the result
 * there": post/redirect/get). For money, "maybe processed" must be reconciled, never assumed away:
 * those are lost answers (UnknownOutcomeError), which a bulk run settles at the gateway.
 */
function mayHaveBeenProcessed(status: number): boolean {
  return status === 302 || status === 303;
}

export interface RedirectContext {
  /** The request's URL: base_url and the endpoint's path. */
  url: string;
  /** The endpoint's own path (`/v1/refund`), to find the base_url in the redirect's target. */
  endpointPath: string;
  moneyMoving: boolean;
}

/** The error for a 3xx answer to `ctx.url`, its Location header as given. */
export function redirectError(status: number, location: string | undefined, ctx: RedirectContext): Error {
  const target = readTarget(location, ctx.url);
  const base = target && baseUrlOf(target, ctx.endpointPath);
  const what = `HTTP ${status}${REASONS[status] ? ` ${REASONS[status]}` : ''}`;
  const where =
    location === undefined ? 'with no address' : target ? `to ${shown(target)}` : 'to an unreadable address';
  const path = new URL(ctx.url).pathname;
  const answered = `the gateway answered ${path} with a redirect (${what}) ${where}`;
  // The address comes from an answer nobody signs: the user is told where it points, and to set it
  // only if it is the gateway's (a proxy or a server in the middle may have written it).
  const fix = base ? `if ${base} is your gateway's address, set base_url to it` : 'check base_url';
  const hint = base
    ? `payops config set base_url ${base} (or PAYOPS_BASE_URL / --base-url for one command) once you have checked that address with your gateway; payops does not follow redirects`
    : "base_url must be the address of the gateway's API itself (payops config get base_url); payops does not follow redirects";
  if (ctx.moneyMoving && mayHaveBeenProcessed(status)) {
    return new UnknownOutcomeError(
      `${answered}: the request may or may not have been processed`,
      'redirect',
      {
        hint: `do not send it again blindly: look the orders up with \`payops query\` first (a bulk run reconciles with \`payops runs resume\`); then ${fix}`,
      },
    );
  }
  // A permanent or method-keeping redirect is how a server turns a request away, not how it answers
  // one it processed: the run treats the request as not taken (see mayHaveBeenProcessed).
  return new RouteError(
    `${answered}; ${fix} (the request was turned away, not processed)`,
    `HTTP ${status}`,
    {
      hint,
    },
  );
}

function readTarget(location: string | undefined, from: string): URL | undefined {
  if (location === undefined || location.trim() === '') return undefined;
  try {
    const url = new URL(location, from);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The target as it may be printed: no user or password, and the URL parser's own form, which
 * percent-encodes control characters (a Location header is the server's text, not ours).
 */
function shown(url: URL): string {
  const clean = new URL(url.href);
  clean.username = '';
  clean.password = '';
  const text = clean.href;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** `https://new.example/api` when the target is the same endpoint under another base; else none. */
function baseUrlOf(target: URL, endpointPath: string): string | undefined {
  if (target.search !== '' || target.hash !== '' || !target.pathname.endsWith(endpointPath)) return undefined;
  const prefix = target.pathname.slice(0, -endpointPath.length).replace(/\/+$/, '');
  return `${target.protocol}//${target.host}${prefix}`;
}
