import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { elapse } from '../helpers/wait.ts';
import {
  makeWorkspace,
  readRecords,
  readState,
  runRalph,
  shellAgentConfig,
  shellResult,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

/** A ralph.yml with hats for the fake backend. */
function hatsConfig(hats: string, eventLoop: Record<string, unknown> = {}, extra = ''): string {
  const loop = Object.entries({ prompt_file: 'PROMPT.md', max_iterations: 12, ...eventLoop })
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)
    .join('\n');
  return `event_loop:\n${loop}\ncli:\n  backend: fake\n  fake_script: fake-agent.yml\nhats:\n${hats}\n${extra}`;
}

/**
 * The same hats with a shell agent (agent.sh, `shellAgentConfig`): where routing is the subject, not
 * the scripted agent, whose node start per iteration was much of these runs. The agent picks its
 * branch by RALPH_HAT, RALPH_ITERATION or the prompt ($p), as the fake agent's `when` did.
 */
function shellHatsConfig(hats: string, eventLoop: Record<string, unknown> = {}): string {
  return `${shellAgentConfig({ max_iterations: 12, ...eventLoop })}hats:\n${hats}\n`;
}

/** agent.sh: reads the prompt into $p, then runs `lines`. */
const agentSh = (...lines: string[]) => `p=$(cat)\n${lines.join('\n')}\n`;

async function events(dir: string, ...args: string[]): Promise<Record<string, any>[]> {
  return JSON.parse((await runRalph(['events', '--format', 'json', ...args], dir)).stdout);
}

const PLANNER_BUILDER = [
  '  planner:',
  '    name: Planner',
  '    description: plans',
  '    triggers: [task.start, task.resume, build.done]',
  '    publishes: [build.task, LOOP_COMPLETE]',
  '    instructions: Plan the next task.',
  '  builder:',
  '    name: Builder',
  '    description: builds',
  '    triggers: [build.task]',
  '    publishes: [build.done]',
  '    instructions: Build the task.',
].join('\n');

