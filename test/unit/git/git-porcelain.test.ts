import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExcludedPath, parsePorcelainV2, type WorkingTreeChange } from '../../../src/git/porcelain.ts';
import { describeRefusal, type RepoState } from '../../../src/git/repo-state.ts';
import { stderrTail } from '../../../src/git/run-git.ts';

const H0 = '0000000000000000000000000000000000000000';
const H1 = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

const ordinary = (xy: string, path: string) => `1 ${xy} N... 100644 100644 100644 ${H1} ${H1} ${path}`;
const renamed = (xy: string, path: string, from: string) =>
  `2 ${xy} N... 100644 100644 100644 ${H1} ${H1} R100 ${path}\0${from}`;
const unmerged = (xy: string, path: string) =>
  `u ${xy} N... 100644 100644 100644 100644 ${H1} ${H1} ${H1} ${path}`;

describe('parsePorcelainV2', () => {
  it('parses ordinary, rename, unmerged and untracked entries, and drops ignored ones and headers', () => {
    const text = [
      '# branch.oid (initial)',
      ordinary('.M', 'src/a file.ts'),
      ordinary('A.', 'new.txt'),
      `1 D. N... 100644 000000 000000 ${H1} ${H0} gone.txt`,
      renamed('R.', 'to name.txt', 'from name.txt'),
      unmerged('UU', 'conflict.txt'),
      '? untracked dir/x y.txt',
      '! ignored.log',
      '',
    ].join('\0');
    expect(parsePorcelainV2(text)).toEqual<WorkingTreeChange[]>([
      { path: 'src/a file.ts', status: '.M' },
      { path: 'new.txt', status: 'A.' },
      { path: 'gone.txt', status: 'D.' },
      { path: 'from name.txt', status: 'R.' },
      { path: 'to name.txt', status: 'R.', from: 'from name.txt' },
      { path: 'conflict.txt', status: 'UU' },
      { path: 'untracked dir/x y.txt', status: '??' },
    ]);
  });

  it('returns nothing for a clean tree', () => {
    expect(parsePorcelainV2('')).toEqual([]);
  });

  it('skips truncated entries instead of misreading them', () => {
    expect(parsePorcelainV2(`1 .M N... 100644\0? ok.txt\0`)).toEqual([{ path: 'ok.txt', status: '??' }]);
  });

  it('never throws, whatever the input', () => {
    const chunk = fc.oneof(
      fc.string(),
      fc.constantFrom('\0', ' ', '1 ', '2 ', 'u ', '? ', '! ', '# ', 'R100 ', '.M '),
    );
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 40 }), (parts) => {
        const changes = parsePorcelainV2(parts.join(''));
        for (const c of changes) expect(c.path.length).toBeGreaterThan(0);
      }),
    );
  });

  it('recovers every path of well-formed output, spaces and newlines included', () => {
    const path = fc.string({ minLength: 1 }).filter((s) => !s.includes('\0'));
    const entry = fc.oneof(
      fc.record({ kind: fc.constant('1' as const), path, status: fc.constantFrom('.M', 'A.', 'MM', '.D') }),
      fc.record({
        kind: fc.constant('2' as const),
        path,
        from: path,
        status: fc.constantFrom('R.', 'C.', 'RM'),
      }),
      fc.record({ kind: fc.constant('u' as const), path, status: fc.constantFrom('UU', 'AA', 'DU') }),
      fc.record({ kind: fc.constant('?' as const), path, status: fc.constant('??') }),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 10 }), (entries) => {
        const text = entries
          .map((e) => {
            if (e.kind === '1') return ordinary(e.status, e.path);
            if (e.kind === '2') return renamed(e.status, e.path, e.from);
            if (e.kind === 'u') return unmerged(e.status, e.path);
            return `? ${e.path}`;
          })
          .map((t) => `${t}\0`)
          .join('');
        const expected = entries.flatMap((e): WorkingTreeChange[] =>
          e.kind === '2'
            ? [
                { path: e.from, status: e.status },
                { path: e.path, status: e.status, from: e.from },
              ]
            : [{ path: e.path, status: e.status }],
        );
        expect(parsePorcelainV2(text)).toEqual(expected);
      }),
    );
  });

  it('reports both paths of every rename or copy, so no consumer misses the path a file left (issue 32, H9)', () => {
    const path = fc.string({ minLength: 1 }).filter((s) => !s.includes('\0'));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(path, path, fc.constantFrom('R.', 'C.', 'RM', '.R')), { maxLength: 8 }),
        (moves) => {
          const text = moves.map(([to, from, xy]) => `${renamed(xy, to, from)}\0`).join('');
          const paths = new Set(parsePorcelainV2(text).map((c) => c.path));
          for (const [to, from] of moves) {
            expect(paths.has(to)).toBe(true);
            expect(paths.has(from)).toBe(true);
          }
        },
      ),
    );
  });
});

describe('isExcludedPath', () => {
  const exclude = ['.ralph/state.json', '.ralph/logs/', './.ralph/runs'];
  it.each([
    ['.ralph/state.json', true],
    ['.ralph/state.json.tmp', false],
    ['.ralph/logs/2026-01-01_001.log', true],
    ['.ralph/logs', true],
    ['.ralph/logsx/a', false],
    ['.ralph/runs/r1/iterations.jsonl', true],
    ['.ralph/agent/scratchpad.md', false],
    ['src/.ralph/state.json', false],
  ])('%s → %s', (path, expected) => {
    expect(isExcludedPath(path, exclude)).toBe(expected);
  });

  it('excludes nothing with an empty list or empty entries', () => {
    expect(isExcludedPath('a', [])).toBe(false);
    expect(isExcludedPath('a', ['', './'])).toBe(false);
  });
});

describe('describeRefusal', () => {
  const ok: RepoState = { branch: 'main', head: 'a'.repeat(40), operation: null };

  it('accepts a branch, with or without commits', () => {
    expect(describeRefusal(ok)).toBeUndefined();
    expect(describeRefusal({ ...ok, head: null })).toBeUndefined();
  });

  it('refuses a detached HEAD, naming the commit', () => {
    expect(describeRefusal({ ...ok, branch: null })).toBe(
      `HEAD is detached (at ${'a'.repeat(12)}); check out a branch before running ralph`,
    );
  });

  it('refuses every operation in progress, before mentioning the detached HEAD it implies', () => {
    expect(describeRefusal({ branch: null, head: ok.head, operation: 'rebase' })).toBe(
      'a rebase is in progress; finish it (git rebase --continue) or abort it yourself before running ralph',
    );
    for (const operation of ['merge', 'cherry-pick', 'revert', 'bisect'] as const) {
      const message = describeRefusal({ ...ok, operation });
      expect(message).toMatch(
        new RegExp(`^a ${operation} is in progress; .*\\(git ${operation} .*before running ralph$`),
      );
    }
  });
});

describe('stderrTail', () => {
  it('starts at the first fatal/error line and joins lines', () => {
    expect(stderrTail('hint: a\nfatal: no\nfatal: Could not read\n\nPlease check\n')).toBe(
      'fatal: no fatal: Could not read Please check',
    );
  });
  it('keeps the last lines otherwise, and says when there was no output', () => {
    expect(stderrTail('1\n2\n3\n4\n5\n6\n7')).toBe('3 4 5 6 7');
    expect(stderrTail('\n  \n')).toBe('(no output)');
  });
});
