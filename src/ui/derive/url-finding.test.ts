/** `finding=KIND` in a run viewer link (src/ui/derive/url-state.ts): read, written back, and a bad kind noted. */
import { describe, expect, it } from 'vitest';
import { searchToSetup, viewerToSearch } from './url-state.ts';

describe('finding=KIND', () => {
  it('is read into the viewer place and written back', () => {
    const r = searchToSetup('?view=planted.jsonl&step=8&finding=truncation');
    expect(r.notes).toEqual([]);
    expect(r.page.viewer).toEqual({ name: 'planted.jsonl', step: 8, prompt: null, finding: 'truncation' });
    expect(viewerToSearch(r.page.viewer)).toBe('view=planted.jsonl&step=8&finding=truncation');
  });

  it('a kind that is not one is noted and every kind is listed', () => {
    const r = searchToSetup('?view=r&finding=hacks');
    expect(r.page.viewer.finding).toBeUndefined();
    expect(r.notes).toEqual([
      'finding=hacks is not a kind of finding (zero_variance_group, reward_hacking, truncation, repetition, ' +
        'length_blowup, logprob_mismatch, entropy_collapse, nonfinite); every kind is listed',
    ]);
  });
});