describe('hat routing and events', () => {
  it('routes by event, shows payloads in the prompt, and completes on the last event', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Build things.\n',
      'ralph.yml': shellHatsConfig(PLANNER_BUILDER),
      'agent.sh': agentSh(
        'case "$RALPH_HAT:$p" in',
        '  planner:*build.done*) ralph emit LOOP_COMPLETE ;;',
        '  planner:*) ralph emit build.task "add a README" ;;',
        "  builder:*'- build.task: add a README'*) printf '# hi\\n' > README.md; ralph emit build.done README.md ;;",
        'esac',
      ),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['planner', 'builder', 'planner']);
    expect(existsSync(join(dir, 'README.md'))).toBe(true);
    const all = await events(dir);
    expect(all.map((e) => e.topic)).toEqual(['task.start', 'build.task', 'build.done', 'LOOP_COMPLETE']);
    expect(all[0]).toMatchObject({ source: 'starting_event' });
    expect(all[1]).toMatchObject({ iteration: 1, hat: 'planner', payload: 'add a README' });
    expect((await events(dir, '--topic', 'build.done'))[0]).toMatchObject({
      payload: 'README.md',
      iteration: 2,
    });
    expect(await events(dir, '--iteration', '2')).toHaveLength(1);
    expect((await events(dir, '--last', '1'))[0]?.topic).toBe('LOOP_COMPLETE');
    const table = await runRalph(['events'], dir);
    expect(table.stdout).toMatch(/build\.task\s+#1 planner agent\s+add a README/);
  });

  it('accepts <event topic> tags in the final text', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Build things.\n',
      'ralph.yml': shellHatsConfig(PLANNER_BUILDER, { max_iterations: 3 }),
      'agent.sh': agentSh(
        'case "$RALPH_HAT" in',
        `  planner) ${shellResult('Planned.\\\\n<event topic=\\\\\\"build.task\\\\\\">write docs</event>')} ;;`,
        `  builder) ${shellResult('<event topic=\\\\\\"build.done\\\\\\">docs</event>')} ;;`,
        'esac',
      ),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['planner', 'builder', 'planner']);
    expect((await events(dir, '--topic', 'build.task'))[0]).toMatchObject({
      payload: 'write docs',
      source: 'tag',
    });
  });

  it('injects default_publishes when a hat publishes nothing', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': shellHatsConfig(
        PLANNER_BUILDER.replace(
          '    publishes: [build.done]',
          '    publishes: [build.done]\n    default_publishes: build.done',
        ),
        { max_iterations: 3 },
      ),
      'agent.sh': agentSh(
        'case "$RALPH_HAT" in',
        '  planner) ralph emit build.task t ;;',
        "  builder) echo 'built, forgot to emit' ;;",
        'esac',
      ),
    });
    await runRalph(['run'], dir);
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['planner', 'builder', 'planner']);
    expect((await events(dir, '--topic', 'build.done'))[0]).toMatchObject({
      source: 'default_publishes',
      hat: 'builder',
    });
  });

  it('recovers a silent agent with task.resume at most 3 times, then stops with exit 1 and says why', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': shellHatsConfig(PLANNER_BUILDER),
      'agent.sh': agentSh("echo 'I did some work but never publish'"),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    const state = readState(dir);
    expect(state.stop_reason).toBe('no_events');
    expect(state.stop_message).toContain('never published an event');
    expect(r.stderr).toContain('never published an event'); // a failed run says why on stderr
    expect(state.iterations).toBe(4);
    expect((await events(dir, '--topic', 'task.resume')).map((e) => e.source)).toEqual([
      'recovery',
      'recovery',
      'recovery',
    ]);
  });

  it('stops a stale loop: the same events 3 times in a row (exit 1)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': shellHatsConfig(PLANNER_BUILDER),
      'agent.sh': agentSh('ralph emit task.resume same'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'stale_loop', iterations: 3 });
    expect(readState(dir).stop_message).toContain('task.resume');
  });

  it('reports malformed event lines without crashing, and stops after 3 in a row', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': shellHatsConfig(PLANNER_BUILDER),
      'agent.sh': agentSh(
        'case "$RALPH_ITERATION" in',
        `  1) echo '{oops' >> "$RALPH_EVENTS_FILE"; ralph emit build.task a ;;`,
        '  2) ralph emit build.done ;;',
        `  *) printf 'nope\\n[]\\n{"payload":1}\\n' >> "$RALPH_EVENTS_FILE" ;;`,
        'esac',
      ),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    const state = readState(dir);
    expect(state.stop_reason).toBe('malformed_events');
    expect(state.iterations).toBe(3);
    const malformed = await events(dir, '--topic', 'event.malformed');
    expect(malformed).toHaveLength(4);
    expect(malformed[0]?.payload).toContain('{oops');
  });

  it('does not route stale events published alongside completion in persistent mode', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': shellHatsConfig(
        [
          '  scanner:',
          '    description: scans',
          '    triggers: [board.scan, board.rescan, task.resume]',
          '    publishes: [work.propose, LOOP_COMPLETE]',
          '    instructions: scan',
          '  writer:',
          '    description: writes',
          '    triggers: [work.propose]',
          '    publishes: [board.rescan]',
          '    instructions: write',
        ].join('\n'),
        { starting_event: 'board.scan', persistent: true, max_iterations: 3, cooldown_delay_seconds: 0.1 },
      ),
      // The scanner publishes a dispatch and then LOOP_COMPLETE in the same turn: the dispatch is stale.
      'agent.sh': agentSh(
        'case "$RALPH_HAT" in',
        '  scanner) ralph emit work.propose item-9.txt; ralph emit LOOP_COMPLETE ;;',
        '  *) ralph emit board.rescan ;;',
        'esac',
      ),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['scanner', 'scanner', 'scanner']);
    expect(r.stdout).toContain('ignoring stale events from the finished cycle: work.propose');
  });

  it('blocks completion on required_events and open tasks, telling the agent why', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': shellHatsConfig(PLANNER_BUILDER, { required_events: ['build.done'] }),
      'agent.sh': agentSh(
        'case "$RALPH_ITERATION:$RALPH_HAT:$p" in',
        '  1:*) ralph tools task add "write tests" > task-id.txt; ralph emit LOOP_COMPLETE ;;',
        '  *:planner:*Completion\\ rejected*) ralph emit build.task go ;;',
        '  *:builder:*) ralph tools task close $(cat task-id.txt); ralph emit build.done ;;',
        '  *:planner:*) ralph emit LOOP_COMPLETE ;;',
        'esac',
      ),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const records = readRecords(dir);
    expect(records[0]?.reason).toContain('completion rejected');
    expect(records[0]?.reason).toContain('required events not seen yet: build.done');
    expect(records[0]?.reason).toContain('1 task(s) still open');
    expect(records.map((x) => x.verdict)).toEqual(['success', 'success', 'success', 'complete']);
    expect((await events(dir, '--topic', 'task.resume'))[0]).toMatchObject({ source: 'completion_rejected' });
  });

  it('publishes <hat>.exhausted and stops routing to a hat past max_activations', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': shellHatsConfig(
        PLANNER_BUILDER.replace(
          '    instructions: Build the task.',
          '    instructions: Build the task.\n    max_activations: 1',
        ),
        { max_iterations: 5 },
      ),
      'agent.sh': agentSh(
        'case "$RALPH_HAT" in',
        '  planner) ralph emit build.task "t$RALPH_ITERATION" ;;',
        '  *) ralph emit build.done ;;',
        'esac',
      ),
    });
    await runRalph(['run'], dir);
    expect(readRecords(dir).filter((x) => x.hat === 'builder')).toHaveLength(1);
    expect((await events(dir, '--topic', 'builder.exhausted')).length).toBeGreaterThanOrEqual(1);
  });

  it('runs a hat on its own backend', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': hatsConfig(
        PLANNER_BUILDER.replace(
          '    instructions: Build the task.',
          '    instructions: Build the task.\n    backend: custom\n    command: sh\n    args: ["-c", "echo custom-backend-ran > custom.txt; ralph emit build.done"]',
        ),
        { max_iterations: 2 },
        '',
      ),
      'fake-agent.yml': 'turns:\n  - do: [{ run: "ralph emit build.task t" }]\n',
    });
    await runRalph(['run'], dir);
    expect(readRecords(dir).map((x) => `${x.hat}:${x.backend}`)).toEqual(['planner:fake', 'builder:custom']);
    expect(readFileSync(join(dir, 'custom.txt'), 'utf8')).toBe('custom-backend-ran\n');
  });

  it('rejects two hats with the same trigger as a config error at its position', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': hatsConfig(
        PLANNER_BUILDER.replace('    triggers: [build.task]', '    triggers: [build.task, build.done]'),
      ),
      'fake-agent.yml': 'turns:\n  - do: [{ print: x }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ralph\.yml:\d+:\d+: hats\.builder\.triggers\.1: .*build\.done.*planner/);
    expect((await runRalph(['hats', 'validate'], dir)).code).toBe(1);
  });
});

