/** Minimal flag parser for the rlvr CLI: `--name value`, `--flag`, repeated flags collect into arrays. */
export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string[]>;
}

export class UsageError extends Error {}

export function parseArgs(argv: string[], booleanFlags: readonly string[] = []): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    let name = a.slice(2);
    let value: string;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    } else if (booleanFlags.includes(name)) {
      value = 'true';
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`flag --${name} needs a value`);
      value = next;
      i++;
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
    if (!known.includes(name)) throw new UsageError(`unknown flag --${name} (known: ${known.map((k) => '--' + k).join(', ')})`);
  }
}
