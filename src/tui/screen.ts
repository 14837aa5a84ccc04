import type * as Ink from 'ink';
import { createElement, type FunctionComponent, useEffect, useState } from 'react';

// ink is an ES module with top-level await (its layout engine's WebAssembly), which CommonJS — the
// bundle bin/ralph runs, for V8's code cache — cannot require: openScreen imports it once, before
// any view renders, and the views take it from here.
let loadedInk: typeof Ink | undefined;

/** ink's exports, for the views openScreen renders. */
export function ink(): typeof Ink {
  if (loadedInk === undefined) throw new Error('a TUI view rendered before openScreen loaded ink');
  return loadedInk;
}

const ALT_SCREEN_ON = '\u001b[?1049h\u001b[?25l';
const ALT_SCREEN_OFF = '\u001b[?25h\u001b[?1049l';

/** What every TUI view gets to pace its frames. */
export interface FrameProps {
  /** Bumped by the sink when the model changed; read at most every `frameMs`. */
  version: () => number;
  frameMs: number;
  now: () => number;
}

/**
 * Redraws at most once per `frameMs`, and only when something changed (or once a second, for the
 * clocks); follows terminal resizes. Returns the terminal's size.
 */
export function useFrames(props: FrameProps): { cols: number; rows: number } {
  const { stdout } = ink().useStdout();
  const [, setFrame] = useState(0);
  const [size, setSize] = useState({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
  useEffect(() => {
    let seen = -1;
    let last = 0;
    const timer = setInterval(() => {
      const v = props.version();
      const t = props.now();
      if (v !== seen || t - last >= 1000) {
        seen = v;
        last = t;
        setFrame((f) => f + 1);
      }
    }, props.frameMs);
    const onResize = () => setSize({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on('resize', onResize);
    return () => {
      clearInterval(timer);
      stdout.off('resize', onResize);
    };
  }, [props, stdout]);
  return size;
}

/**
 * Renders `component` on the alternate screen (ink, loaded only now) at most `fps` frames a second.
 * `bump()` tells it the model changed; `stop()` gives the normal screen back (idempotent).
 */
export async function openScreen<P extends FrameProps>(
  component: FunctionComponent<P>,
  props: Omit<P, keyof FrameProps>,
  o: { stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream; fps?: number | undefined },
): Promise<{ bump: () => void; stop: () => void }> {
  loadedInk ??= await import('ink');
  const { render } = loadedInk;
  let version = 0;
  const fps = o.fps ?? 10;
  o.stdout.write(ALT_SCREEN_ON);
  const frames: FrameProps = { version: () => version, frameMs: Math.round(1000 / fps), now: Date.now };
  const instance = render(createElement(component, { ...props, ...frames } as P), {
    stdout: o.stdout,
    stdin: o.stdin,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: fps,
  });
  let stopped = false;
  return {
    bump: () => {
      version++;
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      instance.unmount();
      instance.cleanup();
      o.stdout.write(ALT_SCREEN_OFF);
    },
  };
}
