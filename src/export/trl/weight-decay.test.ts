// Weight decay applies to the parameters transformers' Trainer decays (the optimizer TRL's GRPOTrainer
// builds): a shipped checkpoint goes out with `rlvr export --format hf`, loads as GPT2LMHeadModel in the
// real transformers, and a Trainer with weight_decay > 0 builds its AdamW; the parameters in its decayed
// group, mapped back through the export's own names (hfParamName), are exactly those our AdamW decays
// (paramSpecs' `decay`, which src/model/graphs.ts hands to src/engine/optimizer.ts).
//
// The Python side comes from scripts/setup-python.sh (.venv-py, from this machine's local wheels);
// without the wheels it exits 3 and this test prints a banner and is skipped, never passed.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../model/checkpoint.ts';
import { hfParamName } from '../../model/hf-tensors.ts';
import { paramSpecs } from '../../model/transformer.ts';

const execFileP = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-weight-decay-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const CHECKPOINT = 'public/checkpoints/sort-tiny/manifest.json';

function findPython(): { python: string | null; missing: string } {
  const setup = spawnSync('bash', ['scripts/setup-python.sh'], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  if (setup.status !== 0)
    return {
      python: null,
      missing: `scripts/setup-python.sh exited ${setup.status}: ${(setup.stderr ?? '').slice(-400)}`,
    };
  const python = setup.stdout.trim().split('\n').at(-1)!;
  if (!existsSync(python))
    return { python: null, missing: `scripts/setup-python.sh printed ${python}, which does not exist` };
  return { python, missing: '' };
}
const { python, missing } = findPython();
if (!python) {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n!!  WEIGHT DECAY VS TRANSFORMERS SKIPPED: ${missing}\n${bar}\n\n`);
}

// The decayed group of the optimizer Trainer.create_optimizer builds (weight_decay > 0 in one group, 0 in
// the other), as names from model.named_parameters() (the tied lm_head.weight is wte there).
const SCRIPT = `
import json, sys
from transformers import GPT2LMHeadModel, Trainer, TrainingArguments
model = GPT2LMHeadModel.from_pretrained(sys.argv[1])
args = TrainingArguments(output_dir=sys.argv[2], weight_decay=0.1, report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args)
opt = trainer.create_optimizer()
name_of = {id(p): n for n, p in model.named_parameters()}
groups = [{"weight_decay": g["weight_decay"], "names": sorted(name_of[id(p)] for p in g["params"])} for g in \
opt.param_groups]
print(json.dumps({"groups": groups, "all": sorted(name_of.values())}))
`;

describe('weight decay as transformers applies it', () => {
  it.skipIf(!python)(
    'our decayed parameters are the ones in the decayed group of the Trainer TRL builds on',
    { timeout: 300_000 },
    async () => {
      const hf = join(tmp, 'hf');
      await execFileP('node', ['scripts/rlvr.mjs', 'export', '--format', 'hf', '--model', CHECKPOINT, '--out', hf], {
        cwd: root,
      });
      const env = {
        ...process.env,
        HF_HUB_OFFLINE: '1',
        TRANSFORMERS_OFFLINE: '1',
        WANDB_MODE: 'disabled',
        OMP_NUM_THREADS: '1',
      };
      const r = await execFileP(python!, ['-c', SCRIPT, hf, join(tmp, 'trainer-out')], {
        env,
        maxBuffer: 16 * 1024 * 1024,
      });
      const got = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
        groups: { weight_decay: number; names: string[] }[];
        all: string[];
      };
      const theirs = new Set(got.groups.filter((g) => g.weight_decay > 0).flatMap((g) => g.names));
      expect(theirs.size).toBeGreaterThan(0);

      const manifest = JSON.parse(readFileSync(join(root, CHECKPOINT), 'utf8')) as Manifest;
      const specs = paramSpecs(manifest.model);
      // Every HF parameter is some of ours, and parameters fused into one (c_attn) decay alike.
      const oursByHf = new Map<string, boolean[]>();
      for (const s of specs) oursByHf.set(hfParamName(s.name), [...(oursByHf.get(hfParamName(s.name)) ?? []), s.decay]);
      expect([...oursByHf.keys()].sort()).toEqual(got.all);
      for (const [name, decays] of oursByHf)
        expect(new Set(decays).size, `${name} fuses parameters that decay differently`).toBe(1);
      const ours = new Set([...oursByHf].filter(([, d]) => d[0]).map(([n]) => n));
      expect([...ours].sort()).toEqual([...theirs].sort());
      // Not vacuous: biases and LayerNorm parameters are left out, weight matrices and embeddings decay.
      expect(ours.has('transformer.h.0.attn.c_attn.bias')).toBe(false);
      expect(ours.has('transformer.ln_f.weight')).toBe(false);
      expect(ours.has('transformer.h.0.mlp.c_fc.weight')).toBe(true);
    },
  );
});