describe('hats and --resume', () => {
  it('re-runs the interrupted hat with the same events after kill -9', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': hatsConfig(
        PLANNER_BUILDER.replace(
          '    instructions: Build the task.',
          '    instructions: Build the task.\n    max_activations: 1',
        ),
      ),
      'fake-agent.yml': [
        'turns:',
        '  - when: { hat: planner, prompt: "build.done" }',
        '    do: [{ run: "ralph emit LOOP_COMPLETE" }]',
        '  - when: { hat: planner }',
        '    do: [{ run: "ralph emit build.task \\"the payload\\"" }]',
        '  - when: { hat: builder, file_missing: go.flag }',
        '    do: [{ run: "echo $PPID > agent.pid" }, { hang: true }]',
        '  - when: { hat: builder, prompt: "- build.task: the payload" }',
        '    do: [{ run: "ralph emit build.done" }]',
      ].join('\n'),
    });
    const first = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'agent.pid')), 15_000, 'builder running');
    await waitFor(() => readState(dir).current?.agent_pid > 0, 5000, 'agent pid recorded');
    first.child.kill('SIGKILL');
    await first.done;
    writeFileSync(join(dir, 'go.flag'), '');
    const r = await runRalph(['run', '--resume'], dir);
    expect(r.code).toBe(0);
    // The builder ran once (its max_activations is 1), with the event it was given before the crash.
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['planner', 'builder', 'planner']);
    expect(readState(dir).hat_activations).toEqual({ planner: 2, builder: 1 });
  });
});

