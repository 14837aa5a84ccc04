// The planner → builder → planner workflow every real-CLI test runs: the scripted model makes the
// agent publish each hand-off with `ralph emit` through the CLI's own shell tool.
import type { Script, ScriptedToolCall } from './model-server/script.ts';

/** The two hats, as ralph.yml lines (without the rest of the config). */
export const PLANNER_BUILDER_HATS = [
  'hats:',
  '  planner:',
  '    name: Planner',
  '    description: plans',
  '    triggers: [task.start, task.resume, build.done]',
  '    publishes: [build.task, LOOP_COMPLETE]',
  '    instructions: You are the PLANNER.',
  '  builder:',
  '    name: Builder',
  '    description: builds',
  '    triggers: [build.task]',
  '    publishes: [build.done]',
  '    instructions: You are the BUILDER.',
].join('\n');

/** What the builder writes, so each CLI's file tool is seen at work. */
export const builtBy = (agent: string) => `# Built\nby ${agent}\n`;

/**
 * The script: the planner publishes `build.task "write BUILD.md"`, the builder writes BUILD.md and
 * runs `afterWrite` (by default `ralph emit build.done BUILD.md`), the planner then completes.
 */
export function plannerBuilderScript(
  agent: string,
  afterWrite: ScriptedToolCall[] = [{ kind: 'shell', command: 'ralph emit build.done BUILD.md' }],
): Script {
  return {
    rules: [
      {
        match: 'You are the PLANNER[\\s\\S]*- build\\.done',
        reply: {
          tools: [{ kind: 'shell', command: 'ralph emit LOOP_COMPLETE' }],
          text: 'Everything is built.',
        },
      },
      {
        match: 'You are the PLANNER',
        reply: {
          tools: [{ kind: 'shell', command: 'ralph emit build.task "write BUILD.md"' }],
          text: 'Planned one task.',
        },
      },
      {
        match: 'You are the BUILDER[\\s\\S]*- build\\.task: write BUILD\\.md',
        reply: {
          tools: [{ kind: 'write_file', path: 'BUILD.md', content: builtBy(agent) }, ...afterWrite],
          text: 'Built BUILD.md.',
        },
      },
    ],
  };
}
