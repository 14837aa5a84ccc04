import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createAmpParser } from '../../src/backends/agents/amp.ts';
import { createClineParser } from '../../src/backends/agents/cline.ts';
import { createCopilotParser } from '../../src/backends/agents/copilot.ts';
import { createCursorParser } from '../../src/backends/agents/cursor.ts';
import { createQwenParser } from '../../src/backends/agents/qwen.ts';
import { createCodexParser } from '../../src/backends/parsers/codex-stream.ts';
import { createGeminiParser } from '../../src/backends/parsers/gemini-stream.ts';
import { createOpencodeParser } from '../../src/backends/parsers/opencode-stream.ts';
import { createPiParser } from '../../src/backends/parsers/pi-stream.ts';
import { createStreamJsonParser, createTextParser } from '../../src/backends/parsers/stream-json.ts';
import type { OutputParser } from '../../src/backends/types.ts';
import { hatConfigIssues } from '../../src/config/hat-checks.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import { parseRalphrc, parseTomlScalars } from '../../src/config/migrate/peer-files.ts';
import { adaptOrchestratorLayer } from '../../src/config/orchestrator/adapt-layer.ts';
import { configSchema } from '../../src/config/schema.ts';
import { ConfigError, RalphError } from '../../src/errors.ts';
import { parseSkillFile } from '../../src/skills/skill-file.ts';
import { parseEventLine, parseEventTags } from '../../src/state/events-log.ts';
import { parseMemories } from '../../src/state/memories/memories-text.ts';
import { parsePrd } from '../../src/state/tasks/prd-stories.ts';
import { parseTasksText } from '../../src/state/tasks/task-line.ts';
import { parseChecklist } from '../../src/workflows/checklist-parse.ts';
import { parseReport } from '../../src/workflows/tdd-report.ts';
import { parseTddState } from '../../src/workflows/tdd-state.ts';

/**
 * Every parser of outside input, fed generated and mutated input: it never throws (config errors
 * excepted, as ConfigError), never hangs, and keeps what it returns bounded by what it was given.
 * `npm test` runs a few thousand inputs per parser; `npm run fuzz` sets RALPH_FUZZ_RUNS=100000.
 */
const RUNS = Number(process.env.RALPH_FUZZ_RUNS ?? 1500);
const TIMEOUT = Math.max(60_000, RUNS * 5);
const params = { numRuns: RUNS };

const KEYS = [
  'type',
  'subtype',
  'message',
  'content',
  'text',
  'usage',
  'item',
  'part',
  'event',
  'error',
  'result',
  'delta',
  'id',
  'name',
  'input',
  'is_error',
  'total_cost_usd',
  'stats',
  'model',
  'session_id',
  'status',
  'input_tokens',
  'output_tokens',
  'tokens',
  'cost',
  'data',
  'role',
  'tool_use_id',
  'msg',
  'payload',
  'topic',
  'rate_limit_info',
  'resetsAt',
  'code',
  'say',
  'ask',
  'properties',
  'info',
  'parts',
  'stopReason',
  'errorMessage',
  'toolCallId',
  'toolName',
  'args',
  'isError',
  'responseId',
];
const TYPES = [
  'system',
  'init',
  'assistant',
  'user',
  'result',
  'message',
  'tool_use',
  'tool_result',
  'tool_call',
  'text',
  'error',
  'thread.started',
  'turn.started',
  'turn.completed',
  'turn.failed',
  'item.started',
  'item.completed',
  'step_start',
  'step_finish',
  'rate_limit_event',
  'stream_event',
  'session.idle',
  'assistant.message',
  'assistant.usage',
  'session.error',
  'say',
  'completion_result',
  'api_req_started',
  'session',
  'message_end',
  'tool_execution_start',
  'tool_execution_end',
  'auto_retry_start',
  'agent_end',
];

/** JSON objects shaped like agent CLI events (known keys and types, arbitrary values, nesting). */
const eventObject: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  obj: fc.dictionary(
    fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 8 })),
    fc.oneof(
      { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
      { weight: 2, arbitrary: fc.constantFrom(...TYPES) },
      { weight: 2, arbitrary: tie('obj') },
      { weight: 1, arbitrary: fc.array(tie('obj'), { maxLength: 3 }) },
    ),
    { maxKeys: 6 },
  ),
})).obj;

