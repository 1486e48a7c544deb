import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { modelPresets, type ModelPresetId } from '../../model/config.ts';
import type { Manifest } from '../../model/checkpoint.ts';
import { Policy } from '../../model/policy.ts';
import { mixtureTexts, pretrain, type PretrainMixEntry } from '../../model/pretrain.ts';
import { layoutFor } from '../../model/task-layout.ts';
import { tokenizerSpec } from '../../model/tokenizer.ts';
import { initParams, parameterCount } from '../../model/transformer.ts';
import { evaluatePassAtK } from '../../rl/evaluate.ts';
import { getTaskFamily } from '../../tasks/registry.ts';
import { flag, flagUsage, intFlag, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import { loadPolicy, writeCheckpoint } from '../../node/checkpoint-files.ts';
import { checkpointsDir, writeShippedIndex } from '../shipped.ts';
import { ProgressBar } from '../progress.ts';
import type { Command } from './command.ts';
import { BACKEND_FLAGS, backendFromFlags } from '../backend-flag.ts';

const FLAGS: FlagTable = {
  task: { value: 'T', help: 'task id whose RL difficulty the checkpoint is measured at' },
  mix: {
    value: 'JSON',
    help:
      'training mixture: [{"task":"arithmetic","difficulty":{"digits":2},"weight":1}, ...]\n' +
      '(default: the task at --difficulty)',
  },
  difficulty: { value: 'JSON', help: 'training difficulty when --mix is not given' },
  'eval-difficulty': {
    value: 'JSON',
    help: "RL difficulty the base pass@k is measured at (default: the family's default)",
  },
  model: {
    value: 'nano|tiny|mini|small|MANIFEST',
    help:
      'model preset (default tiny), or a checkpoint to continue from (its manifest.json), e.g. a\n' +
      'Llama folder rlvr import --format hf made: it trains in its own tokenizer',
  },
  corpus: {
    value: 'FILE.jsonl',
    help:
      "write the mixture's text instead of training: the prompt and reference of every row the warm\n" +
      'start would draw (--steps x --batch), one JSON string a line, to train a tokenizer on; then exit',
  },
  steps: { value: 'N', help: 'training steps (default 2000)' },
  batch: { value: 'N', help: 'rows a step (default 32)' },
  lr: { value: 'X', help: 'peak learning rate (default 0.002)' },
  seed: { value: 'S', help: 'seed (default 1)' },
  out: { value: 'DIR', help: 'the checkpoint folder to write' },
  'eval-prompts': { value: 'P', help: 'held-out prompts of the base pass@k (default 64)' },
  'eval-n': { value: 'N', help: 'samples per prompt (default 16)' },
  'eval-every': { value: 'N', help: 'evaluate every N steps (default 0 = only at the end)' },
  ...BACKEND_FLAGS,
};

const help = `rlvr pretrain --task T --out DIR [flags]
       rlvr pretrain --task T --corpus FILE.jsonl [--mix JSON --steps N --batch N --seed S]
Supervised warm start on reference solutions (RL from a random model gets no reward).
${flagUsage(FLAGS)}`;

function json(s: string | undefined, name: string): unknown {
  if (s === undefined) return undefined;
  try {
    return JSON.parse(s);
  } catch {
    throw new UsageError(`--${name} is not valid JSON: ${s}`);
  }
}

export const pretrainCommand: Command = {
  name: 'pretrain',
  summary: 'supervised warm start of a base checkpoint from task reference solutions',
  help,
  modes: [{ argv: [], flags: FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, FLAGS);
    const task = requireFlag(a, 'task');
    const fam = getTaskFamily(task);
    const modelArg = flag(a, 'model') ?? 'tiny';
    const fromCheckpoint = modelArg.endsWith('.json');
    const preset = modelArg as ModelPresetId;
    if (!fromCheckpoint && !(preset in modelPresets))
      throw new UsageError(
        `--model must be one of ${Object.keys(modelPresets).join(', ')}, or a checkpoint's manifest.json`,
      );
    const mix = (json(flag(a, 'mix'), 'mix') as PretrainMixEntry[] | undefined) ?? [
      { task, difficulty: json(flag(a, 'difficulty'), 'difficulty') as Record<string, number> | undefined },
    ];
    const evalDifficulty = {
      ...fam.defaultDifficulty,
      ...((json(flag(a, 'eval-difficulty'), 'eval-difficulty') as object | undefined) ?? {}),
    };
    const steps = intFlag(a, 'steps', 2000);
    const batch = intFlag(a, 'batch', 32);
    const lr = Number(flag(a, 'lr') ?? 0.002);
    const seed = intFlag(a, 'seed', 1);
    const evalPrompts = intFlag(a, 'eval-prompts', 64);
    const evalN = intFlag(a, 'eval-n', 16);
    const evalEvery = intFlag(a, 'eval-every', 0);
    const corpus = flag(a, 'corpus');
    if (corpus !== undefined) {
      const lines: string[] = [];
      for (const text of mixtureTexts({ mix, steps, batchSize: batch, seed })) lines.push(JSON.stringify(text));
      writeFileSync(resolve(corpus), lines.join('\n') + '\n');
      process.stdout.write(JSON.stringify({ corpus: resolve(corpus), texts: lines.length }) + '\n');
      return 0;
    }
    const out = requireFlag(a, 'out');
    const base = fromCheckpoint
      ? await loadPolicy(modelArg, backendFromFlags(a))
      : {
          manifest: null,
          tokenizerFiles: undefined,
          policy: await Policy.create(
            backendFromFlags(a),
            modelPresets[preset],
            layoutFor([{ task }]),
            initParams(modelPresets[preset], seed),
          ),
        };
    const policy = base.policy;
    const cfg = policy.config;
    const layout = layoutFor([...mix, { task, difficulty: evalDifficulty }], 8, 200, policy.codec);
    policy.setLayout(layout);
    const modelName = base.manifest?.name ?? preset;
    process.stderr.write(
      `pretrain: model ${modelName} (${parameterCount(cfg)} parameters), layout prompt ${layout.promptLen} ` +
        `+ completion ${layout.completionLen}\n`,
    );
    const evaluate = () =>
      evaluatePassAtK(policy, {
        task,
        difficulty: evalDifficulty,
        prompts: evalPrompts,
        n: evalN,
        ks: [1, 8].filter((k) => k <= evalN),
        seed: 0,
      });
    const bar = new ProgressBar('pretrain', steps);
    let lastLoss = NaN;
    await pretrain(policy, {
      mix,
      steps,
      batchSize: batch,
      lr,
      warmupSteps: Math.min(100, Math.floor(steps / 10)),
      seed,
      onStep: async (s, loss) => {
        lastLoss = loss;
        bar.update(s + 1, `loss ${loss.toFixed(4)}`);
        if (evalEvery > 0 && (s + 1) % evalEvery === 0 && s + 1 < steps) {
          const r = await evaluate();
          process.stderr.write(`\nstep ${s + 1}: pass@k ${JSON.stringify(r.pass_at_k)}\n`);
        }
      },
    });
    const r = await evaluate();
    const manifest: Manifest = {
      format: 'rlvr-playground-checkpoint',
      version: 1,
      name: `${task}-${modelName}`,
      weights: 'model.safetensors',
      model: cfg,
      layout,
      tokenizer: base.manifest?.tokenizer ?? tokenizerSpec,
      tasks: [
        { task, difficulty: evalDifficulty, pass_at_k: r.pass_at_k, eval: { prompts: evalPrompts, n: evalN, seed: 0 } },
      ],
      training: {
        kind: 'pretrain',
        command: `rlvr pretrain ${argv.join(' ')}`,
        seed,
        steps,
        trained_on: mix.map((m) => ({
          task: m.task,
          difficulty: { ...getTaskFamily(m.task).defaultDifficulty, ...(m.difficulty ?? {}) } as Record<
            string,
            number | string
          >,
        })),
      },
      created: new Date().toISOString().slice(0, 10),
      parameters: parameterCount(cfg),
    };
    writeCheckpoint(resolve(out), manifest, await policy.getWeights(), base.tokenizerFiles);
    if (resolve(out).startsWith(checkpointsDir)) writeShippedIndex();
    process.stdout.write(
      JSON.stringify({ out: resolve(out, 'manifest.json'), final_loss: lastLoss, pass_at_k: r.pass_at_k }) + '\n',
    );
    await policy.dispose();
    return 0;
  },
};
