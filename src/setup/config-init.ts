// `payops config init`: asks for a profile and leaves a setup that works, or says why it does not.
//
//   1. the profile's name;
//   2. the built-in sandbox with its demo values (no real money), or a real gateway: its address
//      (https://; plain http:// only to this machine), merchant id, account id, sign key;
//   3. read-only or not;
//   4. for a real gateway, two signed read-only look-ups (status/check.ts): does it answer, accept
//      the key, and answer query calls from this machine's IP address? When not, what to do, and
//      whether to save the profile anyway;
//   5. saved, then made the current profile only when the user says so.
//
// Nothing is written before the last answer: Ctrl-C at any question leaves the config file as it
// was (exit 130, "cancelled — nothing was saved", output/prompt.ts).

import {
  DEFAULT_CONCURRENCY,
  DEFAULT_SETTLE_MS,
  DEFAULT_TIMEOUT_MS,
  KEY_HELP,
  type ProfileValues,
  parseConfigValue,
  SANDBOX_BASE_URL,
} from '../config/keys.js';
import { selectProfile } from '../config/resolve.js';
import { assertProfileName, type ConfigStore } from '../config/store.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { ask, canAsk, declinedError } from '../output/prompt.js';
import { SANDBOX_CREDENTIALS } from '../sandbox/accounts.js';
import type { GatewayCheck } from '../status/check.js';

/** Times a sign key the gateway refused is asked for again. */
const KEY_RETRIES = 3;

