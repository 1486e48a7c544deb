import { describe, expect, it } from 'vitest';
import { applyAssignments, validateConfig } from '../../rl/config.ts';
import { lessons } from '../../lessons/index.ts';
import { getPreset } from '../../rl/presets.ts';
import { draftInputs, draftPatch } from './config-form.ts';
import { pageSourceText, resolveConfig } from '../../rl/resolve-config.ts';
import { fieldSourceText } from '../components/setup/FieldSource.tsx';
import {
  expectedConfig,
  fmtMeasured,
  lessonDraft,
  lessonForms,
  lessonRunPatch,
  lessonRunPlans,
  LESSON_SEED,
  parseMeasured,
  unknownLessonMessage,
  usesEval,
  verdictBody,
} from './lesson-plan.ts';
import { emptySetup, searchToSetup, setupToSearch } from './url-state.ts';

describe('lesson runs', () => {
  it.each(lessons.map((l) => [l.id, l] as const))(
    '%s: every run validates to preset ← run config, on the lesson task and seed',
    (_, lesson) => {
      for (const run of lesson.runs) {
        const c = expectedConfig(lesson, run, 7);
        expect(c.task).toBe(lesson.task);
        expect(c.seed).toBe(7);
        for (const [k, v] of Object.entries(getPreset(run.preset).config))
          if (!(k in run.config)) expect(c[k as keyof typeof c]).toEqual(v);
        for (const [k, v] of Object.entries(run.config)) expect(c[k as keyof typeof c]).toEqual(v);
        expect(c.eval_every > 0).toBe(usesEval(lesson));
        // A lesson that evaluates keeps its own evaluation (64 prompts × num_generations), not the demo's 160 × 2.
        if (usesEval(lesson))
          expect({ eval_prompts: c.eval_prompts, eval_samples: c.eval_samples }).toEqual({
            eval_prompts: 64,
            eval_samples: 0,
          });
      }
    },
  );

  it.each(lessons.map((l) => [l.id, l] as const))(
    '%s: the setup form shows run A and Compare B shows run B exactly',
    (_, lesson) => {
      const forms = lessonForms(lesson, LESSON_SEED);
      const [a, b] = lesson.runs;
      expect(validateConfig(draftPatch(forms.draft))).toEqual(validateConfig(lessonRunPatch(lesson, a!)));
      if (b) {
        const lines = forms.editsB.split('\n').filter(Boolean);
        const formB = applyAssignments(draftPatch({ ...forms.draft, presetId: forms.presetB }), lines);
        expect(validateConfig(formB)).toEqual(validateConfig(lessonRunPatch(lesson, b)));
      }
    },
  );

  it('labels the runs A, B, C with the lesson labels; at most three', () => {
    const noisy = lessons.find((l) => l.id === 'noisy-verifiers')!;
    expect(lessonRunPlans(noisy).map((p) => p.label)).toEqual([
      'A: clean',
      'B: 20% flipped',
      'C: 20% flipped, 22 prompts per step',
    ]);
    const many = { ...noisy, runs: [...noisy.runs, ...noisy.runs] };
    expect(lessonRunPlans(many)).toHaveLength(3);
  });

  it('a draft edit list holds only what differs from the preset', () => {
    const l = lessons.find((x) => x.id === 'length-normalisation')!;
    expect(lessonDraft(l, l.runs[1]!).edits).toEqual({ seed: '1', eval_every: '0', max_completion_length: '64' });
  });

  it(
    'each field a lesson set reads "lesson ID" as its ' +
      'source, in the resolver and beside the field, ' +
      'until the person edits it',
    () => {
      const l = lessons.find((x) => x.id === 'no-signal')!;
      const d = lessonDraft(l, l.runs[1]!);
      expect(d.origins).toEqual(
        Object.fromEntries(
          [...Object.keys(d.edits), ...Object.keys(d.knobs).map((k) => `difficulty.${k}`)].map((p) => [
            p,
            'lesson:no-signal',
          ]),
        ),
      );
      const r = resolveConfig(draftInputs(d, null));
      expect(r.errors).toEqual([]);
      expect(pageSourceText(r.source.num_generations!)).toBe('lesson no-signal');
      expect(pageSourceText(r.source['difficulty.m']!)).toBe('lesson no-signal');
      expect(fieldSourceText(d.origins!.num_generations, true, 'default')).toBe('lesson no-signal');
      // Typed over: the person's own edit.
      const { num_generations: _gone, ...rest } = d.origins!;
      expect(pageSourceText(resolveConfig(draftInputs({ ...d, origins: rest }, null)).source.num_generations!)).toBe(
        'edited',
      );
    },
  );
});