/** A line as the parsers meet it: a JSON event, cut short or with a stray character, or noise. */
const mutated = (text: string) =>
  fc.oneof(
    fc.constant(text),
    fc.nat(text.length).map((n) => text.slice(0, n)),
    fc
      .tuple(fc.nat(text.length), fc.string({ maxLength: 2 }))
      .map(([n, s]) => text.slice(0, n) + s + text.slice(n)),
  );
const line = fc.oneof(
  { weight: 4, arbitrary: eventObject.chain((o) => mutated(JSON.stringify(o))) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
);
const lines = fc.array(line, { maxLength: 12 });

const PARSERS: [string, () => OutputParser][] = [
  ['claude stream-json', createStreamJsonParser],
  ['text', createTextParser],
  ['codex', () => createCodexParser('gpt-5')],
  ['gemini', createGeminiParser],
  ['opencode', () => createOpencodeParser()],
  ['qwen', createQwenParser],
  ['copilot', createCopilotParser],
  ['cline', createClineParser],
  ['amp', createAmpParser],
  ['cursor', createCursorParser],
  ['pi', createPiParser],
];

describe('agent stream parsers never throw on any line', () => {
  it.each(PARSERS)(
    '%s',
    (_name, create) => {
      fc.assert(
        fc.property(lines, (input) => {
          const parser = create();
          let events = 0;
          for (const l of input) {
            const out = parser.parseLine(l);
            expect(Array.isArray(out)).toBe(true);
            events += out.length;
          }
          const total = input.reduce((n, l) => n + l.length, 0);
          expect(parser.finalText().length).toBeLessThanOrEqual(total + input.length);
          expect(events).toBeLessThanOrEqual(total + input.length * 4);
        }),
        params,
      );
    },
    TIMEOUT,
  );
});

/** Markdown-ish text made of the lines these formats use, plus noise. */
function markdown(vocabulary: string[]) {
  return fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...vocabulary) },
        { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      ),
      {
        maxLength: 30,
      },
    )
    .map((ls) => ls.join('\n'));
}

