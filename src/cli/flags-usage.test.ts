// Every command's flags are declared once (a FlagTable per mode, src/cli/args.ts): the flags a command
// accepts, read from its own refusal of an unknown flag, are exactly the flags its usage lists, and every
// flag its synopsis shows is accepted.
import { describe, expect, it } from 'vitest';
import { UsageError } from './args.ts';
import { commands } from './commands/index.ts';

/** The flags a command accepts in a mode: what it names when refusing a flag it does not know. */
async function acceptedFlags(run: (argv: string[]) => Promise<number>, argv: readonly string[]): Promise<string[]> {
  const err = await run([...argv, '--no-such-flag', 'x']).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  const m = /unknown flag --no-such-flag \(known: (.*)\)$/.exec((err as Error).message);
  expect(m, (err as Error).message).not.toBeNull();
  return m![1]!
    .split(', ')
    .filter(Boolean)
    .map((f) => f.replace(/^--/, ''));
}

/** The flags the usage lists: lines that start (after indentation) with --name. */
const listedFlags = (help: string) => [...help.matchAll(/^ {2}--([a-z][a-z0-9-]*)/gm)].map((m) => m[1]!);

describe('rlvr usage lists exactly the flags each command accepts', () => {
  for (const command of commands) {
    it(`rlvr ${command.name}`, async () => {
      const accepted = new Set<string>();
      for (const mode of command.modes) {
        const got = await acceptedFlags((argv) => command.run(argv), mode.argv);
        expect(got.sort(), `rlvr ${command.name} ${mode.argv.join(' ')}`).toEqual(Object.keys(mode.flags).sort());
        got.forEach((f) => accepted.add(f));
      }
      const listed = listedFlags(command.help);
      expect(new Set(listed)).toEqual(accepted);
      // Each flag is listed once per mode that has it, not twice.
      const perMode = command.modes.flatMap((m) => Object.keys(m.flags));
      expect(listed.sort()).toEqual(perMode.sort());
      // The synopsis lines (those starting with "rlvr NAME" or "usage: rlvr NAME") show only accepted flags.
      const synopsis = command.help.split('\n').filter((l) => /^(usage: )?\s*rlvr /.test(l));
      expect(synopsis.length).toBeGreaterThan(0);
      for (const line of synopsis)
        for (const m of line.matchAll(/--([a-z][a-z0-9-]*)/g)) expect(accepted, line).toContain(m[1]);
    });
  }
});
