import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pinTimes, sameSizeSameMtime } from '../helpers/file-times.ts';
import { runLoopIn } from '../helpers/library-loop.ts';
import { elapse } from '../helpers/wait.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// What the prompt reads every iteration (scratchpad, memories, tasks) is read again only when the
// file changed: an edit made between iterations must still reach the next prompt, even one of the
// same size with the mtime put back, on files old enough to be answered from the cache.

const task = (title: string) =>
  `${JSON.stringify({ id: 'task-aaaaaaaa', title, status: 'open', priority: 2, blocked_by: [], created: '' })}\n`;
const memories = (text: string) =>
  ['# Memories', '', '## Patterns', '', '### mem-1737372000-a1b2', `> ${text}`, ''].join('\n');

describe('runLoop: files the prompt reads, edited between iterations', () => {
  it('the next prompt has the scratchpad, memories and tasks as they are now', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'notes.md': 'scratch-note-alpha\n',
      '.ralph/agent/memories.md': memories('memory-alpha'),
      '.ralph/agent/tasks.jsonl': task('task-title-alpha'),
      'ralph.yml': [
        'event_loop:',
        '  prompt_file: PROMPT.md',
        '  max_iterations: 3',
        '  max_idle_iterations: 0',
        'core:',
        '  scratchpad: notes.md',
        'cli:',
        '  backend: fake',
        '  fake_script: fake-agent.yml',
        '',
      ].join('\n'),
      'fake-agent.yml': ['turns:', '  - do:', '      - save_prompt: "prompt-{{iteration}}.md"'].join('\n'),
    });
    for (const f of ['notes.md', '.ralph/agent/memories.md', '.ralph/agent/tasks.jsonl'])
      pinTimes(join(dir, f));
    await elapse(2100, "past the racy window: the first iteration's reads are remembered");
    const result = await runLoopIn(dir, {
      afterIteration: async ({ state }) => {
        if (state.iterations === 1) {
          sameSizeSameMtime(join(dir, 'notes.md'), 'scratch-note-gamma\n');
          sameSizeSameMtime(join(dir, '.ralph/agent/memories.md'), memories('memory-gamma'));
          sameSizeSameMtime(join(dir, '.ralph/agent/tasks.jsonl'), task('task-title-gamma'));
        }
        return undefined;
      },
    });
    expect(result.iterations).toBe(3);
    const prompt = (n: number) => readFileSync(join(dir, `prompt-${n}.md`), 'utf8');
    for (const word of ['scratch-note-alpha', 'memory-alpha', 'task-title-alpha']) {
      expect(prompt(1)).toContain(word);
      expect(prompt(2)).not.toContain(word);
    }
    for (const word of ['scratch-note-gamma', 'memory-gamma', 'task-title-gamma']) {
      expect(prompt(2)).toContain(word);
      expect(prompt(3)).toContain(word);
    }
  });
});
