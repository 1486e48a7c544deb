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
    expect(aboutTime(400)).toBe('about 7 min');
  });
});
