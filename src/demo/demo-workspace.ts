import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PROMPT = `# Build a tiny greeting library

Work in this directory. Each iteration, do the next unchecked task of PLAN.md, tick it,
and say what you did. Create PLAN.md first if it does not exist.
`;

const CONFIG = `# Ralph demo: a real loop driven by the scripted fake agent.
event_loop:
  prompt_file: PROMPT.md
  completion_promise: LOOP_COMPLETE
  max_iterations: 10
  max_runtime_seconds: 120
  iteration_timeout_seconds: 30

cli:
  backend: fake
  fake_script: fake-agent.yml
`;

// Each turn is one iteration of a would-be agent: it reads the workspace, acts, prints
// Claude-style stream-json with token usage and cost, and exits.
const SCRIPT = `turns:
  - name: plan
    when: { file_missing: PLAN.md }
    do:
      - assistant: "No PLAN.md yet. Reading the prompt and writing a plan."
        usage: { input_tokens: 1800, output_tokens: 220 }
        model: claude-sonnet-4-5
      - tool: { name: Write, input: { file_path: PLAN.md } }
      - write:
          path: PLAN.md
          content: |
            # Plan
            - [ ] greet.js exporting greet(name)
            - [ ] test.js checking greet
            - [ ] README.md with usage
      - sleep: 0.4
      - result: { text: "Wrote PLAN.md with 3 tasks.", cost_usd: 0.0121, input_tokens: 1800, output_tokens: 220, model: claude-sonnet-4-5 }
  - name: code
    when: { file_missing: greet.js }
    do:
      - assistant: "Next task: greet.js."
        usage: { input_tokens: 2400, output_tokens: 310 }
        model: claude-sonnet-4-5
      - tool: { name: Write, input: { file_path: greet.js } }
      - write:
          path: greet.js
          content: |
            export function greet(name) {
              return \`Hello, \${name}!\`;
            }
      - write: { path: PLAN.md, content: "# Plan\\n- [x] greet.js exporting greet(name)\\n- [ ] test.js checking greet\\n- [ ] README.md with usage\\n" }
      - sleep: 0.4
      - result: { text: "Implemented greet.js and ticked it in PLAN.md.", cost_usd: 0.0158, input_tokens: 2400, output_tokens: 310, model: claude-sonnet-4-5 }
  - name: test
    when: { file_missing: test.js }
    do:
      - assistant: "Next task: a test, then run it."
        usage: { input_tokens: 2900, output_tokens: 280 }
        model: claude-sonnet-4-5
      - write:
          path: test.js
          content: |
            import assert from 'node:assert';
            import { greet } from './greet.js';
            assert.strictEqual(greet('Ralph'), 'Hello, Ralph!');
      - tool: { name: Bash, input: { command: "node test.js" } }
      - write: { path: package.json, content: "{ \\"type\\": \\"module\\" }\\n" }
      - run: node test.js
      - print: "test.js: 1 passed"
      - write: { path: PLAN.md, content: "# Plan\\n- [x] greet.js exporting greet(name)\\n- [x] test.js checking greet\\n- [ ] README.md with usage\\n" }
      - sleep: 0.4
      - result: { text: "Added test.js; it passes.", cost_usd: 0.0172, input_tokens: 2900, output_tokens: 280, model: claude-sonnet-4-5 }
  - name: finish
    do:
      - assistant: "Last task: README.md. Then everything in PLAN.md is done."
        usage: { input_tokens: 3100, output_tokens: 190 }
        model: claude-sonnet-4-5
      - write:
          path: README.md
          content: |
            # greet
            \`import { greet } from './greet.js'\` — \`greet('you')\` returns \`Hello, you!\`.
      - write: { path: PLAN.md, content: "# Plan\\n- [x] greet.js exporting greet(name)\\n- [x] test.js checking greet\\n- [x] README.md with usage\\n" }
      - sleep: 0.4
      - result:
          text: |
            Wrote README.md. All tasks in PLAN.md are done and the test passes.
            LOOP_COMPLETE
          cost_usd: 0.0139
          input_tokens: 3100
          output_tokens: 190
          model: claude-sonnet-4-5
`;

/** Creates the demo workspace (a temp dir unless `dir` is given) and returns its path. */
export function createDemoWorkspace(dir?: string): string {
  const root = dir ?? mkdtempSync(join(tmpdir(), 'ralph-demo-'));
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'PROMPT.md'), PROMPT);
  writeFileSync(join(root, 'ralph.yml'), CONFIG);
  writeFileSync(join(root, 'fake-agent.yml'), SCRIPT);
  return root;
}
