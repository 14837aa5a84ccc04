import { createElement as h, type ReactElement, useState } from 'react';
import {
  MIN_COLUMN,
  parallelFooter,
  parallelHeader,
  queueLines,
  slotLines,
  slotRow,
} from './parallel-layout.ts';
import type { ParallelModel } from './parallel-model.ts';
import { type FrameProps, ink, useFrames } from './screen.ts';
import { clip } from './text-fit.ts';
import type { TuiLimits } from './tui-layout.ts';

export interface ParallelAppProps extends FrameProps {
  model: ParallelModel;
  limits: TuiLimits;
  /** q and Ctrl-C: what Ctrl-C does in the plain mode (once: stop; twice: force). */
  interrupt: () => void;
}

/** A titled pane of plain lines, cut to its box. */
function pane(title: string, lines: string[], width: number, height: number): ReactElement {
  const { Box, Text } = ink();
  return h(
    Box,
    { flexDirection: 'column', width, height: height + 1 },
    h(Text, { bold: true, color: 'cyan' }, clip(title, width)),
    ...lines.slice(0, height).map((l, i) => h(Text, { key: i, wrap: 'truncate-end' }, clip(l, width))),
  );
}

/** The parallel run's terminal UI: header, the workers side by side, the merge queue, events. */
export function ParallelApp(props: ParallelAppProps): ReactElement {
  const { Box, Text, useInput } = ink();
  const { model: m, limits } = props;
  const size = useFrames(props);
  const [flash, setFlash] = useState('');

  useInput((ch, key) => {
    if (key.ctrl && ch === 'c') {
      setFlash('stopping — Ctrl-C again forces');
      return props.interrupt();
    }
    // q once: a second q would force, which only Ctrl-C should do.
    if (ch.includes('q') && !flash) {
      setFlash('stopping — each worker records its iteration (Ctrl-C forces)');
      props.interrupt();
    }
  });

  const cols = Math.max(20, size.cols);
  const rows = Math.max(10, size.rows);
  const header = parallelHeader(m, limits, props.now(), cols);
  const slots = m.workers;
  const colWidth = slots.length > 0 ? Math.floor(cols / slots.length) : cols;
  const sideBySide = colWidth >= MIN_COLUMN;
  const workerRows = sideBySide ? 5 : slots.length;
  const queueRows = Math.min(Math.max(1, m.queue.length), 5);
  const eventRows = Math.max(0, rows - 1 - header.length - 1 - (workerRows + 1) - (queueRows + 1) - 1);

  const workers = sideBySide
    ? h(
        Box,
        { flexDirection: 'row', height: workerRows + 1 },
        ...slots.map((w) =>
          h(
            Box,
            { key: w.worker, flexDirection: 'column', width: colWidth },
            ...slotLines(w).map((l, i) =>
              h(
                Text,
                {
                  key: i,
                  bold: i === 0,
                  color: i === 0 ? (w.task ? 'green' : 'gray') : undefined,
                  wrap: 'truncate-end',
                },
                clip(l, colWidth - 1),
              ),
            ),
          ),
        ),
      )
    : pane(
        'workers',
        slots.map((w) => slotRow(w, cols)),
        cols,
        workerRows,
      );

  return h(
    Box,
    { flexDirection: 'column', width: cols, height: rows - 1 },
    h(Text, { bold: true }, header[0]),
    h(Text, null, header[1]),
    h(Text, { color: m.finished || m.stopping ? 'yellow' : 'green' }, header[2]),
    workers,
    pane('merge queue', queueLines(m, cols), cols, queueRows),
    pane(
      'events',
      m.events.slice(0, eventRows).map((e) => e.text),
      cols,
      eventRows,
    ),
    h(Text, { inverse: Boolean(flash) }, clip(parallelFooter(m, flash), cols)),
  );
}
