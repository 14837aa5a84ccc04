#!/usr/bin/env node
// The scripted fake agent: `node main.js --script FILE`. Reads its prompt on stdin and plays the
// first matching turn of the script, so whole Ralph workflows run deterministically in tests and demos.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'yaml';
import { expand, type FakeAction, fakeScriptSchema, selectTurn } from './script.ts';

function fail(message: string): never {
  process.stderr.write(`fake-agent: ${message}\n`);
  process.exit(97);
}

function readStdin(): string {
  if (process.stdin.isTTY) return '';
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

function writeOut(line: string): void {
  process.stdout.write(`${line}\n`);
}

const usageOf = (u: {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}) => ({
  input_tokens: u.input_tokens,
  output_tokens: u.output_tokens,
  cache_read_input_tokens: u.cache_read_input_tokens,
  cache_creation_input_tokens: u.cache_creation_input_tokens,
});

async function play(
  action: FakeAction,
  ctx: { iteration: number; hat: string; prompt: string; cwd: string; model: string | undefined },
  n: number,
) {
  const x = (s: string) => expand(s, { iteration: ctx.iteration, hat: ctx.hat, env: process.env });
  const at = (p: string) => resolve(ctx.cwd, x(p));
  if ('print' in action) writeOut(x(action.print));
  else if ('stderr' in action) process.stderr.write(`${x(action.stderr)}\n`);
  else if ('echo_prompt' in action)
    process.stdout.write(ctx.prompt.endsWith('\n') ? ctx.prompt : `${ctx.prompt}\n`);
  else if ('save_prompt' in action) {
    mkdirSync(dirname(at(action.save_prompt)), { recursive: true });
    writeFileSync(at(action.save_prompt), ctx.prompt);
  } else if ('write' in action) {
    mkdirSync(dirname(at(action.write.path)), { recursive: true });
    writeFileSync(at(action.write.path), x(action.write.content));
  } else if ('append' in action) {
    mkdirSync(dirname(at(action.append.path)), { recursive: true });
    appendFileSync(at(action.append.path), x(action.append.content));
  } else if ('delete' in action) rmSync(at(action.delete), { force: true, recursive: true });
  else if ('run' in action) {
    const r = spawnSync('sh', ['-c', x(action.run)], {
      cwd: ctx.cwd,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const code = r.status ?? 1;
    if (code !== 0 && !action.allow_failure) fail(`command failed with exit ${code}: ${action.run}`);
  } else if ('assistant' in action) {
    const message: Record<string, unknown> = {
      id: `msg_fake_${ctx.iteration}_${n}`,
      type: 'message',
      role: 'assistant',
      model: action.model ?? ctx.model ?? 'fake-model',
      content: [{ type: 'text', text: x(action.assistant) }],
    };
    if (action.usage) message.usage = usageOf(action.usage);
    writeOut(JSON.stringify({ type: 'assistant', message }));
  } else if ('tool' in action) {
    const message = {
      id: `msg_fake_${ctx.iteration}_${n}`,
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'tool_use', id: `tool_${n}`, name: action.tool.name, input: action.tool.input ?? {} },
      ],
    };
    writeOut(JSON.stringify({ type: 'assistant', message }));
  } else if ('result' in action) {
    const r = action.result;
    const line: Record<string, unknown> = {
      type: 'result',
      subtype: r.subtype,
      is_error: r.is_error,
      result: x(r.text),
      usage: usageOf(r),
      num_turns: 1,
    };
    if (r.cost_usd !== undefined) line.total_cost_usd = r.cost_usd;
    const model = r.model ?? ctx.model;
    if (model !== undefined) line.model = model;
    writeOut(JSON.stringify(line));
  } else if ('rate_limit' in action) {
    const resetsAt = Math.ceil(Date.now() / 1000 + action.rate_limit.resets_in_seconds);
    writeOut(
      JSON.stringify({
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', rateLimitType: 'five_hour', resetsAt },
      }),
    );
    writeOut(
      JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: "You've hit your limit" }),
    );
  } else if ('sleep' in action) await sleep(action.sleep * 1000);
  else if ('hang' in action) {
    setInterval(() => {}, 1 << 30);
    await new Promise(() => {});
  } else if ('spawn_grandchild' in action) {
    const g = spawn(
      process.execPath,
      ['-e', `setTimeout(() => {}, ${Math.round(action.spawn_grandchild.seconds * 1000)})`],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    if (action.spawn_grandchild.pid_file) writeFileSync(at(action.spawn_grandchild.pid_file), String(g.pid));
    g.unref();
  } else if ('crash' in action) {
    rmSync(process.env.RALPH_FAKE_PROMPT ?? '', { force: true });
    process.kill(process.pid, 'SIGKILL');
  } else if ('exit' in action) process.exit(action.exit);
}

async function main() {
  const i = process.argv.indexOf('--script');
  const scriptPath = i >= 0 ? process.argv[i + 1] : process.env.RALPH_FAKE_SCRIPT;
  if (!scriptPath) fail('no script: pass --script FILE or set RALPH_FAKE_SCRIPT');
  let raw: unknown;
  try {
    raw = parse(readFileSync(scriptPath, 'utf8'));
  } catch (error) {
    fail(`cannot read script ${scriptPath}: ${(error as Error).message}`);
  }
  const parsed = fakeScriptSchema.safeParse(raw);
  if (!parsed.success) {
    fail(
      `invalid script ${scriptPath}:\n${parsed.error.issues.map((e) => `  ${e.path.join('.')}: ${e.message}`).join('\n')}`,
    );
  }
  const cwd = process.cwd();
  const iteration = Number(process.env.RALPH_ITERATION ?? '1');
  const hat = process.env.RALPH_HAT ?? '';
  const m = process.argv.indexOf('--model');
  const model = m >= 0 ? process.argv[m + 1] : undefined;
  // `--prompt TEXT` (interactive sessions such as `ralph plan`, where stdin is the terminal).
  const p = process.argv.indexOf('--prompt');
  const prompt = p >= 0 ? (process.argv[p + 1] ?? '') : readStdin();
  // Shell actions can read the prompt (e.g. an event payload) from this file.
  const promptFile = join(tmpdir(), `ralph-fake-prompt-${process.pid}.md`);
  writeFileSync(promptFile, prompt);
  process.env.RALPH_FAKE_PROMPT = promptFile;
  const cleanup = () => rmSync(promptFile, { force: true });
  process.on('exit', cleanup);
  // Killed by Ralph: clean up, then die from the same signal so the exit status is unchanged.
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      cleanup();
      process.kill(process.pid, sig);
    });
  }
  const turn = selectTurn(parsed.data, {
    iteration,
    prompt,
    hat,
    model,
    exists: (p) => existsSync(resolve(cwd, p)),
  });
  if (!turn) fail(`no turn of ${scriptPath} matches iteration ${iteration}${hat ? ` (hat ${hat})` : ''}`);
  let n = 0;
  for (const action of turn.do) await play(action, { iteration, hat, prompt, cwd, model }, n++);
}

await main();