describe('file parsers never throw and stay bounded', () => {
  it(
    'events JSONL lines and <event> tags',
    () => {
      fc.assert(
        fc.property(line, fc.string({ maxLength: 300 }), (l, text) => {
          const parsed = parseEventLine(l);
          expect('event' in parsed || 'error' in parsed).toBe(true);
          const tags = parseEventTags(`${text}<event topic="a.b">${l}</event>${text}`);
          expect(tags.length).toBeGreaterThanOrEqual(1);
          expect(tags.length).toBeLessThanOrEqual(text.length + l.length + 1);
        }),
        params,
      );
    },
    TIMEOUT,
  );

  it(
    'tasks JSONL',
    () => {
      fc.assert(
        fc.property(lines, (input) => {
          const text = input.join('\n');
          expect(parseTasksText(text).length).toBeLessThanOrEqual(input.length);
        }),
        params,
      );
    },
    TIMEOUT,
  );

  it(
    'prd.json (snarktank/ralph-tui): stories or a RalphError naming the file, nothing else',
    () => {
      const story = fc.dictionary(
        fc.constantFrom(
          'id',
          'title',
          'description',
          'acceptanceCriteria',
          'priority',
          'passes',
          'dependsOn',
        ),
        fc.jsonValue({ maxDepth: 2 }),
      );
      const doc = fc.record({
        userStories: fc.array(fc.oneof(story, fc.jsonValue({ maxDepth: 1 })), { maxLength: 6 }),
      });
      fc.assert(
        fc.property(
          doc.chain((d) => mutated(JSON.stringify(d))),
          (text) => {
            try {
              expect(parsePrd(text, 'prd.json').length).toBeLessThanOrEqual(text.length);
            } catch (error) {
              expect(error).toBeInstanceOf(RalphError);
              expect((error as Error).message).toMatch(/^prd\.json: /);
            }
          },
        ),
        params,
      );
    },
    TIMEOUT,
  );

  it(
    "the other loops' settings files (.ralphrc, ralph-tui config.toml)",
    () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.oneof(
              fc.string({ maxLength: 80 }),
              fc.constantFrom('[trackerOptions]', '[[agents]]', 'A="${A:-x}"', 'k = "v"'),
            ),
            { maxLength: 12 },
          ),
          (ls) => {
            const text = ls.join('\n');
            expect(parseRalphrc(text).size).toBeLessThanOrEqual(ls.length);
            expect(parseTomlScalars(text).size).toBeLessThanOrEqual(ls.length);
          },
        ),
        params,
      );
    },
    TIMEOUT,
  );

  it(
    'memories markdown',
    () => {
      const md = markdown([
        '# Memories',
        '## Patterns',
        '## Fixes',
        '## Decisions',
        '## Context',
        '### mem-1-a',
        '### mem-2',
        '> quoted',
        '>',
        '<!-- tags: a, b | created: 2026-01-01 -->',
        '<!-- tags: -->',
        '',
      ]);
      fc.assert(
        fc.property(md, (text) => {
          const entries = parseMemories(text);
          expect(entries.length).toBeLessThanOrEqual(text.split('\n').length);
        }),
        params,
      );
    },
    TIMEOUT,
  );

  it(
    'checklist, TDD state and TDD report markdown',
    () => {
      const md = markdown([
        '# Design',
        '## Milestone 1: Setup',
        '## Milestone 2',
        '### Tasks',
        '- [ ] task',
        '- [x] done',
        '  - [ ] nested',
        '```',
        '<!-- c -->',
        '# Goal',
        '# Current task',
        '# Constraints',
        '# Creative tasks',
        '# History',
        '## Status',
        '## Tests',
        'ENGINEERING',
        '- Iteration 1',
        '',
      ]);
      fc.assert(
        fc.property(md, (text) => {
          const c = parseChecklist(text);
          expect(c.milestones.length).toBeLessThanOrEqual(text.split('\n').length + 1);
          parseTddState(text);
          parseReport(text, ['Status', 'Tests', 'Next']);
        }),
        params,
      );
    },
    TIMEOUT,
  );

  it(
    'skill files (SKILL.md): front matter and markdown',
    () => {
      const md = markdown([
        '---',
        'name: tdd',
        'description: >',
        '  two lines',
        'hats: [builder]',
        'backends: claude',
        'tags:',
        '  - x',
        ': [[',
        '# Skill',
        '',
      ]);
      fc.assert(
        fc.property(md, (text) => {
          const skill = parseSkillFile(text, 'fallback');
          expect(skill.name).not.toMatch(/\n/);
          expect(skill.description).not.toMatch(/\n/);
          expect(skill.body.length).toBeLessThanOrEqual(text.length);
          expect(skill.hats.length + skill.backends.length + skill.tags.length).toBeLessThanOrEqual(
            text.length,
          );
        }),
        params,
      );
    },
    TIMEOUT,
  );

  it(
    'ralph.yml: any text is a config or a ConfigError, never a crash (ralph-orchestrator keys read its way first)',
    () => {
      const yamlish = fc.oneof(
        { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => stringify(v)) },
        {
          weight: 3,
          arbitrary: fc
            .dictionary(
              fc.constantFrom(
                'event_loop',
                'cli',
                'hats',
                'tasks',
                'memories',
                'core',
                'gates',
                'git',
                'events',
                'RObot',
                'x',
                // ralph-orchestrator's v1 and ignored keys: read its way before the schema.
                'agent',
                'max_iterations',
                'features',
                'adapters',
              ),
              fc.oneof(fc.jsonValue({ maxDepth: 3 }), eventObject),
              { maxKeys: 5 },
            )
            .chain((o) => mutated(stringify(o))),
        },
        { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
      );
      fc.assert(
        fc.property(yamlish, (text) => {
          try {
            const { raw } = parseConfigText(text, 'ralph.yml');
            const parsed = configSchema.safeParse(adaptOrchestratorLayer(raw).raw);
            if (parsed.success) hatConfigIssues(parsed.data);
          } catch (error) {
            expect(error).toBeInstanceOf(ConfigError);
          }
        }),
        params,
      );
    },
    TIMEOUT,
  );
});
