// The sampler's min_p and repetition_penalty against transformers' own logits processors, the ones
// TRL's generate() builds from GRPOConfig's min_p and repetition_penalty: on random logits rows, with
// random seen tokens, our processedProbs (src/model/sampling.ts) and RepetitionPenaltyLogitsProcessor →
// TemperatureLogitsWarper → TopKLogitsWarper → TopPLogitsWarper → MinPLogitsWarper then a softmax (the
// order of GenerationMixin._get_logits_processor) give the same probabilities, in float64.
//
// Without a Python that imports transformers the test is skipped, loudly (bash scripts/setup-python.sh
// makes .venv-py).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processedProbs, type SamplingParams } from '../../model/sampling.ts';
import { Rng } from '../../util/rng.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PYTHON = process.env.TRL_PYTHON ?? join(ROOT, '.venv-py/bin/python');

function transformersVersion(): string | null {
  if (!process.env.TRL_PYTHON)
    spawnSync('bash', ['scripts/setup-python.sh'], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 });
  if (!existsSync(PYTHON)) return null;
  const r = spawnSync(PYTHON, ['-c', 'import transformers; print(transformers.__version__)'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}
const version = transformersVersion();
if (!version)
  console.warn(
    `\n${'!'.repeat(100)}\n!! SAMPLER PARITY SKIPPED: no Python with transformers at ${PYTHON}` +
      ` (bash scripts/setup-python.sh)\n${'!'.repeat(100)}\n`,
  );

// transformers' processors, applied as generate() orders them; prints the probabilities per case
const SCRIPT = `
import json, sys, torch
from transformers.generation.logits_process import (LogitsProcessorList, MinPLogitsWarper,
    RepetitionPenaltyLogitsProcessor, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper)
out = []
for c in json.load(sys.stdin):
    procs = LogitsProcessorList()
    if c["repetition_penalty"] != 1.0:
        procs.append(RepetitionPenaltyLogitsProcessor(penalty=float(c["repetition_penalty"])))
    if c["temperature"] != 1.0: procs.append(TemperatureLogitsWarper(c["temperature"]))
    if c["top_k"] != 0: procs.append(TopKLogitsWarper(top_k=c["top_k"]))
    if c["top_p"] < 1.0: procs.append(TopPLogitsWarper(top_p=c["top_p"]))
    if c["min_p"] > 0: procs.append(MinPLogitsWarper(min_p=c["min_p"]))
    ids = torch.tensor([c["seen"]], dtype=torch.long)
    scores = procs(ids, torch.tensor([c["logits"]], dtype=torch.float64))
    out.append(torch.softmax(scores, dim=-1)[0].tolist())
print(json.dumps(out))
`;

interface Case {
  logits: number[];
  seen: number[];
  temperature: number;
  top_k: number;
  top_p: number;
  min_p: number;
  repetition_penalty: number;
}

function cases(): Case[] {
  const rng = new Rng(11);
  const out: Case[] = [];
  const knobs: Omit<Case, 'logits' | 'seen'>[] = [
    { temperature: 1, top_k: 0, top_p: 1, min_p: 0.1, repetition_penalty: 1 },
    { temperature: 0.7, top_k: 0, top_p: 1, min_p: 0.3, repetition_penalty: 1 },
    { temperature: 1, top_k: 0, top_p: 1, min_p: 0, repetition_penalty: 1.3 },
    { temperature: 1.2, top_k: 0, top_p: 1, min_p: 0, repetition_penalty: 0.8 },
    { temperature: 0.9, top_k: 0, top_p: 1, min_p: 0.05, repetition_penalty: 1.5 },
    { temperature: 1, top_k: 6, top_p: 1, min_p: 0.2, repetition_penalty: 1.2 },
    { temperature: 1, top_k: 0, top_p: 0.9, min_p: 0.1, repetition_penalty: 1.1 },
    { temperature: 0.8, top_k: 8, top_p: 0.8, min_p: 0.02, repetition_penalty: 2 },
  ];
  for (const k of knobs) {
    for (let r = 0; r < 4; r++) {
      const vocab = 24;
      const logits = Array.from({ length: vocab }, () => 4 * (rng.next() - 0.5));
      const seen = Array.from({ length: 5 }, () => Math.floor(rng.next() * vocab));
      out.push({ ...k, logits, seen });
    }
  }
  return out;
}

describe('sampler min_p and repetition_penalty match transformers’ logits processors', () => {
  it.skipIf(!version)(
    `${version ? '' : 'SKIPPED (no transformers): '}the same draw probabilities, in float64, within 1e-12`,
    () => {
      const all = cases();
      const r = spawnSync(PYTHON, ['-c', SCRIPT], {
        input: JSON.stringify(all),
        encoding: 'utf8',
        env: { ...process.env, CUDA_VISIBLE_DEVICES: '' },
      });
      expect(r.status, r.stderr).toBe(0);
      const theirs = JSON.parse(r.stdout) as number[][];
      let worst = 0;
      let truncated = 0;
      all.forEach((c, i) => {
        const sp: SamplingParams = {
          temperature: c.temperature,
          topK: c.top_k,
          topP: c.top_p,
          minP: c.min_p,
          repetitionPenalty: c.repetition_penalty,
        };
        const ours = processedProbs(c.logits, 0, c.logits.length, sp, new Set(c.seen));
        ours.forEach((p, v) => (worst = Math.max(worst, Math.abs(p - theirs[i]![v]!))));
        // the same tokens are removed (probability exactly 0 on both sides)
        expect(
          [...ours].map((p) => p === 0),
          `case ${i}: removed tokens`,
        ).toEqual(theirs[i]!.map((p) => p === 0));
        if (ours.some((p) => p === 0)) truncated++;
      });
      console.log(
        `sampler parity: ${all.length} rows, max |ours − transformers| = ${worst.toExponential(2)},` +
          ` ${truncated} rows with removed tokens`,
      );
      expect(worst).toBeLessThan(1e-12);
      expect(truncated).toBeGreaterThan(all.length / 2); // min_p and top-k/top-p did remove tokens
    },
  );
});
