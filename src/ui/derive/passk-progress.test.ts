import { describe, expect, it } from 'vitest';
import { aboutTime, passKSecondsLeft, passKWait } from './passk-progress.ts';

describe("pass@k's one progress line", () => {
  it('runs from 0 to 100% across the base and the current phase, never backwards', () => {
    let w = passKWait(null, 'passk-base', 64, 512, 0);
    expect(w.fraction).toBeCloseTo(0.0625);
    w = passKWait(w, 'passk-base', 512, 512, 10_000);
    expect(w.fraction).toBeCloseTo(0.5);
    w = passKWait(w, 'passk-current', 64, 512, 11_000);
    expect(w.fraction).toBeCloseTo(0.5625);
    w = passKWait(w, 'passk-current', 512, 512, 20_000);
    expect(w.fraction).toBe(1);
  });
  it('is one phase when the base curve was cached', () => {
    expect(passKWait(null, 'passk-current', 256, 512, 0).fraction).toBeCloseTo(0.5);
  });
  it('estimates the time left from the rate since the first batch', () => {
    const first = passKWait(null, 'passk-base', 64, 512, 0); // 6.25% at t = 0
    const later = passKWait(first, 'passk-base', 256, 512, 6_000); // 25% at 6 s: 18.75% in 6 s
    expect(passKSecondsLeft(later, 6_000)).toBeCloseTo(24);
    expect(passKSecondsLeft(first, 0)).toBeNull();
    expect(aboutTime(24)).toBe('about 25 s');
  });
  it(
    'follows the recent rate when a phase runs faster ' +
      'than the first (the rate of the latter half of the ' +
      'wait)',
    () => {
      let w = passKWait(null, 'passk-base', 32, 320, 0); // 5% at 0 s
      w = passKWait(w, 'passk-base', 320, 320, 20_000); // 50% at 20 s: slow
      w = passKWait(w, 'passk-current', 64, 320, 22_000); // 60% at 22 s
      w = passKWait(w, 'passk-current', 128, 320, 24_000); // 70% at 24 s: 10% every 2 s
      expect(passKSecondsLeft(w, 24_000)).toBeCloseTo(6);
      expect(aboutTime(400)).toBe('about 7 min');
    },
  );
});