describe('persistent mode idle', () => {
  it('with idle_watch makes no agent call while nothing changes, and wakes on a change', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'inbox/.keep': '',
      'ralph.yml': hatsConfig(
        [
          '  scanner:',
          '    description: scans inbox/',
          '    triggers: [board.scan, task.resume, item.done]',
          '    publishes: [item.do, LOOP_COMPLETE]',
          '    instructions: scan',
          '  worker:',
          '    description: works',
          '    triggers: [item.do]',
          '    publishes: [item.done]',
          '    instructions: work',
        ].join('\n'),
        { starting_event: 'board.scan', persistent: true, max_iterations: 50, idle_watch: ['inbox'] },
      ),
      'fake-agent.yml': [
        'turns:',
        '  - when: { hat: scanner }',
        '    do:',
        '      - run: "f=$(ls inbox | head -n 1); if [ -n \\"$f\\" ]; then ralph emit item.do $f; else ralph emit LOOP_COMPLETE; fi"',
        '  - when: { hat: worker }',
        '    do:',
        '      - run: "f=$(ls inbox | head -n 1); mkdir -p out; mv inbox/$f out/$f; ralph emit item.done $f"',
      ].join('\n'),
    });
    const loop = startRalph(['run'], dir);
    const records = () => (existsSync(join(dir, '.ralph', 'runs')) ? readRecords(dir) : []);
    await waitFor(() => records().length >= 1, 15_000, 'first scan');
    // The first scan finds nothing (ls skips .keep) and idles.
    await elapse(1500, 'an idle window: no iteration without a change');
    expect(records()).toHaveLength(1);
    writeFileSync(join(dir, 'inbox', 'job-1.txt'), 'do it');
    await waitFor(() => records().length >= 4, 15_000, 'scan, work, scan after the change');
    await elapse(1000, 'no further iteration once the change is worked');
    const settled = records().length;
    expect(settled).toBe(4);
    expect((await runRalph(['stop'], dir)).code).toBe(0);
    // `ralph stop` also wakes an idle loop.
    const r = await loop.done;
    expect(r.code).toBe(0);
    expect(readState(dir).stop_reason).toBe('cancelled');
    expect(existsSync(join(dir, 'out', 'job-1.txt'))).toBe(true);
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['scanner', 'scanner', 'worker', 'scanner']);
  });
});

describe('an echo of the prompt never counts as events', () => {
  const INSTRUCTIONS = [
    '  worker:',
    '    triggers: [task.start, task.resume]',
    '    publishes: [LOOP_COMPLETE]',
    '    instructions: |',
    '      Do the work. When everything is done, end with:',
    '      <event topic="LOOP_COMPLETE">all done</event>',
  ].join('\n');

  it('the example tag of the hat instructions, echoed back, does not complete the run', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Build things.\n',
      'ralph.yml': hatsConfig(INSTRUCTIONS, { max_iterations: 2 }),
      'fake-agent.yml':
        'turns:\n  - do: [{ echo_prompt: true }, { print: "\\nI looked around; nothing done yet.\\n" }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(readState(dir).stop_reason).toBe('max_iterations');
    expect((await events(dir, '--topic', 'LOOP_COMPLETE')).filter((e) => e.source === 'tag')).toEqual([]);
  });

  it('the same tag written by the agent after the echo still counts', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Build things.\n',
      'ralph.yml': hatsConfig(INSTRUCTIONS, { max_iterations: 2 }),
      'fake-agent.yml':
        'turns:\n  - do: [{ echo_prompt: true }, { print: "\\nDone.\\n<event topic=\\"LOOP_COMPLETE\\">all done</event>\\n" }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir)).toMatchObject({ stop_reason: 'completed', iterations: 1 });
  });
});
