import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import { configSchema, type RalphConfigInput } from '../../../src/config/schema.ts';
import { renderHatGraph } from '../../../src/routing/hat-graph.ts';

const seedDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/seed-000');
const seed = loadConfig({ file: join(seedDir, 'ralph.yml'), cwd: seedDir }).config;
const cfg = (input: RalphConfigInput) => configSchema.parse(input);

describe('renderHatGraph: text', () => {
  it('seed 000: one line per hat, the starting event, and every hand-off', () => {
    expect(renderHatGraph(seed, 'text')).toBe(
      [
        'start: board.scan → board_scanner',
        'board_scanner (Board Scanner): board.scan, board.rescan, task.resume → work.propose, work.finish, LOOP_COMPLETE',
        'proposal_writer (Proposal Writer): work.propose → board.rescan',
        'finisher (Finisher): work.finish → board.rescan',
        '',
        'edges:',
        'board_scanner → proposal_writer (work.propose)',
        'board_scanner → finisher (work.finish)',
        'board_scanner → LOOP_COMPLETE (completion; persistent: becomes task.resume → board_scanner)',
        'proposal_writer → board_scanner (board.rescan)',
        'finisher → board_scanner (board.rescan)',
        '',
      ].join('\n'),
    );
  });

  it('no hats: solo mode', () => {
    expect(renderHatGraph(cfg({}), 'text')).toMatch(/^no hats configured: solo mode/);
  });

  it('unnamed hats, default_publishes, unrouted topics, and the default start topic', () => {
    const text = renderHatGraph(
      cfg({
        hats: {
          planner: { triggers: ['task.start'], default_publishes: 'plan.ready' },
          builder: { triggers: ['plan.*'], publishes: ['build.done'] },
          idle: {},
        },
      }),
      'text',
    );
    expect(text).toContain('start: task.start → planner\n');
    expect(text).toContain('planner: task.start → plan.ready\n');
    expect(text).toContain('idle: (no triggers) → (publishes nothing)\n');
    expect(text).toContain('planner → builder (plan.ready)\n');
    expect(text).toContain('builder → build.done (no hat triggers on it)\n');
    expect(text).not.toContain('idle →');
  });

  it('an edge goes to the hat routing picks: the exact trigger over the catch-all', () => {
    const text = renderHatGraph(
      cfg({
        event_loop: { starting_event: 'go' },
        hats: {
          fallback: { triggers: ['*'], publishes: ['LOOP_COMPLETE'] },
          worker: { triggers: ['go'], publishes: ['go'] },
        },
      }),
      'text',
    );
    expect(text).toContain('start: go → worker\n');
    expect(text).toContain('worker → worker (go)\n');
    // The catch-all triggers on the completion promise too, so it is not a terminal topic here.
    expect(text).toContain('fallback → fallback (LOOP_COMPLETE)\n');
  });
});

describe('renderHatGraph: mermaid', () => {
  it('seed 000: a graph LR with START, a node per hat, an edge per topic, LOOP_COMPLETE as a terminal', () => {
    expect(renderHatGraph(seed, 'mermaid')).toBe(
      [
        'graph LR',
        '  START(["start: board.scan"])',
        '  h0["board_scanner<br/>Board Scanner"]',
        '  h1["proposal_writer<br/>Proposal Writer"]',
        '  h2["finisher<br/>Finisher"]',
        '  t0(["LOOP_COMPLETE"])',
        '  START -->|"board.scan"| h0',
        '  h0 -->|"work.propose"| h1',
        '  h0 -->|"work.finish"| h2',
        '  h0 -->|"LOOP_COMPLETE"| t0',
        '  h1 -->|"board.rescan"| h0',
        '  h2 -->|"board.rescan"| h0',
        '  t0 -.->|"persistent: task.resume"| h0',
        '',
      ].join('\n'),
    );
  });

  it('quotes are escaped and odd hat ids get safe node ids', () => {
    const out = renderHatGraph(
      cfg({ hats: { 'my-hat.v2': { name: 'The "best" hat', triggers: ['task.start'], publishes: ['x'] } } }),
      'mermaid',
    );
    expect(out).toContain('  h0["my-hat.v2<br/>The #quot;best#quot; hat"]');
    expect(out).toContain('  h0 -->|"x"| t0');
  });

  it('property: every edge joins declared nodes, and every published topic has an edge', () => {
    const topic = fc.constantFrom('a', 'b', 'a.x', 'a.*', '*', 'task.start', 'LOOP_COMPLETE');
    const hatArb = fc.record({
      triggers: fc.uniqueArray(topic, { maxLength: 2 }),
      publishes: fc.uniqueArray(
        topic.filter((t) => !t.includes('*')),
        { maxLength: 3 },
      ),
    });
    fc.assert(
      fc.property(fc.array(hatArb, { maxLength: 4 }), fc.boolean(), (list, persistent) => {
        const config = cfg({
          event_loop: { persistent },
          hats: Object.fromEntries(list.map((h, i) => [`hat${i}`, h])),
        });
        const lines = renderHatGraph(config, 'mermaid').trimEnd().split('\n');
        expect(lines[0]).toBe('graph LR');
        const declared = new Set(lines.flatMap((l) => /^ {2}(\w+)[[(]/.exec(l)?.slice(1) ?? []));
        const edges = lines.flatMap(
          (l) => /^ {2}(\w+) -\.?->(?:\|"[^"]*"\|)? (\w+)$/.exec(l)?.slice(1) ?? [],
        );
        expect(edges).toHaveLength(2 * lines.filter((l) => l.includes('->')).length);
        for (const node of edges) expect(declared).toContain(node);
        list.forEach((h, i) => {
          for (const t of h.publishes)
            expect(lines).toContainEqual(expect.stringMatching(`^  h${i} -->\\|"${t}"\\|`));
        });
      }),
    );
  });
});
