import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codeCacheKey,
  decodeCodeCache,
  encodeCodeCache,
  runtimeOf,
} from '../../../../src/state/cache/code-cache.ts';
import { readOwnerOnly, userCacheDir } from '../../../../src/state/cache/user-cache.ts';
import { removeWhenDone } from '../../../helpers/workspace.ts';

const KEY = codeCacheKey('module.exports = 1;\n', runtimeOf());

describe('the CLI bundle’s code cache entries', () => {
  it('hands back exactly the data written for a key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 2048 }), (bytes) => {
        const data = Buffer.from(bytes);
        expect(decodeCodeCache(encodeCodeCache(KEY, data), KEY)?.equals(data)).toBe(true);
      }),
    );
  });

  it('refuses an entry cut short, grown or with any byte changed: V8 would not check the data itself', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.constantFrom('flip', 'cut', 'grow'),
        (bytes, at, delta, damage) => {
          const entry = encodeCodeCache(KEY, Buffer.from(bytes));
          const i = at % entry.length;
          let bad: Buffer;
          if (damage === 'cut') bad = entry.subarray(0, i);
          else if (damage === 'grow') bad = Buffer.concat([entry, Buffer.from([delta])]);
          else {
            bad = Buffer.from(entry);
            bad[i] = ((bad[i] as number) + delta) % 256;
          }
          expect(decodeCodeCache(bad, KEY)).toBeUndefined();
        },
      ),
    );
  });

  it('refuses another key’s entry, and keys on the source and the runtime', () => {
    const entry = encodeCodeCache(KEY, Buffer.from('data'));
    expect(decodeCodeCache(entry, codeCacheKey('module.exports = 2;\n', runtimeOf()))).toBeUndefined();
    expect(codeCacheKey('a', 'node v20')).not.toBe(codeCacheKey('a', 'node v22'));
    expect(codeCacheKey('a', 'x')).not.toBe(codeCacheKey('b', 'x'));
    expect(decodeCodeCache(Buffer.alloc(0), KEY)).toBeUndefined();
    expect(decodeCodeCache(Buffer.from('{}\n'), KEY)).toBeUndefined();
  });
});

describe('the user cache directory', () => {
  it('is $XDG_CACHE_HOME/ralph/<name>, else ~/.cache/ralph/<name>', () => {
    expect(userCacheDir({ XDG_CACHE_HOME: '/c', HOME: '/h' }, 'code')).toBe('/c/ralph/code');
    expect(userCacheDir({ XDG_CACHE_HOME: ' ', HOME: '/h' }, 'config')).toBe('/h/.cache/ralph/config');
  });

  it('reads only files no one else can read or write', () => {
    const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-user-cache-')));
    const file = join(dir, 'entry');
    writeFileSync(file, 'x', { mode: 0o600 });
    expect(readOwnerOnly(file)?.toString()).toBe('x');
    chmodSync(file, 0o644);
    expect(readOwnerOnly(file)).toBeUndefined();
    chmodSync(file, 0o620);
    expect(readOwnerOnly(file)).toBeUndefined();
    expect(() => readOwnerOnly(join(dir, 'none'))).toThrow();
  });
});
