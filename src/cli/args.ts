/**
 * Flags of the rlvr CLI on top of node:util's parseArgs: `--name value`, `--name=value`, `--flag`
 * (for the command's boolean flags); a repeated flag collects its values into an array; anything that
 * does not start with `--` (a single dash included, so `--lr -1` works) is a value or a positional.
 * Each command declares its flags once, in a FlagTable (parseFlags checks them, flagUsage lists them),
 * so the tokens are read non-strictly and every flag that is not boolean takes the next argument as its value.
 */
import { parseArgs as parseNodeArgs } from 'node:util';

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string[]>;
}

export class UsageError extends Error {}

export function parseArgs(argv: string[], booleanFlags: readonly string[] = []): ParsedArgs {
  const { tokens } = parseNodeArgs({ args: argv, strict: false, allowPositionals: true, tokens: true });
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  // Indexes into argv already used (a flag's value; a short-option group yields one token per letter).
  const used = new Set<number>();
  for (const token of tokens) {
    if (used.has(token.index)) continue;
    used.add(token.index);
    if (token.kind === 'positional') {
      positional.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') {
      // After `--` everything is positional (node puts it in later tokens).
      continue;
    }
    if (!token.rawName.startsWith('--')) {
      // `-x`: not a flag of ours; kept as written, as the hand-written parser did.
      positional.push(argv[token.index]!);
      continue;
    }
    const name = token.name;
    let value: string;
    if (token.inlineValue) value = token.value ?? '';
    else if (booleanFlags.includes(name)) value = 'true';
    else {
      const next = argv[token.index + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`flag --${name} needs a value`);
      value = next;
      used.add(token.index + 1);
    }
    const list = flags.get(name) ?? [];
    list.push(value);
    flags.set(name, list);
  }
  return { positional, flags };
}

export function flag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return v ? v[v.length - 1] : undefined;
}

export function requireFlag(args: ParsedArgs, name: string): string {
  const v = flag(args, name);
  if (v === undefined) throw new UsageError(`missing required flag --${name}`);
  return v;
}

export function intFlag(args: ParsedArgs, name: string, fallback?: number): number {
  const v = flag(args, name);
  if (v === undefined) {
    if (fallback === undefined) throw new UsageError(`missing required flag --${name}`);
    return fallback;
  }
  const n = Number(v);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer, got "${v}"`);
  return n;
}

/** Rejects flags the command does not know, so typos are not silently ignored. */
export function checkKnownFlags(args: ParsedArgs, known: readonly string[]): void {
  for (const name of args.flags.keys()) {
    if (!known.includes(name))
      throw new UsageError(`unknown flag --${name} (known: ${known.map((k) => '--' + k).join(', ')})`);
  }
}

/** One flag of a command: what the usage shows for it; a flag without `value` takes none (`--json`). */
export interface FlagSpec {
  /** The value as the usage writes it ('N', 'FILE', 'node|wasm'); absent for a flag that takes no value. */
  value?: string;
  /** What it does and its default; '\n' starts a continuation line. */
  help: string;
}

/**
 * A command's flags, declared once: the parser accepts exactly these (parseFlags) and the usage lists
 * exactly these (flagUsage).
 */
export type FlagTable = Readonly<Record<string, FlagSpec>>;

/** Reads argv with the table's value-less flags as booleans and refuses any flag not in the table. */
export function parseFlags(argv: string[], table: FlagTable): ParsedArgs {
  const names = Object.keys(table);
  const a = parseArgs(
    argv,
    names.filter((n) => table[n]!.value === undefined),
  );
  checkKnownFlags(a, names);
  return a;
}

const FLAG_COLUMN = 21;

/** The usage's flag lines: `  --name VALUE  help`, one flag a line, continuation lines under the help. */
export function flagUsage(table: FlagTable): string {
  const lines: string[] = [];
  for (const [name, spec] of Object.entries(table)) {
    const head = `  --${name}${spec.value ? ' ' + spec.value : ''}`;
    const [first = '', ...more] = spec.help.split('\n');
    lines.push(head.length + 2 <= FLAG_COLUMN ? head.padEnd(FLAG_COLUMN) + first : `${head}  ${first}`);
    for (const m of more) lines.push(' '.repeat(FLAG_COLUMN) + m);
  }
  return lines.join('\n');
}
