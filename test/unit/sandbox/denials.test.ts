import { describe, expect, it } from 'vitest';
import { explainDenials, MAX_DENIALS } from '../../../src/sandbox/denials.ts';
import { sandboxPolicy } from '../../../src/sandbox/sandbox-policy.ts';
import { sandboxInput } from '../../helpers/sandbox-input.ts';

const WS = '/work/proj';
const policy = sandboxPolicy(sandboxInput(WS, '/home/dev', { protectedPaths: [`${WS}/test/a.test.ts`] }));
const found = (output: string) => explainDenials(output, policy).map((d) => [d.path, d.rule.reason]);

describe('explainDenials', () => {
  it('reads what real tools print for a refused write', () => {
    const output = [
      "touch: cannot touch '.git/hooks/pre-commit': Read-only file system",
      "Error: EROFS: read-only file system, open '/work/proj/.ralph/state.json'",
      'error: could not write config file .git/config: Device or resource busy',
      "OSError: [Errno 30] Read-only file system: 'ralph.yml'",
      'sh: 1: cannot create test/a.test.ts: Read-only file system',
      'mkdir: cannot create directory ‘/work/proj/.ralph/x’: Read-only file system',
      "EBUSY: resource busy or locked, rename '/work/proj/PROMPT.md.tmp' -> '/work/proj/PROMPT.md'",
    ].join('\n');
    expect(found(output)).toEqual([
      [`${WS}/.git/hooks/pre-commit`, 'git control file'],
      [`${WS}/.ralph/state.json`, "Ralph's state"],
      [`${WS}/.git/config`, 'git control file'],
      [`${WS}/ralph.yml`, 'config'],
      [`${WS}/test/a.test.ts`, 'protected (gates.protect)'],
      [`${WS}/.ralph/x`, "Ralph's state"],
      [`${WS}/PROMPT.md`, 'prompt'],
    ]);
  });

  it('reads a missing file under the hidden home, in a JSON stream too, with the line as evidence', () => {
    const stream = JSON.stringify({
      type: 'tool_result',
      content: 'ls\ncat: /home/dev/.ssh/id_rsa: No such file or directory\n',
    });
    const [denial] = explainDenials(stream, policy);
    expect(denial).toMatchObject({
      path: '/home/dev/.ssh/id_rsa',
      rule: { reason: 'your home directory (hidden)' },
    });
    expect(denial?.evidence).toBe('cat: /home/dev/.ssh/id_rsa: No such file or directory');
  });

  it('ignores what the sandbox allows: a writable path, a missing file outside hidden dirs, other errors', () => {
    const output = [
      "touch: cannot touch 'src/a.ts': Permission denied",
      'cat: /etc/nothing: No such file or directory',
      "cat: '.ralph/agent/tasks.jsonl': No such file or directory",
      'Error: something else went wrong',
    ].join('\n');
    expect(found(output)).toEqual([]);
  });

  it('names each path once and stops at 20', () => {
    const same = "touch: cannot touch 'ralph.yml': Read-only file system\n".repeat(3);
    expect(found(same)).toHaveLength(1);
    const many = Array.from(
      { length: 30 },
      (_, i) => `touch: cannot touch '.ralph/f${i}': Read-only file system`,
    ).join('\n');
    expect(explainDenials(many, policy)).toHaveLength(MAX_DENIALS);
  });
});
