import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import { FAKE_AGENT_MAIN } from '../../paths-package.ts';
import type { BackendDefinition } from '../definition.ts';
import { createStreamJsonParser } from '../parsers/stream-json.ts';
import type { Backend } from '../types.ts';
import { classifyClaudeExit } from './claude.ts';

/** The fake agent's script: `cli.fake_script`, else RALPH_FAKE_SCRIPT. */
function fakeScript(config: RalphConfig): string {
  const script = config.cli.fake_script ?? process.env.RALPH_FAKE_SCRIPT;
  if (!script) {
    throw new RalphError(
      'config_invalid',
      'the fake backend needs a script: set cli.fake_script (or RALPH_FAKE_SCRIPT) to a fake-agent YAML file',
    );
  }
  return script;
}

/**
 * The scripted agent shipped with Ralph (src/fake-agent): runs `node fake-agent --script FILE`, reads
 * the prompt on stdin and prints plain text and/or Claude-style stream-json, as its script says.
 */
export const fakeBackend: Backend = {
  name: 'fake',
  buildInvocation({ config, workspace, prompt, extraArgs }) {
    const scriptPath = resolve(workspace, fakeScript(config));
    if (!existsSync(scriptPath)) {
      throw new RalphError('config_invalid', `fake agent script not found: ${scriptPath} (cli.fake_script)`);
    }
    return {
      command: process.execPath,
      // --model: the model it reports and its script's `when: {model}` matches (cli.model, a ladder's rung).
      args: [
        FAKE_AGENT_MAIN,
        '--script',
        scriptPath,
        ...(config.cli.model ? ['--model', config.cli.model] : []),
        ...extraArgs,
      ],
      stdin: prompt,
      env: {},
    };
  },
  createParser: createStreamJsonParser,
  // It speaks Claude's stream-json, limits included, so it ends the way Claude Code does.
  classifyExit: (info) => classifyClaudeExit(info),
};

/** `fake`: Ralph's own scripted agent, for demos and tests. */
export const fake: BackendDefinition = {
  name: 'fake',
  modelFlag: '--model',
  adapter: () => fakeBackend,
  interactive(config, prompt, { workspace, extraArgs = [] }) {
    const script = fakeScript(config);
    const scriptPath = workspace ? resolve(workspace, script) : script;
    return {
      command: process.execPath,
      args: [FAKE_AGENT_MAIN, '--script', scriptPath, ...extraArgs, '--prompt', prompt],
    };
  },
};
