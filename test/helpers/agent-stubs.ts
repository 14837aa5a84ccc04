import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace } from './workspace.ts';

/** Each backend's minimal successful output, in its own format; `$TEXT` is the final answer. */
const OUTPUT: Record<string, string> = {
  claude: `printf '%s\\n' "{\\"type\\":\\"result\\",\\"subtype\\":\\"success\\",\\"is_error\\":false,\\"result\\":\\"$TEXT\\"}"`,
  codex: [
    `printf '%s\\n' "{\\"type\\":\\"item.completed\\",\\"item\\":{\\"id\\":\\"i0\\",\\"type\\":\\"agent_message\\",\\"text\\":\\"$TEXT\\"}}"`,
    `printf '%s\\n' '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2}}'`,
  ].join('\n'),
  custom: 'printf "%s\\n" "$TEXT"',
};

/**
 * A stand-in for an agent CLI: appends its name and its arguments up to `--` (a prompt passed as an
 * argument is not logged) to `$RALPH_WORKSPACE_ROOT/ran.log`, runs `body` (a shell snippet that may
 * set TEXT, the final answer), then prints `format`'s output (`claude`, `codex`, or plain text).
 */
export function agentStub(format: 'claude' | 'codex' | 'custom', body = ''): string {
  return [
    '#!/bin/sh',
    'cat > /dev/null',
    'line=$(basename "$0")',
    'for a in "$@"; do [ "$a" = "--" ] && break; line="$line $a"; done',
    'printf "%s\\n" "$line" >> "$RALPH_WORKSPACE_ROOT/ran.log"',
    'TEXT=done',
    body,
    OUTPUT[format],
    '',
  ].join('\n');
}

/** A directory of executables (name → script), to put first on PATH; removed with the workspaces. */
export function stubBin(scripts: Record<string, string>): string {
  const dir = makeWorkspace();
  for (const [name, script] of Object.entries(scripts)) {
    writeFileSync(join(dir, name), script);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

/** The lines the stubs logged in a workspace: which executable ran, with which arguments. */
export function ranLog(workspace: string): string[] {
  return readFileSync(join(workspace, 'ran.log'), 'utf8').trimEnd().split('\n');
}
