// One or more realistic command lines per command, shown under `ralph <cmd> --help` and in
// docs/reference/cli.md (example-help.ts). test/cli/cli-examples.test.ts fails on a visible command without one and
// parses each line with the real program, so an example cannot name a flag that does not exist.

/** A command line as typed (`ralph …`, plain words and quotes, no pipes) and what it does. */
export type Example = readonly [line: string, what: string];

/** The examples of each command, by its words after `ralph` ('' is `ralph` itself). */
export const EXAMPLES: Readonly<Record<string, readonly Example[]>> = {
  '': [
    ['ralph', 'the same as `ralph run`'],
    ['ralph 20', 'a run of at most 20 iterations'],
    ['ralph -v', 'the version, as `ralph --version`'],
  ],
  run: [
    ['ralph run', 'the loop of ralph.yml and PROMPT.md here'],
    ['ralph run -b codex --max-iterations 10 --max-cost 5', 'another agent, with limits'],
    ['ralph run -p "make the tests in test/ pass" --no-tui', 'an inline prompt, plain lines'],
    ['ralph run --dry-run', 'the config, the first prompt and the agent command; nothing runs'],
    ['ralph run --resume', 'go on with the run Ctrl-C interrupted'],
    ['ralph run --worktree fix-login', 'in a worktree of its own, on branch ralph/fix-login'],
    ['ralph run --parallel 3', 'three workers on ready tasks, merged back here'],
    ['ralph run -- --model opus', 'arguments after `--` go to the agent'],
  ],
  plan: [
    ['ralph plan feature-x', 'an interactive session that writes specs/feature-x.md'],
    ['ralph plan feature-x -b codex --dry-run', 'the agent command it would start'],
  ],
  demo: [
    ['ralph demo', 'a whole board workflow on the scripted agent, in a temp directory'],
    ['ralph demo --dir ./ralph-demo -q', 'kept in ./ralph-demo, only the end summary'],
  ],
  status: [
    ['ralph status', 'where the loop of this workspace stands'],
    ['ralph status --json', 'the same as one JSON object, for scripts'],
    ['ralph status --worktree fix-login', 'the loop of `ralph run --worktree fix-login`'],
  ],
  events: [
    ['ralph events --last 20', 'the last 20 events'],
    ['ralph events --topic tests.failed --json', 'one topic, as a JSON array'],
    ['ralph events -f', 'follow new events as the loop writes them'],
  ],
  logs: [
    ['ralph logs', 'the log of the current or last run'],
    ['ralph logs -f', 'follow it while the loop runs'],
    ['ralph logs 2026-11-24_001', 'an earlier run by its log name'],
  ],
  explain: [
    ['ralph explain', 'why each iteration of the last run went as it did'],
    ['ralph explain --iteration 3', 'only iteration 3'],
    ['ralph explain 20261126-064903 --json', 'a run by id prefix, as JSON lines'],
  ],
  runs: [
    ['ralph runs', 'every run on this machine, newest first'],
    ['ralph runs --json', 'the same, for scripts'],
  ],
  'runs prune': [['ralph runs prune', 'forget the runs whose workspace was removed']],
  stats: [
    ['ralph stats', 'what the runs here took'],
    ['ralph stats --since 7d', 'only the last week'],
    ['ralph stats --all --json', 'every workspace on this machine, as JSON'],
  ],
  estimate: [
    ['ralph estimate', 'iterations, tokens, cost and time of the next `ralph run`'],
    ['ralph estimate --max-cost 5 --json', 'against a $5 limit, as JSON'],
  ],
  worktrees: [
    ['ralph worktrees list', 'the checkouts of `ralph run --worktree`'],
    ['ralph worktrees clean', 'remove the merged ones'],
  ],
  'worktrees list': [
    ['ralph worktrees list', 'each worktree, its branch and its loop'],
    ['ralph worktrees list --json', 'the same, for scripts'],
  ],
  'worktrees clean': [['ralph worktrees clean', 'remove the worktrees whose branch is merged']],
  stop: [
    ['ralph stop', 'stop after the current iteration'],
    ['ralph stop --now', 'kill the agent now; `ralph run --resume` goes on'],
    ['ralph stop --worktree fix-login', 'the loop of that worktree'],
  ],
  tell: [
    ['ralph tell "use the existing HTTP client in src/http, not a new one"', 'guidance for the next prompt'],
  ],
  ask: [
    [
      'ralph ask "Which database should the tests use?" --options sqlite,postgres',
      'from an agent: wait for a human',
    ],
    ['ralph ask "Ship the migration now?" --timeout 600', 'give up after ten minutes'],
  ],
  answer: [
    ['ralph answer', 'list the open questions'],
    ['ralph answer postgres', 'answer the one open question'],
    ['ralph answer q-1a2b3c4d "sqlite, in memory"', 'answer a question by its id'],
  ],
  approve: [
    ['ralph approve', 'let the step waiting at a review point happen'],
    ['ralph approve a-1a2b3c4d', 'one of several, by its id'],
  ],
  reject: [
    [
      'ralph reject "the migration drops a column still read by src/report.ts"',
      'refuse, with the reason the next iteration reads',
    ],
  ],
  pause: [['ralph pause', 'hold the loop before its next iteration']],
  resume: [['ralph resume', 'let a paused loop go on']],
  rescue: [
    ['ralph rescue list', 'what rollbacks set aside here'],
    ['ralph rescue show', 'the newest: why, files, diff'],
  ],
  'rescue list': [
    ['ralph rescue list', 'every change a rollback set aside here'],
    ['ralph rescue list --json', 'the same, for scripts'],
  ],
  'rescue show': [
    ['ralph rescue show 3', 'iteration 3 of the last run here: why, files, diff'],
    ['ralph rescue show 20261126-064903-2ee74e/3', 'a rescued change of another run'],
  ],
  'rescue apply': [['ralph rescue apply 3', 'bring it back into the work tree, staged']],
  dashboard: [
    ['ralph dashboard --open', 'the dashboard in your browser'],
    ['ralph dashboard --port 8080 --token-file ~/.config/ralph/dashboard.token', 'a fixed port and token'],
  ],
  fleet: [
    ['ralph fleet worker', 'a worker on this machine (Redis from RALPH_REDIS_URL)'],
    ['ralph fleet submit --max-cost 5', 'queue a run of this repository'],
    ['ralph fleet status', 'every fleet run'],
  ],
  'fleet worker': [
    ['ralph fleet worker --concurrency 2 --redis redis://127.0.0.1:6379', 'take two runs at a time'],
  ],
  'fleet submit': [
    ['ralph fleet submit --preset solo --max-cost 5 --name login-fix', 'queue a run of this repository'],
    ['ralph fleet submit --repo https://github.com/acme/shop.git --branch main', 'of another repository'],
  ],
  'fleet status': [
    ['ralph fleet status', 'every fleet run and its worker'],
    ['ralph fleet status --json', 'the same, for scripts'],
  ],
  'fleet logs': [
    ['ralph fleet logs 20261126-0649 -f', 'follow a run’s log by id prefix'],
    ['ralph fleet logs 20261126-0649 --events', 'its events instead'],
  ],
  'fleet cancel': [['ralph fleet cancel 20261126-0649', 'kill that run now; it is not retried']],
  'fleet drain': [
    ['ralph fleet drain', 'every worker hands its runs over and exits'],
    ['ralph fleet drain --worker build-1', 'only that worker'],
  ],
  doctor: [
    ['ralph doctor', 'disk, git, the agent CLIs and their logins'],
    ['ralph doctor --json', 'the same, for scripts'],
    ['ralph doctor --probe', 'also one real (billed) one-word turn of the configured agent'],
  ],
  config: [
    ['ralph config validate', 'check ralph.yml and what `ralph run` needs here'],
    ['ralph config explain cli', 'where each value of a section came from'],
  ],
  'config validate': [
    ['ralph config validate', 'the file, then what `ralph run` would fail on here'],
    ['ralph config validate --schema-only --strict', 'only the file; ignored keys are errors'],
  ],
  'config explain': [
    ['ralph config explain', 'every key, its value and the layer it came from'],
    ['ralph config explain event_loop.max_iterations', 'one key'],
  ],
  'config show': [
    ['ralph config show', 'the resolved config with every default'],
    ['ralph config show --set event_loop.max_iterations=5', 'with an override'],
  ],
  'config schema': [['ralph config schema', 'the JSON Schema of ralph.yml, for an editor']],
  init: [
    ['ralph init', 'the solo workflow: ralph.yml and PROMPT.md'],
    ['ralph init --preset tdd --backend codex', 'another workflow and agent'],
    ['ralph init --from snarktank', 'the ralph.yml equivalent to a snarktank/ralph project'],
  ],
  new: [
    ['ralph new --list', 'the templates'],
    ['ralph new ts-lib my-lib --backend claude', 'a TypeScript library with its tests as the gate'],
  ],
  presets: [
    ['ralph presets', 'the workflows `ralph init --preset` writes'],
    ['ralph presets --json', 'the same, for scripts'],
  ],
  hats: [
    ['ralph hats validate', 'check the hats of ralph.yml'],
    ['ralph hats graph', 'draw their hand-offs'],
  ],
  'hats validate': [['ralph hats validate', 'the hats of ralph.yml, each problem as file:line:col']],
  'hats graph': [
    ['ralph hats graph', 'who hands off to whom'],
    ['ralph hats graph --format mermaid', 'as a Mermaid graph for a README'],
  ],
  hooks: [['ralph hooks validate', 'check the lifecycle hooks of ralph.yml']],
  'hooks validate': [
    ['ralph hooks validate', 'the lifecycle hooks of ralph.yml'],
    ['ralph hooks validate --json', 'the same, for scripts'],
  ],
  completion: [
    ['ralph completion bash', 'the bash script: eval "$(ralph completion bash)" in ~/.bashrc'],
    ['ralph completion zsh', 'the zsh one'],
  ],
  emit: [
    ['ralph emit work.propose item-1.txt', 'from an agent: an event with a text payload'],
    [
      'ralph emit build.blocked \'{"reason":"no API key for the payment sandbox"}\' --json',
      'with a JSON payload',
    ],
  ],
  tools: [
    ['ralph tools task ready', 'from an agent: the tasks to work on'],
    ['ralph tools memory search parser', 'from an agent: what earlier iterations learnt'],
  ],
  wave: [
    [
      'ralph wave emit review.perspective --payloads security performance',
      'from an agent: one reviewer per payload',
    ],
  ],
  'wave emit': [
    [
      'ralph wave emit review.perspective --payloads security performance tests',
      'three events, one wave: a hat with concurrency runs an agent for each',
    ],
  ],
  'tools interact': [
    ['ralph tools interact progress "Parser done; starting on the CLI"', 'from an agent: tell the human'],
  ],
  'tools interact progress': [
    [
      'ralph tools interact progress "Tests green; 3 of 5 tasks done"',
      'a note the loop sends on Telegram (or records)',
    ],
  ],
  'tools skill': [
    ['ralph tools skill list', 'the skills this project configures'],
    ['ralph tools skill load code-review', 'from an agent: read one'],
  ],
  'tools skill list': [
    ['ralph tools skill list', 'name, description and where each skill is'],
    ['ralph tools skill list --json', 'as JSON'],
  ],
  'tools skill load': [['ralph tools skill load code-review', "print the skill's instructions"]],
  'tools task': [
    ['ralph tools task add "Parse dates in ISO 8601"', 'add a task'],
    ['ralph tools task list', 'every task and its status'],
  ],
  'tools task add': [
    ['ralph tools task add "Parse dates in ISO 8601" -p 2', 'an urgent task; prints its id'],
    ['ralph tools task add "Wire the parser into the CLI" --blocked-by task-f46e417d', 'after another'],
  ],
  'tools task ensure': [
    ['ralph tools task ensure parse-dates "Parse dates in ISO 8601"', 'add it unless that key exists'],
  ],
  'tools task list': [
    ['ralph tools task list', 'every task'],
    ['ralph tools task list --status open --json', 'the open ones, as JSON'],
  ],
  'tools task ready': [
    ['ralph tools task ready', 'open tasks with nothing blocking them, most urgent first'],
  ],
  'tools task show': [['ralph tools task show task-f46e417d', 'one task']],
  'tools task start': [['ralph tools task start task-f46e417d', 'mark it in progress']],
  'tools task close': [['ralph tools task close task-f46e417d', 'mark it done']],
  'tools task reopen': [['ralph tools task reopen task-f46e417d', 'open it again']],
  'tools task import': [
    ['ralph tools task import --from github --label ralph', 'the labelled open issues as tasks'],
  ],
  'tools task fail': [['ralph tools task fail task-f46e417d --reason "needs an API key"', 'mark it failed']],
  'tools memory': [
    ['ralph tools memory add "The CLI tests need NO_COLOR=1"', 'record a learning'],
    ['ralph tools memory list', 'every memory, newest first'],
  ],
  'tools memory add': [
    [
      'ralph tools memory add "Run tests with npm test -- --run" -t fix --tags tests',
      'a learning for later iterations',
    ],
    ['ralph tools memory add "Prefer pnpm" -t decision --scope user', 'one for every project'],
  ],
  'tools memory list': [['ralph tools memory list -t fix', 'the fixes, newest first']],
  'tools memory search': [
    ['ralph tools memory search "flaky test" --tags tests', 'memories with both words'],
  ],
  'tools memory delete': [['ralph tools memory delete mem-1763704800-a1b2', 'delete one']],
  'tools memory promote': [['ralph tools memory promote mem-1763704800-a1b2', 'share it with every project']],
  'tools memory prime': [['ralph tools memory prime --budget 2000', 'what the prompt gets, in 2,000 tokens']],
};
