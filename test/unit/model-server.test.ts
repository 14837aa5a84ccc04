import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../helpers/workspace.ts';
import { geminiTool, geminiView, requestWorkspace, schemaValue } from '../support/model-server/gemini.ts';
import {
  addFilePatch,
  chatChunks,
  chatView,
  isTitleRequest,
  opencodeTool,
  requestCwd,
} from '../support/model-server/openai-chat.ts';

// The scripted model servers' dialects (test support): what they read from a request and how they
// shape the tool calls of a script for each agent CLI.

describe('the scripted Gemini API (test support)', () => {
  const body = {
    contents: [
      {
        role: 'user',
        parts: [
          { text: '<session_context>\n- **Workspace Directories:**\n  - /tmp/ws\n</session_context>' },
          { text: 'Do it.' },
        ],
      },
      { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'ls' } } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'run_shell_command', response: { output: '' } } }],
      },
    ],
  };

  it('reads the prompt turn, the tool rounds after it and the workspace', () => {
    expect(geminiView(body)).toEqual({
      prompt: '<session_context>\n- **Workspace Directories:**\n  - /tmp/ws\n</session_context>\nDo it.',
      toolRounds: 1,
    });
    expect(requestWorkspace(body)).toBe('/tmp/ws');
  });

  it('maps scripted tools onto gemini’s own: run_shell_command, write_file with an absolute path', () => {
    const tools = new Set(['run_shell_command', 'write_file']);
    expect(geminiTool({ kind: 'shell', command: 'ralph emit x' }, tools, '/tmp/ws')).toMatchObject({
      name: 'run_shell_command',
      args: { command: 'ralph emit x' },
    });
    expect(geminiTool({ kind: 'write_file', path: 'a/b.md', content: 'x\n' }, tools, '/tmp/ws')).toEqual({
      name: 'write_file',
      args: { file_path: '/tmp/ws/a/b.md', content: 'x\n' },
    });
    // Without a write_file tool: a quoted heredoc through the shell (no $(…) or backticks).
    expect(
      geminiTool({ kind: 'write_file', path: 'b.md', content: 'x\n' }, new Set(['run_shell_command']), '/w'),
    ).toEqual({
      name: 'run_shell_command',
      args: { command: "cat > 'b.md' <<'RALPH_EOF'\nx\nRALPH_EOF", description: 'Write the scripted file' },
    });
  });

  it('answers a utility call with a value of its response schema (the auto router’s classifier)', () => {
    expect(
      schemaValue({
        type: 'OBJECT',
        properties: {
          complexity_reasoning: { type: 'STRING' },
          complexity_score: { type: 'INTEGER' },
          choice: { type: 'string', enum: ['flash', 'pro'] },
        },
      }),
    ).toEqual({ complexity_reasoning: 'scripted', complexity_score: 1, choice: 'flash' });
  });
});

describe('scripted OpenAI Chat Completions server (opencode’s side)', () => {
  it('sees the latest user message as the prompt and counts tool-result rounds', () => {
    const body = {
      messages: [
        { role: 'system', content: 'You are opencode. Working directory: /tmp/ws\n' },
        { role: 'user', content: [{ type: 'text', text: 'Build it.' }] },
        { role: 'assistant', content: '', tool_calls: [{ id: 'a' }, { id: 'b' }] },
        { role: 'tool', tool_call_id: 'a', content: 'ok' },
        { role: 'tool', tool_call_id: 'b', content: 'ok' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c' }] },
        { role: 'tool', tool_call_id: 'c', content: 'ok' },
      ],
    };
    expect(chatView(body)).toEqual({ prompt: 'Build it.', toolRounds: 2 });
    expect(requestCwd(body)).toBe('/tmp/ws');
    expect(isTitleRequest(body)).toBe(false);
    expect(
      isTitleRequest({
        messages: [{ role: 'system', content: 'You are a title generator. You output ONLY a thread title.' }],
      }),
    ).toBe(true);
  });

  it('maps shell to bash, write_file to write, or to apply_patch / a heredoc for GPT-style tool sets', () => {
    const dir = makeWorkspace({ 'old.md': 'old\n' });
    const shell = opencodeTool({ kind: 'shell', command: 'ralph emit x' }, new Set(['bash']), dir);
    expect(shell).toEqual({ name: 'bash', args: { command: 'ralph emit x' } });
    const write = { kind: 'write_file' as const, path: 'a/b.md', content: '# B\n' };
    expect(opencodeTool(write, new Set(['bash', 'write']), dir)).toEqual({
      name: 'write',
      args: { filePath: join(dir, 'a/b.md'), content: '# B\n' },
    });
    expect(opencodeTool(write, new Set(['bash', 'apply_patch']), dir)).toEqual({
      name: 'apply_patch',
      args: { patchText: addFilePatch(join(dir, 'a/b.md'), '# B\n') },
    });
    expect(addFilePatch('/x/b.md', '# B\n\nend\n')).toBe(
      '*** Begin Patch\n*** Add File: /x/b.md\n+# B\n+\n+end\n*** End Patch',
    );
    const existing = opencodeTool(
      { kind: 'write_file', path: 'old.md', content: 'new\n' },
      new Set(['apply_patch']),
      dir,
    );
    expect(existing.name).toBe('bash');
    // The heredoc really writes the content.
    execFileSync('bash', ['-c', String(existing.args.command)], { cwd: dir });
    expect(readFileSync(join(dir, 'old.md'), 'utf8')).toBe('new\n');
    writeFileSync(join(dir, 'old.md'), 'old\n');
  });

  it('streams chunks with the text, tool-call arguments in pieces, the finish reason, usage and [DONE]', () => {
    const chunks = chatChunks('m', null, [{ id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' }], {
      input: 10,
      output: 2,
    }).map((c) => c.data as Record<string, any>);
    expect(chunks.at(-1)).toBe('[DONE]');
    const args = chunks
      .flatMap((c) => (c.choices ?? []).flatMap((ch: any) => ch.delta?.tool_calls ?? []))
      .map((t: any) => t.function.arguments)
      .join('');
    expect(JSON.parse(args)).toEqual({ command: 'ls' });
    expect(chunks.find((c) => c.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-2)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    });
    const textChunks = chatChunks('m', 'Hello there', [], { input: 1, output: 1 }).map(
      (c) => c.data as Record<string, any>,
    );
    expect(textChunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('')).toBe('Hello there');
    expect(textChunks.find((c) => c.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
  });
});
