import { createElement as h, useState } from 'react';
import { formatSpan } from '../state/io/time-format.ts';
import { type FrameProps, ink, useFrames } from './screen.ts';
import { clip, wrapLines } from './text-fit.ts';
import { headerLines, iterationRow, outputRows, type TuiLimits } from './tui-layout.ts';
import type { TuiModel } from './tui-model.ts';

/** What a key does: the TUI writes to the control inbox, never to the loop's state. */
export interface TuiActions {
  stop(): void;
  stopNow(): void;
  pause(): void;
  resume(): void;
  guide(text: string): void;
  answer(id: string, text: string): void;
  approve(id: string): void;
  reject(id: string, reason: string): void;
  /** Ctrl-C: the same as in the plain console (once: stop now, gracefully; twice: force). */
  interrupt(): void;
}

export interface TuiAppProps extends FrameProps {
  model: TuiModel;
  limits: TuiLimits;
  actions: TuiActions;
}

type Input = { kind: 'guide' | 'answer' | 'reject'; id?: string; text: string } | null;

const HELP = [
  'q  stop after this iteration        Q  stop now (kill the agent)',
  'p  pause before the next iteration / resume',
  'g  guidance for the next iteration  (Enter sends, Esc cancels)',
  'a  answer the question / approve    r  reject (with a reason)',
  '↑ ↓ PgUp PgDn  scroll the output    End  follow it again',
  '?  this help                        Ctrl-C  stop now (twice: force)',
];

