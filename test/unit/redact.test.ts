import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactDeep } from '../../src/observe/redact.ts';

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
