import type { Command } from '@commander-js/extra-typings';
import { ExitCode } from '../../errors.ts';
import type { CliIO, SetCode } from '../io.ts';

/** `ralph tools interact progress "<message>"`: ralph-orchestrator's non-blocking note to the human. */
export function registerInteractTools(tools: Command, io: CliIO, setCode: SetCode): void {
  const interact = tools.command('interact').description('notes from the agent to the human (nothing waits)');
  interact
    .command('progress')
    .description(
      'send the human a progress note (Telegram with RObot on) and record it in the run log and event stream; never waits',
    )
    .argument('<message...>', 'the note (words are joined; redacted, cut at 2,000 characters)')
    .action(async (words) => {
      const { sendProgressNote, MAX_PROGRESS_CHARS } = await import('../../human/progress-notes.ts');
      const r = sendProgressNote(io.env.RALPH_WORKSPACE_ROOT ?? io.cwd, words.join(' '), io.env);
      if (r.cut) io.err(`ralph: the note was longer than ${MAX_PROGRESS_CHARS} characters and was cut\n`);
      const id = r.note.id;
      if (r.channel === 'telegram') io.out(`sent ${id}: the loop passes it to the human on Telegram\n`);
      else if (r.channel === 'none')
        io.out(
          `recorded ${id} in the run log and event stream: no human channel is configured (RObot.enabled is false), so nobody is notified\n`,
        );
      else
        io.out(
          `recorded ${id} in .ralph/control/progress.jsonl: no loop runs this command, so nothing sends it\n`,
        );
      setCode(ExitCode.ok);
    });
}
