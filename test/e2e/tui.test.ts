import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRalphScreen } from '../helpers/screen.ts';
import { elapse } from '../helpers/wait.ts';
import {
  fakeConfig,
  makeWorkspace,
  ROOT,
  readRecords,
  readState,
  readStatus,
  runRalph,
  waitFor,
} from '../helpers/workspace.ts';

const AGENT = [
  'turns:',
  '  - when: { iteration: 1 }',
  '    do:',
  '      - assistant: "Reading the code base for iteration {{iteration}}."',
  '        usage: { input_tokens: 1000, output_tokens: 200 }',
  '      - tool: { name: Bash, input: { command: "npm test" } }',
  '      - run: "ralph ask \'Which database?\' --options postgres,sqlite > answer.txt"',
  '      - result: { text: "done 1", cost_usd: 0.25, input_tokens: 1000, output_tokens: 200 }',
  '  - do:',
  '      - save_prompt: "p{{iteration}}.md"',
  '      - assistant: "Iteration {{iteration}} at work."',
  '      - sleep: 0.6',
  '      - result: { text: "done {{iteration}}", cost_usd: 0.25, input_tokens: 1000, output_tokens: 200 }',
].join('\n');

/** Keeps a screen as a test artifact (test-artifacts/, ignored by git). */
function keep(name: string, rows: string[]): void {
  const dir = join(ROOT, 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `${rows.join('\n')}\n`);
}

