import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MASK,
  maskSecrets,
  restoreSecrets,
  secretPaths,
  secretValues,
  withoutSecrets,
} from '../../../src/observe/config-secrets.ts';
import { createRedactor } from '../../../src/observe/redact.ts';

const ENV_SECRET = 'from-the-environment-42';
const redact = createRedactor({ GITHUB_TOKEN: ENV_SECRET, HOME: '/home/someone' });
const where = (path: readonly string[]) => `layer of ${path.join('.')}`;

const config0 = () => config;
const config = {
  event_loop: { max_iterations: 100, max_tokens: 5000, prompt: 'build it' },
  cli: {
    backend: 'custom',
    command: './agent.sh',
    args: ['--verbose', `--token=${ENV_SECRET}`, '--key', 'sk-ant-api03-abcdefghijklmnopqrstuv'],
    env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080', SHORT: 'x' },
  },
  hats: { builder: { triggers: ['build.*'], env: { API: 'v' } } },
  RObot: { enabled: false, telegram: { bot_token: '123456789:AAE-not-a-shape', api_url: undefined } },
  notify: { webhook: undefined },
};

describe('secretPaths and maskSecrets (config output and the config cache)', () => {
  it('finds the bot token, every cli.env and hat env value, and what the log redaction knows, nothing else', () => {
    expect(secretPaths(config, redact).map((p) => p.join('.'))).toEqual([
      'cli.args.1',
      'cli.args.3',
      'cli.env.ANTHROPIC_BASE_URL',
      'cli.env.SHORT',
      'hats.builder.env.API',
      'RObot.telegram.bot_token',
    ]);
  });

  it('takes every value of a lifecycle hook’s env as secret too, and nothing else of the hook', () => {
    const hooked = {
      hooks: { events: { 'pre.loop.start': [{ name: 'n', command: ['./x'], env: { DEPLOY: 'abc' } }] } },
    };
    expect(secretPaths(hooked, redact).map((p) => p.join('.'))).toEqual([
      'hooks.events.pre.loop.start.0.env.DEPLOY',
    ]);
  });

  it('masks each with where it came from, in a copy, leaving the rest as it was', () => {
    const before = JSON.stringify(config);
    const out = maskSecrets(config, redact, where);
    expect(out.RObot.telegram.bot_token).toBe(`${MASK} (from layer of RObot.telegram.bot_token)`);
    expect(out.cli.env).toEqual({
      ANTHROPIC_BASE_URL: '*** (from layer of cli.env.ANTHROPIC_BASE_URL)',
      SHORT: '*** (from layer of cli.env.SHORT)',
    });
    expect(out.cli.args).toEqual([
      '--verbose',
      '*** (from layer of cli.args.1)',
      '--key',
      '*** (from layer of cli.args.3)',
    ]);
    expect(out.event_loop).toBe(config.event_loop);
    expect(out.hats.builder.triggers).toEqual(['build.*']);
    expect(JSON.stringify(config)).toBe(before);
  });

  it('an empty cli.env and an unset bot token hold no secret', () => {
    const plain = { cli: { env: {} }, RObot: { telegram: { bot_token: undefined } } };
    expect(secretPaths(plain, redact)).toEqual([]);
    expect(maskSecrets(plain, redact, where)).toBe(plain);
  });

  // Any config: what is masked no longer holds the secret, masking again changes nothing, and
  // every value outside the secret paths is kept.
  const leaf = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(ENV_SECRET),
    fc.constantFrom('sk-ant-api03-abcdefghijklmnopqrstuv', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'),
  );
  const tree = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('node'), { maxLength: 3 }),
      fc.dictionary(
        fc.constantFrom('cli', 'env', 'hats', 'RObot', 'telegram', 'bot_token', 'x'),
        tie('node'),
        {
          maxKeys: 4,
          noNullPrototype: true,
        },
      ),
    ),
  })).node;

  it('property: the output holds no secret the redaction knows, and masking is idempotent', () => {
    fc.assert(
      fc.property(tree, (value) => {
        const out = maskSecrets(value, redact, where);
        const text = JSON.stringify(out) ?? '';
        expect(text).not.toContain(ENV_SECRET);
        expect(text).not.toContain('sk-ant-api03');
        expect(text).not.toContain('ghp_');
        expect(secretPaths(out, redact).every((p) => /^\*\*\* \(from /.test(String(at(out, p))))).toBe(true);
        expect(maskSecrets(out, redact, where)).toStrictEqual(out);
      }),
    );
  });

  it('property: withoutSecrets leaves no secret in what is written, and restoreSecrets gives back the config', () => {
    fc.assert(
      fc.property(tree, (value) => {
        const { config, secrets } = withoutSecrets(value, redact);
        expect(secretPaths(config, redact).every((p) => at(config, p) === MASK)).toBe(true);
        const text = JSON.stringify(config) ?? '';
        for (const [, secret] of secrets)
          if (typeof secret === 'string' && secret !== MASK && redact(secret) !== secret)
            expect(text).not.toContain(secret);
        expect(restoreSecrets(config, secrets)).toStrictEqual(value);
      }),
    );
    const { config, secrets } = withoutSecrets(structuredClone(config0()), redact);
    expect(config.RObot.telegram.bot_token).toBe(MASK);
    expect(secrets.map(([p]) => p.join('.'))).toContain('RObot.telegram.bot_token');
  });

  it('property: a value that is not secret is printed as it is', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (name, value) => {
        fc.pre(redact(value) === value);
        const input = { event_loop: { [name]: value } };
        expect(maskSecrets(input, redact, where)).toBe(input);
      }),
    );
  });
});

describe('credential-bearing URLs and secretValues (what the run redaction adds)', () => {
  const urls = {
    notify: { webhook: 'http://127.0.0.1:9/hook?token=WebHookTok3n9876' },
    RObot: { telegram: { api_url: 'https://bot:hunter22@proxy.example/tg' } },
    forge: { base: 'https://ci.example/api?x=1&access_token=abcdefgh12345' },
    plain: ['https://api.telegram.org', 'https://example.com/path?page=2', 'http://127.0.0.1:8080'],
  };

  it('the webhook by its place, a URL with a user:password or a token-named query parameter by its value; plain URLs are not secret', () => {
    expect(secretPaths(urls, redact).map((p) => p.join('.'))).toEqual([
      'notify.webhook',
      'RObot.telegram.api_url',
      'forge.base',
    ]);
    expect(maskSecrets(urls, redact, where).notify.webhook).toBe(`${MASK} (from layer of notify.webhook)`);
  });

  it('secretValues is exactly the text of what secretPaths finds, so config output and log redaction agree', () => {
    expect(secretValues(config, redact)).toEqual([
      `--token=${ENV_SECRET}`,
      'sk-ant-api03-abcdefghijklmnopqrstuv',
      'http://127.0.0.1:8080',
      'x',
      'v',
      '123456789:AAE-not-a-shape',
    ]);
    const runRedact = createRedactor({}, secretValues(urls, redact));
    expect(runRedact('posting to http://127.0.0.1:9/hook?token=WebHookTok3n9876 now')).toBe(
      'posting to [redacted] now',
    );
    // Values shorter than the redactor's minimum (8) stay: redacting `x` everywhere would ruin every log.
    expect(createRedactor({}, secretValues(config, redact))('x and v and http://127.0.0.1:8080')).toBe(
      'x and v and [redacted]',
    );
  });
});

function at(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, k) => (node as Record<string, unknown>)[k], value);
}
