import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../../src/config/overrides.ts';

// `--sandbox MODE` sets the mode of `sandbox:` whichever form the files wrote it in.
describe('applyOverrides with intoObjectKey', () => {
  const flag = { path: ['sandbox'], value: 'on', source: '--sandbox', intoObjectKey: 'mode' };

  it('sets that key of the long form, keeping its other keys', () => {
    const raw = { sandbox: { mode: 'off', allow_read: ['~/.cargo'] } };
    expect(applyOverrides(raw, [flag])).toEqual({ sandbox: { mode: 'on', allow_read: ['~/.cargo'] } });
    expect(raw.sandbox.mode).toBe('off'); // a copy: the input is left as it was
  });

  it('replaces the short form or an absent value', () => {
    expect(applyOverrides({ sandbox: 'off' }, [flag])).toEqual({ sandbox: 'on' });
    expect(applyOverrides({}, [flag])).toEqual({ sandbox: 'on' });
  });
});