/** The terminal UI: header, output, events, iterations, and a key line (or the line being typed). */
export function TuiApp(props: TuiAppProps) {
  const { Box, Text, useInput } = ink();
  const { model: m, limits, actions } = props;
  const size = useFrames(props);
  const [input, setInput] = useState<Input>(null);
  const [help, setHelp] = useState(false);
  const [scroll, setScroll] = useState(0);
  const [flash, setFlash] = useState('');

  const question = m.phase.kind === 'waiting' ? m.phase.question : undefined;

  /** One command key (outside the typing line). */
  function command(ch: string) {
    switch (ch) {
      case 'q':
        actions.stop();
        return setFlash('stopping after this iteration (Q: now)');
      case 'Q':
        actions.stopNow();
        return setFlash('stopping now');
      case 'p':
        if (m.phase.kind === 'paused') {
          actions.resume();
          return setFlash('resuming');
        }
        actions.pause();
        return setFlash('pausing before the next iteration (p again: resume)');
      case 'g':
        return setInput({ kind: 'guide', text: '' });
      case 'a':
        if (!question) return setFlash('nothing is waiting for an answer');
        if (question.kind === 'approval') {
          actions.approve(question.id);
          return setFlash(`approved ${question.id}`);
        }
        return setInput({ kind: 'answer', id: question.id, text: '' });
      case 'r':
        if (question?.kind !== 'approval') return setFlash('no approval is waiting');
        return setInput({ kind: 'reject', id: question.id, text: '' });
      case '?':
        return setHelp(true);
      default:
        return;
    }
  }

  useInput((ch, key) => {
    if (key.ctrl && ch === 'c') return actions.interrupt();
    if (input) {
      if (key.escape) return setInput(null);
      if (key.backspace || key.delete)
        return setInput({ ...input, text: [...input.text].slice(0, -1).join('') });
      // Typed or pasted: a chunk may carry several characters and the Enter that ends them.
      const chunk = key.return ? '\r' : key.ctrl || key.meta ? '' : ch;
      const end = chunk.search(/[\r\n]/);
      const typed = input.text + (end < 0 ? chunk : chunk.slice(0, end));
      if (end < 0) return setInput({ ...input, text: typed });
      const text = typed.trim();
      if (text) {
        if (input.kind === 'guide') actions.guide(text);
        else if (input.kind === 'answer' && input.id) actions.answer(input.id, text);
        else if (input.kind === 'reject' && input.id) actions.reject(input.id, text);
        setFlash(input.kind === 'guide' ? 'guidance queued for the next iteration' : 'sent');
      }
      return setInput(null);
    }
    // Any key closes the help; it also does what it does (so `p` there still pauses).
    if (help) setHelp(false);
    // Keys typed faster than a frame arrive together: each one counts.
    if (ch.length > 1 && !ch.startsWith('\u001b')) {
      for (const c of ch) command(c);
      return;
    }
    const page = Math.max(1, size.rows - 8);
    if (key.upArrow) return setScroll((s) => s + 1);
    if (key.downArrow) return setScroll((s) => Math.max(0, s - 1));
    if (key.pageUp) return setScroll((s) => s + page);
    if (key.pageDown) return setScroll((s) => Math.max(0, s - page));
    if (key.end) return setScroll(0);
    command(ch);
  });

  const now = props.now();
  const cols = Math.max(20, size.cols);
  const rows = Math.max(10, size.rows);
  const header = headerLines(m, limits, now, cols);
  const bodyRows = rows - header.length - 3;
  const sideWidth = cols >= 100 ? 40 : cols >= 70 ? 30 : 0;
  const outWidth = cols - (sideWidth ? sideWidth + 1 : 0) - 2;
  const output = outputRows(m, outWidth, bodyRows, scroll);
  const iterRows = Math.min(m.iterations.length, Math.max(3, Math.floor(bodyRows / 3)));
  const eventRows = Math.max(0, bodyRows - iterRows - 2);

  const footer = input
    ? `${input.kind === 'guide' ? 'guidance' : input.kind === 'answer' ? `answer ${input.id}` : `reject ${input.id}, reason`}: ${input.text}█`
    : question
      ? `${question.kind === 'question' ? 'question' : 'approve?'} ${question.id}: ${question.text}${question.options ? ` [${question.options.join('|')}]` : ''} — ${question.kind === 'question' ? 'a answers' : 'a approves, r rejects'}${question.expiresAt ? ` (${formatSpan(Math.max(0, question.expiresAt - now))} left)` : ''}`
      : flash || 'q stop · Q stop now · p pause · g guide · a answer · r reject · ? help';

  const pane = (title: string, lines: string[], width: number, height: number, color?: string) =>
    h(
      Box,
      { flexDirection: 'column', width: width + 2, height: height + 1 },
      h(Text, { bold: true, color: 'cyan' }, clip(title, width)),
      ...lines.map((l, i) => h(Text, { key: i, wrap: 'truncate-end', color }, clip(l, width))),
    );

  return h(
    Box,
    { flexDirection: 'column', width: cols, height: rows - 1 },
    h(Text, { bold: true }, header[0]),
    h(Text, null, header[1]),
    h(
      Text,
      { color: m.phase.kind === 'waiting' || m.phase.kind === 'paused' ? 'yellow' : 'green' },
      header[2],
    ),
    help
      ? h(
          Box,
          { flexDirection: 'column', height: bodyRows + 1 },
          ...HELP.map((l, i) => h(Text, { key: i }, clip(l, cols))),
        )
      : h(
          Box,
          { flexDirection: 'row', height: bodyRows + 1 },
          pane(
            scroll > 0 ? `agent output (scrolled ${scroll} up · End follows)` : 'agent output',
            output,
            outWidth,
            bodyRows,
          ),
          sideWidth > 0
            ? h(
                Box,
                { flexDirection: 'column', width: sideWidth },
                pane(
                  'events',
                  // Wrapped, not cut: a URL or a path in an event is only useful whole.
                  wrapLines(
                    m.events.slice(0, eventRows).map((e) => e.text),
                    sideWidth - 1,
                  ).slice(0, eventRows),
                  sideWidth - 1,
                  eventRows,
                ),
                pane(
                  'iterations',
                  m.iterations.slice(0, iterRows).map((r) => iterationRow(r, sideWidth - 1)),
                  sideWidth - 1,
                  iterRows,
                ),
              )
            : null,
        ),
    h(
      Text,
      { inverse: Boolean(question) || Boolean(input), color: question ? 'yellow' : undefined },
      clip(footer, cols),
    ),
  );
}
