import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactDeep, redactLine, TOO_DEEP } from '../../../src/observe/redact.ts';

const SECRET = 'hunter2!';
const redact = createRedactor({ MY_API_KEY: SECRET, HOME: '/home/someone' });

describe('redactDeep', () => {
  it('redacts every string at any depth, in a copy, leaving the input as it was', () => {
    const input = {
      type: 'iteration.finished',
      iteration: 3,
      ok: true,
      none: null,
      record: { command: `agent --key ${SECRET}`, events: ['a', `x${SECRET}y`], nested: [{ t: SECRET }] },
    };
    const before = JSON.stringify(input);
    const out = redactDeep(input, redact);
    expect(out).toEqual({
      type: 'iteration.finished',
      iteration: 3,
      ok: true,
      none: null,
      record: {
        command: `agent --key ${REDACTED}`,
        events: ['a', `x${REDACTED}y`],
        nested: [{ t: REDACTED }],
      },
    });
    expect(JSON.stringify(input)).toBe(before);
    expect(out).not.toBe(input);
    expect(out.record).not.toBe(input.record);
    expect(out.record.events).not.toBe(input.record.events);
  });

  it('redacts a secret of the shortest length redacted (8), and key shapes; shorter text is left alone', () => {
    expect(redact(SECRET)).toBe(REDACTED);
    expect(redact('hunter2')).toBe('hunter2');
    expect(redact('AKIAABCDEFGHIJKLMNOP')).toBe(REDACTED);
    expect(redact('AKIA')).toBe('AKIA');
  });
});

describe('redactDeep: depth', () => {
  it('a value nested 200,000 deep: no stack overflow, what lies past 100 levels is cut, the result stringifies', () => {
    let deep: unknown = 'sk-ant-api03-abcdefghijklmnopqrstuv';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const out = redactDeep({ payload: deep }, createRedactor({}));
    const text = JSON.stringify(out);
    expect(text).toContain(TOO_DEEP);
    expect(text).not.toContain('sk-ant-');
    expect(
      redactLine(
        `{"payload":${'['.repeat(150)}"sk-ant-api03-abcdefghijklmnopqrstuv"${']'.repeat(150)}}`,
        createRedactor({}),
      ),
    ).not.toContain('sk-ant-');
  });
});

describe('createRedactor: webhook URLs', () => {
  const redact = createRedactor({});

  it('redacts Slack and Discord webhook URLs wherever they stand, and leaves their hosts alone', () => {
    const slack = 'https://hooks.slack.com/services/T0000AAAA/B0000BBBB/abcdefghijklmnopqrstuvwx';
    const discord = 'https://discord.com/api/webhooks/123456789012345678/AbCdEf_gh-IjKlMnOpQrStUvWxYz0123';
    expect(redact(`posting to ${slack} failed`)).toBe(`posting to ${REDACTED} failed`);
    expect(redact(`url=${discord}`)).toBe(`url=${REDACTED}`);
    expect(redact('see https://hooks.slack.com/ for setup')).toBe('see https://hooks.slack.com/ for setup');
  });

  it('redacts any value of a secret-named variable, so a configured webhook URL of any host goes too', () => {
    const own = createRedactor({ RALPH_NOTIFY_WEBHOOK_SECRET: 'https://chat.example.test/hook/s3cr3t-path' });
    expect(own('POST https://chat.example.test/hook/s3cr3t-path → 500')).toBe(`POST ${REDACTED} → 500`);
  });
});

const LONG = 'acme-Zq8vR2pL9xW4tY7u';
const redactLong = createRedactor({ ACME_API_KEY: LONG, OTHER_TOKEN: SECRET });

/** `text` as JSON with every character of `secret` in it written as a `\\u` escape. */
function escapedJson(value: unknown, secret: string): string {
  const hidden = [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return JSON.stringify(value).split(secret).join(hidden);
}

/** JSON values with secrets (long, short, a key shape) inside some of their strings (no `*`: the short mark). */
const withSecrets = fc.letrec((tie) => ({
  text: fc
    .oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc
        .tuple(
          fc.string({ maxLength: 6 }),
          fc.constantFrom(LONG, SECRET, 'ghp_Adv3rs4r1alK3yS3cr3tV4lu3x9Z8y7W6'),
        )
        .map(([a, k]) => `${a}${k}${a}`),
    )
    .map((text) => text.replaceAll('*', '')),
  value: fc.oneof(
    { depthSize: 'small' },
    tie('text'),
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 5 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const leaksOf = (text: string) => [LONG, SECRET, 'ghp_Adv3rs'].filter((k) => text.includes(k));

describe('redactLine (a line rewritten in place)', () => {
  it('any JSON line with secrets, plain or escaped: still JSON, none left, never longer in bytes', () => {
    fc.assert(
      fc.property(withSecrets, fc.boolean(), (value, hidden) => {
        const line = hidden ? escapedJson(value, LONG) : JSON.stringify(value);
        const out = redactLine(line, redactLong);
        const expected = redactDeep(value, redactLong);
        if (out === undefined) {
          // Nothing to redact: the value had no secret.
          expect(expected).toEqual(value);
          return;
        }
        expect(Buffer.byteLength(out)).toBeLessThanOrEqual(Buffer.byteLength(line));
        const parsed = JSON.parse(out) as unknown;
        expect(leaksOf(JSON.stringify(parsed))).toEqual([]);
        expect(leaksOf(out)).toEqual([]);
        // Where `[redacted]` fits it is what the line says; a short secret gets `***`.
        expect(JSON.stringify(parsed).split('***').join(REDACTED)).toBe(
          JSON.stringify(expected).split('***').join(REDACTED),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('a line with no secret is left alone (undefined), whatever it holds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        fc.pre(leaksOf(text).length === 0 && !text.includes('AKIA') && !text.includes('_'));
        expect(redactLine(text, redactLong)).toBeUndefined();
        expect(redactLine(JSON.stringify({ topic: 'a', payload: text }), redactLong)).toBeUndefined();
      }),
    );
  });

  it('a line that is not JSON is redacted as text; a short secret that would grow it gets ***', () => {
    expect(redactLine(`${LONG} is not JSON`, redactLong)).toBe('[redacted] is not JSON');
    expect(redactLine(`x${SECRET}`, redactLong)).toBe('x***');
    expect(redactLine(`{"a":"${SECRET}","b":"${LONG}"}`, redactLong)).toBe(
      '{"a":"[redacted]","b":"[redacted]"}',
    );
  });

  it('a JSON line that would grow when written back whole goes blank, its secret with it', () => {
    // Plain: the raw text redacted stays JSON and fits with ***.
    expect(redactLine(`{"n":1e9,"k":"${SECRET}"}`, redactLong)).toBe('{"n":1e9,"k":"***"}');
    // Escaped, so written back whole: 1e9 grows to 1000000000.
    const line = `{"n":1e9,"k":"${escapedJson(SECRET, SECRET).slice(1, -1)}"}`;
    expect(JSON.parse(line)).toEqual({ n: 1e9, k: SECRET });
    expect(redactLine(line, redactLong)).toBe('{"n":1000000000,"k":"[redacted]"}');
    expect(redactLine('{"n":[1e9,1e9],"k":"\\u0068unter2!"}', redactLong)).toBe('');
  });
});
