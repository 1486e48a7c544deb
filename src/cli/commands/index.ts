import type { Command } from './command.ts';

/** Every rlvr subcommand, in the order `rlvr --help` lists them. */
export const commands: Command[] = [];
