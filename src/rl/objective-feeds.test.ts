// The join between the objective graph's inputs and the feeds the trainer builds: checked by the
// compiler (ObjectiveFeeds, the @ts-expect-error lines below) and here against the graph itself.
import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import type { DeviceTensor } from '../engine/backend.ts';
import { Graph } from '../engine/graph.ts';
import { defaultAdamW } from '../engine/optimizer.ts';
import { modelPresets } from '../model/config.ts';
import { trainState } from '../model/graphs.ts';
import { promptGroups, totalLen, type Layout } from '../model/layout.ts';
import { Policy } from '../model/policy.ts';
import { encode } from '../model/tokenizer.ts';
import { initParams } from '../model/transformer.ts';
import { getTaskFamily } from '../tasks/registry.ts';
import { Rng } from '../util/rng.ts';
import type { Sampled } from './collect.ts';
import { fieldTable, type RunConfig } from './config-fields.ts';
import { defaultConfig } from './config.ts';
import {
  buildRlGraph,
  objectiveForm,
  objectiveInputNames,
  objectiveOptions,
  type ObjectiveFeeds,
} from './objective.ts';
import { rlGraphFeeds } from './rl-feeds.ts';
import type { StepBatch } from './step-batch.ts';

describe('ObjectiveFeeds (type-level: these lines only compile while the names are checked)', () => {
  it('a feed name missing or misspelled does not compile', () => {
    const all = Object.fromEntries(objectiveInputNames.map((n) => [n, 0])) as ObjectiveFeeds<number>;
    const { mask: _mask, ...withoutMask } = all;
    // @ts-expect-error 'mask' is missing
    const missing: ObjectiveFeeds<number> = withoutMask;
    const { old_logp: _old, ...withoutOld } = all;
    // @ts-expect-error 'old_lgop' is not an input of the objective ('old_logp' is)
    const misspelled: ObjectiveFeeds<number> = { ...withoutOld, old_lgop: 0 };
    // @ts-expect-error a form's knob misspelled: 'clip_hihg' is not an input ('clip_high' is)
    const misspelledKnob: ObjectiveFeeds<number> = { ...all, clip_low: 0.8, clip_hihg: 1.2 };
    expect(Object.keys(missing)).not.toContain('mask');
    expect(Object.keys(misspelled)).toContain('old_lgop');
    expect(Object.keys(misspelledKnob)).toContain('clip_hihg');
  });
});

const cfg = modelPresets.nano;
const layout: Layout = { promptLen: 24, completionLen: 16 };

/** A step's batch of real task prompts with made-up completions (the feeds only read tokens, log-probs, masks). */
function stepBatch(c: RunConfig): StepBatch {
  const family = getTaskFamily(c.task);
  const rng = new Rng(7);
  const G = c.num_generations;
  const rows: Sampled[] = [];
  for (let gi = 0; gi < c.prompts_per_step; gi++) {
    const instance = family.generate(100 + gi, family.defaultDifficulty);
    const prompt = encode(instance.prompt).slice(0, layout.promptLen);
    for (let j = 0; j < G; j++) {
      const n = 3 + Math.floor(rng.next() * (layout.completionLen - 3));
      const tokens = Array.from({ length: n }, () => 5 + Math.floor(rng.next() * 40));
      const verdict = { correct: j === 0, components: { correctness: j === 0 ? 1 : 0, format: 1 }, reason: '' };
      rows.push({
        instance,
        prompt,
        hint: '',
        tokens,
        oldLogp: tokens.map(() => -1 - rng.next()),
        entropy: tokens.map(() => rng.next()),
        truncated: false,
        text: '',
        verdict,
        trueCorrect: verdict.correct,
        flipped: null,
        reward: j === 0 ? 1 : 0,
        components: {},
      });
    }
  }
  const perToken = (f: (i: number) => number) => rows.map((s) => s.tokens.map((_, i) => f(i)));
  return {
    updatesDone: 3,
    rows,
    masks: {
      seqMask: perToken(() => 1),
      trainMask: perToken((i) => (i % 3 ? 1 : 0)),
      weights: perToken(() => 1 / rows.length),
    },
    advantages: Array.from({ length: c.prompts_per_step }, () => Array.from({ length: G }, () => rng.next() - 0.5)),
    refLogp: c.beta > 0 ? perToken(() => -1.2) : null,
  };
}

describe('rlGraphFeeds', () => {
  const lossTypes: readonly RunConfig['loss_type'][] = fieldTable.loss_type.values;
  const forms = [...new Set(lossTypes.map(objectiveForm))];

  it('covers every objective form', () => {
    expect(forms.sort()).toEqual(['cispo', 'clip', 'clip_cov', 'gmpo', 'kl_cov', 'sapo', 'vespo']);
  });

  // each form, and the clip form with the off-policy sequence mask (an input of its own)
  const variants = [...forms.map((form) => ({ form, offPolicy: null })), { form: 'clip' as const, offPolicy: 0.01 }];
  for (const { form, offPolicy } of variants) {
    const name = `${form}${offPolicy === null ? '' : ' with off_policy_mask_threshold'}`;
    it(
      `${name}: the feeds and what Policy.train adds are exactly the RL graph's inputs, with their dtypes ` +
        'and shapes',
      async () => {
        const loss_type = lossTypes.find((lt) => objectiveForm(lt) === form)!;
        const c: RunConfig = {
          ...defaultConfig,
          task: 'sat',
          loss_type,
          prompts_per_step: 4,
          num_generations: 4,
          minibatches: 2,
          beta: 0.04,
          off_policy_mask_threshold: offPolicy,
        };
        const be = createNodeBackend(1);
        const policy = await Policy.create(be, cfg, layout, initParams(cfg, 11));
        try {
          const batch = stepBatch(c);
          const mbRows = batch.rows.length / c.minibatches;
          const groups = promptGroups(batch.rows.slice(mbRows, 2 * mbRows).map((s) => s.prompt));
          const slots = Math.ceil(mbRows / c.num_generations);
          const feeds: Record<string, DeviceTensor> = rlGraphFeeds(policy, c, batch, {
            index: 1,
            first: mbRows,
            rows: mbRows,
            layout,
            groups,
            slots,
          });
          const graph = buildRlGraph(
            cfg,
            mbRows,
            slots,
            layout.promptLen,
            totalLen(layout),
            defaultAdamW,
            form,
            objectiveOptions(c),
          );
          // Policy.train feeds the weights, the AdamW moments, step and lr: the inputs trainState declares.
          const own = new Graph();
          trainState(own, cfg);
          const fedByPolicy = own.inputs.map((t) => t.name);
          expect(Object.keys(feeds).filter((n) => fedByPolicy.includes(n))).toEqual([]);
          expect([...Object.keys(feeds), ...fedByPolicy].sort()).toEqual(graph.inputs.map((t) => t.name).sort());
          for (const t of graph.inputs) {
            const fed = feeds[t.name];
            if (!fed) continue;
            expect({ name: t.name, dtype: fed.type, shape: [...fed.dims] }).toEqual({
              name: t.name,
              dtype: t.dtype,
              shape: [...t.shape],
            });
          }
        } finally {
          await policy.dispose();
        }
      },
    );
  }
});
