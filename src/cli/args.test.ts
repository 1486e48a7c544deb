import { describe, expect, it } from 'vitest';
import { checkKnownFlags, flag, intFlag, parseArgs, requireFlag, UsageError } from './args.ts';

describe('CLI flags (node:util parseArgs underneath)', () => {
  it('reads values, repeated flags, booleans, --name=value and positionals', () => {
    const a = parseArgs(
      [
        'train',
        '--steps',
        '10',
        '--set',
        'lr=1e-4',
        '--set',
        'm=6',
        '--json',
        '--out=x=y',
        '--lr',
        '-1',
        '--empty=',
        'extra',
      ],
      ['json'],
    );
    expect(a.positional).toEqual(['train', 'extra']);
    expect([...a.flags]).toEqual([
      ['steps', ['10']],
      ['set', ['lr=1e-4', 'm=6']],
      ['json', ['true']],
      ['out', ['x=y']],
      ['lr', ['-1']],
      ['empty', ['']],
    ]);
    expect(flag(a, 'set')).toBe('m=6');
    expect(intFlag(a, 'steps')).toBe(10);
    expect(intFlag(a, 'missing', 7)).toBe(7);
    expect(requireFlag(a, 'out')).toBe('x=y');
  });

  it('keeps single-dash words and everything after -- as positionals', () => {
    expect(parseArgs(['a', '-v', 'b']).positional).toEqual(['a', '-v', 'b']);
    const a = parseArgs(['--x', 'val', '--', '--y']);
    expect(a.positional).toEqual(['--y']);
    expect(flag(a, 'x')).toBe('val');
  });

  it('names what is wrong', () => {
    expect(() => parseArgs(['--steps'])).toThrow(new UsageError('flag --steps needs a value'));
    expect(() => parseArgs(['--steps', '--json'], ['json'])).toThrow('flag --steps needs a value');
    const a = parseArgs(['--stpes', '3', '--n', 'x']);
    expect(() => checkKnownFlags(a, ['steps', 'n'])).toThrow('unknown flag --stpes (known: --steps, --n)');
    expect(() => requireFlag(a, 'steps')).toThrow('missing required flag --steps');
    expect(() => intFlag(a, 'n')).toThrow('--n must be an integer, got "x"');
  });
});
