/**
 * The parts of docs/reference/config.md that are about the file as a whole rather than one key:
 * how layers combine, path patterns, the agent's environment. Each key's own text is its
 * description in the schema (src/config/schema/); these paragraphs are the only other source.
 */

/** How the layers combine and how problems are reported. */
export const LAYERS_PROSE = `Layers, lowest first, each winning key by key over the one before (sections merge; lists and
values replace): built-in defaults → your user config \`$XDG_CONFIG_HOME/ralph/config.yml\`
(default \`~/.config/ralph/config.yml\`; e.g. your usual \`cli.backend\` and limits) → the project's
\`ralph.yml\` (or \`-c FILE\`) → a preset given with \`--preset NAME\` (\`ralph run --preset board\` runs
a preset without \`ralph init\`; a prompt file the workspace lacks is read from the preset) →
\`RALPH_AGENT\`, \`--set key=value\` and the flags. \`ralph config explain [KEY]\` prints every key's
value and where it came from (\`← project ralph.yml:4\`, \`← user …/config.yml:2\`, \`← --set …\`,
\`← default\`); errors name the file of the layer that set the key.

Unknown keys are errors; every problem is reported as \`file:line:col\` with the closest valid key
suggested (\`ralph.yml:3:3: event_loop.cooldown_delay_secs: unknown key … did you mean
"cooldown_delay_seconds"?\`). The format is ralph-orchestrator's, so existing files (for example
the seed 000 \`ralph.yml\` with \`hats\`, \`tasks\`, \`memories\`, \`RObot\`) validate as written; the
ralph-orchestrator keys Ralph does not implement are rejected by name with what to do instead.

Editors: \`ralph init\` writes \`.ralph/ralph.schema.json\` and points \`ralph.yml\` at it
(\`# yaml-language-server: $schema=…\`), so YAML editors complete every key and show these
descriptions on hover; \`ralph config schema\` prints the same JSON Schema.`;

/** How `gates.protect`, `event_loop.idle_watch` and `tdd.allowed_paths` select paths. */
export const PATH_PATTERNS_PROSE = `\`gates.protect\`, \`event_loop.idle_watch\` and \`tdd.allowed_paths\` take the same patterns, matched
by [picomatch](https://github.com/micromatch/picomatch) against workspace-relative \`/\` paths:

- globs: \`*\` and \`?\` within a name, \`**\` across directories, \`{ts,js}\`, \`[abc]\`, \`[!a]\`, \`@(a|b)\`;
- anchored at the workspace root, as in \`tsconfig.json\` or vitest: \`*.snap\` is the root's only,
  \`**/*.snap\` any depth; a leading \`/\` or \`./\` changes nothing;
- \`*\` and \`**\` match dot-files too: \`**/*.yml\` covers \`.github/workflows/ci.yml\`;
- as in \`.gitignore\`: a pattern that selects a directory covers everything in it (\`tests\` =
  \`tests/**\`), a trailing \`/\` selects directories only, and \`!pattern\` takes back what the
  patterns before it selected (the last pattern that matches a path decides:
  \`[tests/, "!tests/fixtures/"]\`);
- \`.git\`, \`node_modules\` and Ralph's runtime files under \`.ralph/\` are never protected.`;

/** What every agent process (and gate command) is given, and what is swept after it. */
export const AGENT_ENVIRONMENT_PROSE = `Every agent runs in the workspace root, in its own process group, with \`RALPH_EVENTS_FILE\`
(absolute), \`RALPH_BIN\`, \`RALPH_WORKSPACE_ROOT\`, \`RALPH_ITERATION\`, \`RALPH_HAT\` (empty in solo
mode), \`RALPH_RUN_ID\`, \`RALPH_ITERATION_MARK\` (\`<run-id>:<iteration>\`),
\`RALPH_HUMAN_TIMEOUT_SECONDS\` and \`RALPH_HUMAN_DEFAULT_ANSWER\` (for \`ralph ask\`), \`cli.env\`, and
Ralph's own \`bin/\` first on \`PATH\` (so \`ralph emit …\` and \`ralph ask …\` work inside the agent).
\`CLAUDECODE\`, which makes Claude Code refuse nested runs, is removed. Gate commands (\`gates.tests\`,
the validate hook) get the same variables.

**Nothing an iteration starts outlives it.** When the agent exits, anything left in its process
group is killed. Then (on Linux) Ralph looks through \`/proc/*/environ\` for every process that
inherited the iteration's \`RALPH_ITERATION_MARK\` — a dev server started with \`setsid\`, a
double-forked daemon, a watcher in a session of its own — and kills it (SIGTERM, SIGKILL after
\`min(event_loop.kill_grace_seconds, 1)\` s); it looks again after the gates, and once more when the
run ends. Each killed process is listed in the iteration record (\`killed_processes: [{pid,
command}]\`) and in a notice. \`--resume\` and \`--fresh\` (and any new run) first kill what a previous
run left behind the same way. A process that clears its environment (\`env -i\`, or a CLI that passes
its tools only \`PATH\`/\`HOME\`) loses the mark and is only found while it is still a descendant of
the agent. On macOS and other systems without \`/proc\` the sweep is skipped; process groups still
apply.`;