describe('lesson URLs', () => {
  it('?lesson=ID is read; an unknown id is reported with the known ids and the rest of the link still applies', () => {
    expect(searchToSetup('?lesson=why-groups').setup.lesson).toBe('why-groups');
    expect(searchToSetup('?lesson=why-groups').notes).toEqual([]);
    const bad = searchToSetup('?lesson=bogus&preset=dapo&steps=5');
    expect(bad.setup.lesson ?? null).toBeNull();
    expect(bad.notes).toEqual([unknownLessonMessage('bogus')]);
    expect(bad.notes[0]).toContain('why-groups');
    expect(bad.setup.draft.presetId).toBe('dapo');
    expect(bad.setup.stepBudget).toBe(5);
  });

  it('an open lesson writes ?lesson=ID (and steps only when not the lesson’s own)', () => {
    const l = lessons[0]!;
    const s = { ...emptySetup(), draft: lessonDraft(l, l.runs[0]!), lesson: l.id, stepBudget: l.steps };
    expect(setupToSearch(s)).toBe(`lesson=${l.id}`);
    expect(setupToSearch({ ...s, stepBudget: 3, backend: 'wasm' })).toBe(`lesson=${l.id}&steps=3&backend=wasm`);
    expect(setupToSearch({ ...s, lesson: null })).toContain('steps=150');
    // Old saved setups have no lesson field.
    const { lesson: _, ...old } = emptySetup();
    expect(setupToSearch(old)).toBe('');
  });
});

describe('measured outcomes', () => {
  it('keeps well-formed entries and drops the rest', () => {
    const ok = {
      id: 'why-groups',
      steps: 60,
      seed: 1,
      date: '2025-01-01',
      runs: [{ label: 'GRPO', values: { accuracy: 0.5 } }],
      summary: 'on seed 1…',
    };
    const { measured, dropped } = parseMeasured({ 'why-groups': ok, broken: { summary: 3 }, other: 'x' });
    expect(Object.keys(measured)).toEqual(['why-groups']);
    expect(dropped).toBe(2);
    expect(() => parseMeasured([1, 2])).toThrow(/object/);
  });

  it('formats numbers as the CLI summary does', () => {
    expect(fmtMeasured(0.12345)).toBe('0.123');
    expect(fmtMeasured(23.456)).toBe('23.5');
    expect(fmtMeasured(undefined)).toBe('—');
    expect(fmtMeasured(NaN)).toBe('—');
  });
});

describe('verdict body', () => {
  it(
    'drops a leading "Shows: " that would repeat the ' +
      'headline "The effect shows.", and keeps every ' +
      'other text whole',
    () => {
      expect(verdictBody({ shows: true, text: 'Shows: the clipped objective learned (x).' })).toBe(
        'The clipped objective learned (x).',
      );
      expect(verdictBody({ shows: true, text: "Shows: GRPO's divisor (x)." })).toBe("GRPO's divisor (x).");
      expect(verdictBody({ shows: false, text: 'Does not show at this difficulty: none learned.' })).toBe(
        'Does not show at this difficulty: none learned.',
      );
      expect(verdictBody({ shows: false, text: 'Shows: but judged not to.' })).toBe('Shows: but judged not to.');
    },
  );
});
