import { describe, expect, it } from 'vitest';
import {
  assertSupportedPlatform,
  unsupportedPlatform,
  WINDOWS_REFUSAL,
} from '../../../src/process/platform.ts';

describe('unsupportedPlatform', () => {
  it('refuses Windows with one line that says to use WSL, and nothing else', () => {
    expect(unsupportedPlatform('win32')).toBe(WINDOWS_REFUSAL);
    expect(WINDOWS_REFUSAL).toMatch(/^Windows is not supported yet: use WSL/);
    expect(WINDOWS_REFUSAL).not.toContain('\n');
    for (const platform of ['linux', 'darwin', 'freebsd'] as const)
      expect(unsupportedPlatform(platform)).toBeUndefined();
  });

  it('as a typed error a program can switch on (code unsupported_platform, exit 1)', () => {
    expect(() => assertSupportedPlatform('win32')).toThrow(
      expect.objectContaining({ code: 'unsupported_platform', exitCode: 1, message: WINDOWS_REFUSAL }),
    );
    expect(() => assertSupportedPlatform('darwin')).not.toThrow();
  });
});