describe('terminal UI (ralph run on a terminal)', () => {
  it('shows header, output, events and iterations; answers, guides, pauses and stops from the keyboard', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 30, max_cost_usd: 20 })}`,
      'fake-agent.yml': AGENT,
    });
    const t = await startRalphScreen(['run'], dir, {}, { cols: 100, rows: 30 });
    // The agent asks: the TUI says so and `a` answers it.
    let rows = await t.waitForScreen(/WAITING FOR YOU — question q-/);
    const text = rows.join('\n');
    expect(rows[0]).toMatch(/^ralph \d{8}-\d{6}-[0-9a-f]+ · fake · iteration 1\/30 · /);
    expect(rows[1]).toMatch(/tokens 1,200 · cost \$0\.0000 of \$20\.00 ░+ 0%/);
    expect(text).toContain('Reading the code base for iteration 1.');
    expect(text).toContain('→ Bash');
    expect(rows.at(-2)).toMatch(/question q-[0-9a-f]+: Which database\? \[postgres\|sqlite\] — a answers/);
    keep('tui-waiting.txt', rows);
    t.write('a');
    await t.waitForScreen(/answer q-[0-9a-f]+: █/);
    t.write('sqlite\r');
    // The shell creates the file at once; the answer arrives when `ralph ask` returns.
    await waitFor(() => readFileSync(join(dir, 'answer.txt'), 'utf8') === 'sqlite\n', 10_000, 'the answer');

    // Guidance typed in the TUI reaches the next prompt.
    await t.waitForScreen(/iteration 2\/30/);
    t.write('g');
    await t.waitForScreen(/guidance: █/);
    t.write('prefer small commits\r');
    await t.waitForScreen(/← guidance from tui: prefer small/);
    // The prompt after the one running when it was sent carries it, exactly once.
    const carrying = () =>
      readdirSync(dir).filter(
        (f) => /^p\d+\.md$/.test(f) && readFileSync(join(dir, f), 'utf8').includes('prefer small commits'),
      );
    await waitFor(() => carrying().length === 1, 15_000, 'a prompt with the guidance');

    // p pauses before the next iteration, p again resumes.
    t.write('p');
    rows = await t.waitForScreen(/PAUSED — p resumes/);
    expect(readStatus(dir)).toBe('paused');
    expect(rows.join('\n')).toMatch(/#\d+ ✓ success/);
    keep('tui-paused.txt', rows);
    t.write('?');
    await t.waitForScreen(/q {2}stop after this iteration/);
    t.write('x');
    t.write('p');
    await t.waitForScreen(/\brunning\b/);

    // q stops after the iteration; the summary lands on the normal screen.
    t.write('q');
    const exit = await t.exited;
    expect(exit.exitCode).toBe(0);
    rows = await t.screen();
    expect(rows.join('\n')).toContain('ralph: cancelled — stopped by `ralph stop`');
    expect(readState(dir)).toMatchObject({ status: 'stopped', stop_reason: 'cancelled' });
    expect(readRecords(dir)[0]?.questions).toHaveLength(1);
  });

  it('fits 80×24 and a resize to 120×30 and back; repaints about once a second when the output is quiet (no flicker)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      // A flood of output: the TUI must not repaint per line.
      'fake-agent.yml':
        'turns:\n  - do:\n      - run: "for i in $(seq 1 4000); do echo line $i; done"\n      - sleep: 30\n',
    });
    const t = await startRalphScreen(['run'], dir);
    let rows = await t.waitForScreen(/line 4000/);
    expect(rows).toHaveLength(24);
    expect(rows.every((r) => r.length <= 80)).toBe(true);
    const before = t.writes();
    await elapse(1000, 'a second of quiet output');
    // Quiet output: the clock alone repaints about once a second.
    expect(t.writes() - before).toBeLessThanOrEqual(12);
    t.resize(120, 30);
    rows = await t.waitForScreen(/agent output {60,}events/);
    expect(rows).toHaveLength(30);
    t.resize(80, 24);
    rows = await t.waitForScreen(/agent output {20,40}events/);
    expect(rows.every((r) => r.length <= 80)).toBe(true);
    t.write('Q');
    expect((await t.exited).exitCode).toBe(0);
  });

  it('wraps the events pane at word boundaries, as a person sees it at 100×30', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ hang: true }]\n',
    });
    // A first run writes .ralph/.gitignore and says so in the events pane, in a line too long for it.
    const notice =
      "wrote .ralph/.gitignore: git ignores Ralph's runtime files and this file (`ralph init` makes it one to commit)";
    const t = await startRalphScreen(['run'], dir, {}, { cols: 100, rows: 30 });
    // The event after the notice: the notice is on screen by then.
    const rows = await t.waitForScreen(/starting run /);
    keep('tui-events-wrap.txt', rows);
    const header = rows.findIndex((r) => /^agent output +events/.test(r));
    const column = rows[header]?.indexOf('events') ?? -1;
    expect(column).toBeGreaterThan(0);
    const pane = rows.slice(header + 1).map((r) => r.slice(column).trim());
    const first = pane.findIndex((r) => r.startsWith('wrote .ralph/.gitignore'));
    const wrapped = pane.slice(
      first,
      pane.findIndex((r) => r.startsWith('starting run ')),
    );
    expect(wrapped.length).toBeGreaterThan(1);
    expect(wrapped.join(' ')).toBe(notice);
    const words = new Set(wrapped.flatMap((r) => r.split(' ')));
    for (const word of notice.split(' '))
      expect(words.has(word), `${word} whole in ${wrapped.join(' / ')}`).toBe(true);
    t.write('Q');
    await t.exited;
  });

  it('is off in a CI environment even on a terminal: plain lines (ink would draw nothing until the end)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: "plain output" }]\n',
    });
    const t = await startRalphScreen(['run'], dir, { CI: 'true' });
    expect((await t.exited).exitCode).toBe(2);
    const screen = (await t.screen()).join('\n');
    expect(screen).toContain('ralph: reached max_iterations (1)');
    expect(screen).not.toContain('agent output');
  });

  it('writes the same records and log with and without the TUI', async () => {
    const script = [
      'turns:',
      '  - do:',
      '      - assistant: "step {{iteration}}"',
      '      - write: { path: "f{{iteration}}.txt", content: "x" }',
      '      - result: { text: "ok {{iteration}}", cost_usd: 0.1, input_tokens: 10, output_tokens: 5 }',
    ].join('\n');
    const files = {
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 3 }),
      'fake-agent.yml': script,
    };
    const plain = makeWorkspace(files);
    const withTui = makeWorkspace(files);
    expect((await runRalph(['run', '--no-tui'], plain)).code).toBe(2);
    const t = await startRalphScreen(['run'], withTui);
    expect((await t.exited).exitCode).toBe(2);
    const volatile = new Set(['run_id', 'started_at', 'finished_at', 'duration_ms']);
    // The runtime in each decision's limits is a duration too.
    const stable = (dir: string) =>
      readRecords(dir).map((r) => {
        const kept = Object.fromEntries(Object.entries(r).filter(([k]) => !volatile.has(k)));
        if (kept.decision)
          kept.decision = { ...kept.decision, limits: { ...kept.decision.limits, runtime_ms: null } };
        return kept;
      });
    expect(stable(withTui)).toEqual(stable(plain));
    const log = (dir: string) => {
      const logs = join(dir, '.ralph', 'logs');
      return readFileSync(join(logs, readdirSync(logs)[0] as string), 'utf8')
        .replace(/\d{4}-\d\d-\d\d[ T][\d:.]+Z?/g, 'T')
        .replace(/\d{8}-\d{6}-[0-9a-f]+/g, 'RUN')
        .replace(/\d+(\.\d+)?\s?(ms|s)\b/g, 'D')
        .replaceAll(dir, 'WS');
    };
    expect(log(withTui)).toEqual(log(plain).replaceAll(plain, 'WS'));
  });
});