/** `true`, or the message a prompt shows under the answer. */
function validation(check: () => unknown): true | string {
  try {
    check();
    return true;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export async function configInit(ctx: Context, s: ConfigStore): Promise<number> {
  if (!canAsk(ctx.io)) {
    throw new UsageError('`payops config init` asks questions and needs a terminal', {
      hint: 'in scripts use `payops config set KEY VALUE` (e.g. base_url, merchant_id, account_id; sign_key reads the key from stdin)',
    });
  }
  const stored = s.read();
  const current = stored.current;
  const { isLoopbackHost } = await import('../gateway/transport.js');
  const allowHttp = Boolean(ctx.globals.allowInsecureHttp);
  const checkUrl = (v: string) => {
    const value = parseConfigValue('base_url', v) as string;
    if (value === SANDBOX_BASE_URL) return;
    const url = new URL(value);
    if (url.protocol === 'http:' && !allowHttp && !isLoopbackHost(url.hostname)) {
      throw new UsageError(
        'plain http:// would send the signed requests unencrypted: use https:// (http:// only for a gateway on this machine)',
      );
    }
  };

  const answers = await ask(
    ctx.io,
    async ({ input, password, confirm }, streams) => {
      const profile = await input(
        {
          message: 'Profile name',
          default: selectProfile(ctx.globals, ctx.io.env, stored).name,
          validate: (v) => validation(() => assertProfileName(v)),
        },
        streams,
      );
      const existing: ProfileValues = stored.profiles?.[profile] ?? {};
      const sandbox = await confirm(
        {
          message: `Use the built-in sandbox with its demo values (merchant ${SANDBOX_CREDENTIALS.merchantId}; no real money)?`,
          default: existing.base_url === undefined || existing.base_url === SANDBOX_BASE_URL,
        },
        streams,
      );
      const values: ProfileValues = {};
      let signKey: string | undefined;
      if (sandbox) {
        values.base_url = SANDBOX_BASE_URL;
        values.merchant_id = SANDBOX_CREDENTIALS.merchantId;
        values.account_id = SANDBOX_CREDENTIALS.accountId;
        signKey = SANDBOX_CREDENTIALS.signKey;
      } else {
        const real = (v: ProfileValues[keyof ProfileValues]) =>
          typeof v === 'string' && v !== SANDBOX_BASE_URL ? { default: v } : {};
        values.base_url = parseConfigValue(
          'base_url',
          await input(
            {
              message: `Gateway address (${KEY_HELP.base_url.replace(/ \(or "sandbox".*\)/, '')})`,
              ...real(existing.base_url),
              validate: (v) => validation(() => checkUrl(v)),
            },
            streams,
          ),
        ) as string;
        for (const key of ['merchant_id', 'account_id'] as const) {
          values[key] = parseConfigValue(
            key,
            await input(
              {
                message: `${key === 'merchant_id' ? 'Merchant id' : 'Account id'} (${KEY_HELP[key]})`,
                ...real(existing[key]),
                validate: (v) => validation(() => parseConfigValue(key, v)),
              },
              streams,
            ),
          ) as string;
        }
        const keepable = existing.sign_key !== undefined && existing.sign_key !== SANDBOX_CREDENTIALS.signKey;
        const typed = await password(
          {
            message: keepable
              ? 'Sign key (leave empty to keep the current one)'
              : 'Sign key (hidden as you type)',
            mask: '*',
            validate: (v) =>
              v === '' && keepable ? true : validation(() => parseConfigValue('sign_key', v)),
          },
          streams,
        );
        if (typed !== '') {
          ctx.addSecret(typed);
          signKey = parseConfigValue('sign_key', typed) as string;
        } else signKey = existing.sign_key;
      }
      values.read_only = await confirm(
        {
          message: 'Read-only profile (refunds, captures, payments and payouts refuse to run)?',
          default: existing.read_only ?? false,
        },
        streams,
      );
      return { profile, existing, values, signKey, sandbox };
    },
    'saved',
  );

  const { profile, existing, values, sandbox } = answers;
  let { signKey } = answers;
  if (signKey !== undefined && signKey !== existing.sign_key) values.sign_key = signKey;
  if (!sandbox) {
    let check = await testProfile(ctx, profile, { ...existing, ...values }, signKey);
    // A key the gateway refused is asked for again, every other answer kept (issue 27: a typo in
    // the key lost them all). Enter stops asking: then "save anyway?" as before.
    for (let tries = 0; check?.keyAccepted === 'no' && tries < KEY_RETRIES; tries++) {
      const again = await ask(
        ctx.io,
        ({ password }, streams) =>
          password(
            {
              message: 'The gateway refused the sign key: type it again (Enter to stop)',
              mask: '*',
              validate: (v) => (v === '' ? true : validation(() => parseConfigValue('sign_key', v))),
            },
            streams,
          ),
        'saved',
      );
      if (again === '') break;
      ctx.addSecret(again);
      signKey = parseConfigValue('sign_key', again) as string;
      if (signKey !== existing.sign_key) values.sign_key = signKey;
      check = await testProfile(ctx, profile, { ...existing, ...values }, signKey);
    }
    // No, as at any question: exit 2.
    if (check !== undefined && !(await saveAnyway(ctx, check))) throw declinedError('saved');
  } else {
    ctx.log.info('the built-in sandbox starts with each command: nothing to test');
  }

  for (const [k, v] of Object.entries(values) as Array<
    [keyof ProfileValues, ProfileValues[keyof ProfileValues]]
  >) {
    if (v !== undefined) s.setValue(profile, k, v);
  }
  ctx.log.info(`profile "${profile}" saved to ${s.path}`);
  if (current === profile) return 0;
  const makeCurrent = await ask(
    ctx.io,
    ({ confirm }, streams) =>
      confirm(
        {
          message: `Make "${profile}" the current profile${current ? ` (instead of "${current}")` : ''}?`,
          default: current === undefined,
        },
        streams,
      ),
    'saved',
  ).catch((err: unknown) => {
    // The profile is saved by now: say exactly that, not "nothing was saved".
    ctx.log.info(`profile "${profile}" was saved; the current profile is unchanged`);
    throw err;
  });
  if (makeCurrent) {
    s.setCurrent(profile);
    ctx.log.info(`now using profile "${profile}"`);
  } else {
    ctx.log.info(`use it with --profile ${profile}, or \`payops config use ${profile}\``);
  }
  return 0;
}

/** The two read-only look-ups against the gateway just typed in; undefined when all went well. */
async function testProfile(
  ctx: Context,
  profile: string,
  values: ProfileValues,
  signKey: string | undefined,
): Promise<GatewayCheck | undefined> {
  if (signKey === undefined) return undefined;
  ctx.log.info(`testing profile "${profile}" with two read-only look-ups at ${values.base_url} …`);
  const { clientFromConfig } = await import('../factory.js');
  const { checkGateway, checkPassed } = await import('../status/check.js');
  const client = await clientFromConfig(ctx, {
    profile,
    baseUrl: String(values.base_url),
    merchantId: String(values.merchant_id),
    accountId: String(values.account_id),
    signKey,
    timeoutMs: typeof values.timeout === 'number' ? values.timeout : DEFAULT_TIMEOUT_MS,
    concurrency: DEFAULT_CONCURRENCY,
    settleMs: DEFAULT_SETTLE_MS,
    rate: undefined,
    readOnly: Boolean(values.read_only),
    statusLabels: {},
    sandbox: false,
    profileExists: true,
    sources: {} as never,
  });
  const check = await checkGateway(client);
  const say = (what: string, r: string) => ctx.log.info(`  ${what}: ${r}`);
  say('the gateway answers', check.answers);
  say('it accepts the key, merchant and account', check.keyAccepted);
  say("it answers query calls from this machine's IP address", check.queryAllowed);
  if (checkPassed(check)) return undefined;
  if (check.problem) {
    ctx.log.info(`  ${check.problem.message}`);
    if (check.problem.hint) ctx.log.info(`  what to do: ${check.problem.hint}`);
  }
  return check;
}

async function saveAnyway(ctx: Context, check: GatewayCheck): Promise<boolean> {
  // An unregistered IP address is common at first and fixed at the gateway: saving is the norm.
  const likely = check.keyAccepted === 'yes';
  return ask(
    ctx.io,
    ({ confirm }, streams) => confirm({ message: 'Save the profile anyway?', default: likely }, streams),
    'saved',
  );
}
