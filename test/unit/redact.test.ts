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
