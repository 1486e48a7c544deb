import { describe, expect, it } from 'vitest';
import { leaders, passkVerdict } from './passk-caption.ts';

const curve = (base: number[], current: number[]) => ({
  ks: base.map((_, i) => 2 ** i),
  base: Object.fromEntries(base.map((v, i) => [String(2 ** i), v])),
  current: Object.fromEntries(current.map((v, i) => [String(2 ** i), v])),
});

describe('pass@k verdict', () => {
  it(
    'names the base ahead only where it is: a lead at k ' +
      '= 1 that the current policy takes from k = 2 is ' +
      'not "from k = 1"',
    () => {
      const c = curve([0.31, 0.45, 0.6, 0.7], [0.3, 0.5, 0.66, 0.72]);
      expect(passkVerdict(c)).toBe('the base policy is ahead at k = 1; the current policy is ahead from k = 2');
    },
  );
  it('says "from k" only for a lead that lasts to the largest k', () => {
    const c = curve([0.2, 0.5, 0.7, 0.9], [0.4, 0.6, 0.65, 0.8]);
    expect(passkVerdict(c)).toBe('the current policy is ahead at k = 1 to 2; the base policy is ahead from k = 4');
    expect(leaders(c).map((x) => x.leader)).toEqual(['current', 'current', 'base', 'base']);
  });
  it('calls identical curves level, not one of them ahead', () => {
    const c = curve([0.3, 0.5], [0.3, 0.5]);
    expect(passkVerdict(c)).toBe('the two are level at every k (within 0.005)');
    expect(passkVerdict(curve([0.3, 0.5], [0.5, 0.7]))).toBe('the current policy is ahead at every k');
  });
});
