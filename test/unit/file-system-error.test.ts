import { describe, expect, it } from 'vitest';
import { errnoInWords, FileSystemError, fileSystemError, RalphError } from '../../src/errors.ts';

function errno(code: string, fields: Partial<NodeJS.ErrnoException> = {}): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: something`), { code, ...fields });
}

describe('fileSystemError: the one conversion of errno failures', () => {
  it.each([
    ['ENOSPC', 'no space left on device', 'free some space'],
    ['EROFS', 'read-only file system', 'run Ralph where it can write'],
    ['EACCES', 'permission denied', 'chmod u+w'],
    ['ENOENT', 'no such file or directory', 'restore it'],
    ['EDQUOT', 'disk quota exceeded', 'free some space'],
    ['EIO', 'input/output error', 'check it'],
  ])('%s: the path, the errno in words with its code, what to do, and how to go on', (code, words, fix) => {
    const e = fileSystemError(errno(code, { path: '/tmp/x.tmp', syscall: 'open' }), {
      path: '/w/.ralph/state.json',
      next: 'then run `ralph run --resume`',
    });
    expect(e).toBeInstanceOf(RalphError);
    expect(e?.code).toBe('fs_error');
    expect(e?.message.startsWith(`cannot write /w/.ralph/state.json: ${words} (${code}): `)).toBe(true);
    expect(e?.message).toContain(fix);
    expect(e?.message.endsWith(', then run `ralph run --resume`')).toBe(true);
    expect(errnoInWords(errno(code))).toBe(`${words} (${code})`);
  });

  it('names the path the error carries when none is given, and says "read" for a read', () => {
    expect(fileSystemError(errno('EACCES', { path: '/w/ralph.yml', syscall: 'read' }))?.message).toMatch(
      /^cannot read \/w\/ralph\.yml: permission denied \(EACCES\): /,
    );
  });

  it('is not for other errors: EEXIST (a lock race), no code, a RalphError of another kind', () => {
    expect(fileSystemError(errno('EEXIST'))).toBeUndefined();
    expect(fileSystemError(new Error('boom'))).toBeUndefined();
    expect(fileSystemError(new RalphError('usage', 'bad flag'))).toBeUndefined();
  });

  it('adds how to go on once: a converted error keeps its path, and an earlier `next` wins', () => {
    const low = fileSystemError(errno('ENOSPC'), { path: '/w/a.log' });
    expect(low?.message).toBe('cannot write /w/a.log: no space left on device (ENOSPC): free some space');
    const high = fileSystemError(low, { next: 'then run the command again' });
    expect(high).toBeInstanceOf(FileSystemError);
    expect(high?.message).toBe(
      'cannot write /w/a.log: no space left on device (ENOSPC): free some space, then run the command again',
    );
    expect(fileSystemError(high, { next: 'something else' })).toBe(high);
  });
});
