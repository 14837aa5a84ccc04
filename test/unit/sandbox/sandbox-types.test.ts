import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.ts';
import { sandboxSettings } from '../../../src/sandbox/sandbox-types.ts';

const settings = (sandbox: unknown) =>
  sandboxSettings(configSchema.parse(sandbox === undefined ? {} : { sandbox }));

describe('sandboxSettings', () => {
  it('reads a bare mode with the object form defaults, and no key as off', () => {
    expect(settings(undefined)).toEqual({ mode: 'off', allowRead: [], allowWrite: [], network: 'on' });
    expect(settings('on')).toEqual({ mode: 'on', allowRead: [], allowWrite: [], network: 'on' });
  });

  it('reads the object form, mode on by default', () => {
    expect(settings({ allow_read: ['~/.cargo'], allow_write: ['/opt/c'], network: 'off' })).toEqual({
      mode: 'on',
      allowRead: ['~/.cargo'],
      allowWrite: ['/opt/c'],
      network: 'off',
    });
  });

  it('refuses a misspelled key or mode', () => {
    expect(() => settings({ allow_reads: [] })).toThrow();
    expect(() => settings('yes')).toThrow();
  });
});
