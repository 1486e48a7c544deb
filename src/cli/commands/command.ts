import type { FlagTable } from '../args.ts';

/** A way of calling a command with its own flags: `argv` selects it (e.g. ['info', 'FILE'], ['--format', 'hf']). */
export interface CommandMode {
  argv: readonly string[];
  flags: FlagTable;
}

export interface Command {
  name: string;
  summary: string;
  /** The usage; its flag lines come from the modes' flag tables (flagUsage). */
  help: string;
  /** The flag tables the command parses with: one mode for most commands, one per format or action. */
  modes: readonly CommandMode[];
  /** Returns the process exit code. Throw UsageError for bad flags. */
  run(argv: string[]): Promise<number>;
}
