import { describe, expect, it } from 'vitest';
import { getLesson } from '../lessons/index.ts';
import { seedCachePath } from './commands/lessons.ts';

describe('rlvr lesson run: the per-seed cache', () => {
  const lesson = getLesson('reward-hacking');

  it('keys a seed by the lesson setup, the steps and the seed', () => {
    const a = seedCachePath(lesson, 150, 1);
    expect(a).toMatch(/runs\/lessons\/reward-hacking\/[0-9a-f]{12}-steps150-seed1\.json$/);
    expect(seedCachePath(lesson, 150, 1)).toBe(a);
    expect(seedCachePath(lesson, 150, 2)).not.toBe(a);
    expect(seedCachePath(lesson, 60, 1)).not.toBe(a);
  });

  it('a changed setup (a run’s config) never reuses an old seed', () => {
    const changed = {
      ...lesson,
      runs: lesson.runs.map((r, i) => (i === 1 ? { ...r, config: { ...r.config, learning_rate: 3e-4 } } : r)),
    };
    const key = (p: string) => p.split('/').pop()!.slice(0, 12);
    expect(key(seedCachePath(changed, 150, 1))).not.toBe(key(seedCachePath(lesson, 150, 1)));
  });
});
