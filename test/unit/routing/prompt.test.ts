import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assemblePrompt, type PromptInput, tailWithin } from '../../../src/routing/assemble-prompt.ts';
import { ROOT } from '../../helpers/workspace.ts';

const BASE = '# Task\n\nMake the tests in test/ pass.\n';

const solo = (over: Partial<PromptInput> = {}): PromptInput => ({
  base: BASE,
  completionPromise: 'LOOP_COMPLETE',
  hat: null,
  hatsMode: false,
  events: [],
  scratchpad: null,
  scratchpadBudget: 6000,
  memories: '',
  readyTasks: [],
  ...over,
});

const builder = {
  id: 'builder',
  name: 'Builder',
  instructions: '## Builder\n\nImplement one task, then publish build.done.\n',
  publishes: ['build.done'],
};

describe('assemblePrompt', () => {
  it('solo mode: the base prompt comes first, then a DONE section naming the promise', () => {
    const out = assemblePrompt(solo());
    expect(out.startsWith(BASE.trimEnd())).toBe(true);
    expect(out).toContain('## DONE');
    expect(out.trimEnd().split('\n').at(-1)!.endsWith(' LOOP_COMPLETE')).toBe(true);
    expect(out).not.toContain('ralph emit');
    expect(out.endsWith('\n') && !out.endsWith('\n\n')).toBe(true);
  });

  it('hat mode: only the active hat instructions, events with payloads, how to publish, and no DONE section', () => {
    const out = assemblePrompt(
      solo({
        hat: builder,
        hatsMode: true,
        events: [
          { topic: 'build.task', payload: 'task-7' },
          { topic: 'task.resume', payload: null },
        ],
      }),
    );
    expect(out.indexOf('## Builder')).toBeGreaterThan(out.indexOf('Make the tests'));
    expect(out).toContain('## Events\n- build.task: task-7\n- task.resume\n');
    expect(out).toContain('`ralph emit <topic> [payload]`');
    expect(out).toContain('This hat publishes: build.done.');
    expect(out).not.toContain('## DONE');
    expect(out).not.toContain('LOOP_COMPLETE');
  });

  it('hats configured but none active: the coordinator sees events, how to publish, and DONE', () => {
    const out = assemblePrompt(solo({ hatsMode: true, events: [{ topic: 'task.start', payload: null }] }));
    expect(out).toContain('## DONE');
    expect(out).toContain('ralph emit');
  });

  it('shows the newest part of a long scratchpad, ready tasks and memories', () => {
    const pad = Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n');
    const out = assemblePrompt(
      solo({
        scratchpad: pad,
        scratchpadBudget: 200,
        memories: '### mem-1\n> use pnpm',
        readyTasks: [{ id: 'task-1', title: 'Write docs', priority: 2 }],
      }),
    );
    expect(out).toContain('## Scratchpad (.ralph/agent/scratchpad.md, newest part)');
    expect(out).toContain('line 499');
    expect(out).not.toContain('line 1\n');
    expect(out).toContain('## Memories\n### mem-1\n> use pnpm');
    expect(out).toContain('## Ready tasks\n- task-1 [P2] Write docs');
  });

  it('omits empty sections', () => {
    const out = assemblePrompt(solo({ scratchpad: '  \n', memories: '' }));
    expect(out).not.toContain('## Scratchpad');
    expect(out).not.toContain('## Memories');
    expect(out).not.toContain('## Ready tasks');
    expect(out).not.toContain('## Events');
  });

  it("adds little to seed 000's first board-scanner iteration", () => {
    const seed = parse(readFileSync(join(ROOT, 'test', 'fixtures', 'seed-000', 'ralph.yml'), 'utf8'));
    const base = readFileSync(join(ROOT, 'test', 'fixtures', 'seed-000', 'PROMPT.md'), 'utf8');
    const h = seed.hats.board_scanner;
    const out = assemblePrompt(
      solo({
        base,
        hatsMode: true,
        hat: { id: 'board_scanner', name: h.name, instructions: h.instructions, publishes: h.publishes },
        events: [{ topic: 'board.scan', payload: null }],
      }),
    );
    const ralphBytes =
      Buffer.byteLength(out) -
      Buffer.byteLength(base.trimEnd()) -
      Buffer.byteLength(h.instructions.trimEnd());
    expect(ralphBytes).toBeLessThan(300);
  });

  const promiseArb = fc
    .string({ unit: 'binary', minLength: 1, maxLength: 40 })
    .filter((s) => s.trim().length > 0 && !s.includes('\n'));
  const topicArb = fc.stringMatching(/^[a-z]{1,12}(\.[a-z]{1,12}){0,2}$/);

  it('property: the base prompt comes first verbatim; DONE only without an active hat', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        promiseArb,
        fc.boolean(),
        fc.boolean(),
        (base, completionPromise, withHat, hatsMode) => {
          const out = assemblePrompt(
            solo({ base, completionPromise, hat: withHat ? builder : null, hatsMode: hatsMode || withHat }),
          );
          expect(out.startsWith(base.trimEnd())).toBe(true);
          if (!base.includes('## DONE')) expect(out.includes('\n## DONE\n')).toBe(!withHat);
          if (!withHat) expect(out).toContain(completionPromise);
        },
      ),
    );
  });

  it("property: Ralph's own text stays under 1.5 KB beyond the user's prompt, the hat's instructions and the content it carries", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        promiseArb,
        fc.array(topicArb, { maxLength: 8 }),
        fc.array(
          fc.record({ topic: topicArb, payload: fc.option(fc.string({ maxLength: 60 }), { nil: null }) }),
          { maxLength: 5 },
        ),
        (base, completionPromise, publishes, events) => {
          const hat = { ...builder, publishes };
          const out = assemblePrompt(solo({ base, completionPromise, hat, hatsMode: true, events }));
          const content = [
            base.trimEnd(),
            hat.instructions.trimEnd(),
            ...publishes,
            ...events.flatMap((e) => [e.topic, e.payload ?? '']),
          ];
          const own = Buffer.byteLength(out) - content.reduce((n, c) => n + Buffer.byteLength(c), 0);
          expect(own).toBeLessThanOrEqual(1536);
        },
      ),
    );
  });

  it('property: tailWithin keeps a suffix of at most budget characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), fc.integer({ min: 1, max: 600 }), (text, budget) => {
        const { text: kept, omitted } = tailWithin(text, budget);
        expect(kept.length).toBeLessThanOrEqual(budget);
        expect(text.endsWith(kept)).toBe(true);
        expect(omitted).toBe(text.length > budget);
      }),
    );
  });
});
