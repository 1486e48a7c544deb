import { UsageError } from './args.ts';
import { commands } from './commands/index.ts';
import { cliErrorText } from './system-error.ts';

function usage(): string {
  const rows = commands.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`);
  return [
    'usage: rlvr <command> [flags]',
    '',
    'commands:',
    ...rows,
    '',
    'Run "rlvr <command> --help" for a command\'s flags.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 1;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`rlvr: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.help + '\n');
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`rlvr ${name}: ${cliErrorText(err)}\n\n${command.help}\n`);
      return 2;
    }
    process.stderr.write(`rlvr ${name}: ${cliErrorText(err)}\n`);
    return 1;
  }
}
