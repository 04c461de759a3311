// The logger is the one place lines reach stderr for info, warn, --verbose and --debug (review of
// issue 13): whatever a line carries from the gateway or a user's file — an escape sequence echoed in
// an answer under --debug, a file name in a plan line — is shown escaped, sign keys masked; a line
// that already quotes its values (quote()) comes out unchanged.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/context.js';
import { quote } from '../../src/quote.js';
import { fakeIo } from './output/helpers.js';

/** What a terminal acts on instead of printing (line feeds and tabs are layout). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const OSC = '\u001b]0;PWNED\u0007';

describe('createLogger', () => {
  it('escapes terminal controls in every kind of line', () => {
    const { io, stderr } = fakeIo();
    const log = createLogger(io, { debug: true }, ['the-sign-key']);
    log.info(`plan: from evil${OSC}.csv`);
    log.warn(`warning \u009b2J here`);
    log.verbose(`< 200 <note>${OSC}</note>`);
    log.debug(`> POST /v1/authorise note=${OSC}\u202e the-sign-key`);
    const text = stderr.text();
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('from evil\\x1b]0;PWNED\\x07.csv');
    expect(text).toContain('<note>\\x1b]0;PWNED\\x07</note>');
    expect(text).toContain('\\u202e ****');
    expect(text).not.toContain('the-sign-key');
    expect(text.split('\n')).toHaveLength(5);
  });

  it('keeps line feeds and tabs, and leaves already quoted values as they are', () => {
    const { io, stderr } = fakeIo();
    const log = createLogger(io, { verbose: true });
    const line = `error at ${quote(`a${OSC}\nb\\c`)}:\n\tsecond line`;
    log.verbose(line);
    expect(stderr.text()).toBe(`${line}\n`);
  });

  it('stays quiet where it should: info under --quiet, verbose and debug without their flags', () => {
    const { io, stderr } = fakeIo();
    const log = createLogger(io, { quiet: true });
    log.info('x');
    log.verbose('y');
    log.debug('z');
    expect(stderr.text()).toBe('');
  });
});
