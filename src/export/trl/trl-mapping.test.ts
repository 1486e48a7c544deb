// Every run-config field reaches train_grpo.py: mapped to a GRPOConfig field of the same name
// (trlFields, or loss_type by trlLossType), or listed as unmapped with what approximates it
// (untranslated). A field added to the config table (src/rl/config-fields.ts) without either fails
// here, so none can silently drop out of the export. Where .venv-py holds TRL, every mapped name is
// checked against TRL 1.13's own GRPOConfig.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configFields, defaultConfig, fieldTable, type RunConfig } from '../../rl/config.ts';
import { trainScriptSource, trlFields, trlLossType, trlLossTypes, untranslated } from './train-script.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PYTHON = process.env.TRL_PYTHON ?? join(ROOT, '.venv-py/bin/python');

const mapped = new Set<string>([...trlFields, 'loss_type']);

describe('the TRL export maps every config field or says why not', () => {
  it('each field of the config table is mapped or listed as unmapped with a reason, never both, never neither', () => {
    const unmapped = new Map(untranslated(defaultConfig));
    const problems: string[] = [];
    for (const k of configFields) {
      const isMapped = mapped.has(k);
      const reason = unmapped.get(k);
      if (isMapped && reason !== undefined) problems.push(`${k}: both mapped and listed as unmapped`);
      if (!isMapped && reason === undefined)
        problems.push(
          `${k}: neither mapped to a GRPOConfig field nor listed in untranslated() with a reason ` +
            '(src/export/trl/train-script.ts)',
        );
      if (reason !== undefined && reason.trim().length < 8) problems.push(`${k}: the reason "${reason}" says nothing`);
    }
    for (const k of [...mapped, ...unmapped.keys()])
      if (!(configFields as string[]).includes(k)) problems.push(`${k}: not a config field`);
    expect(problems).toEqual([]);
  });

  it('the fields the table marks as TRL fields (trl: true) are the mapped ones', () => {
    const unmapped = new Map(untranslated(defaultConfig));
    const marked = (k: string) => Boolean((fieldTable[k as keyof RunConfig] as { trl?: boolean }).trl);
    // a trl: true field goes over by name, or in another form its note starts with "mapped:"
    for (const k of configFields)
      if (marked(k)) expect(mapped.has(k) || unmapped.get(k)?.startsWith('mapped:'), k).toBe(true);
    // seed is TrainingArguments' own field, not one of GRPO's knobs
    for (const k of mapped)
      if (k !== 'seed')
        expect(marked(k), `${k} is passed to GRPOConfig: mark it trl: true in config-fields.ts`).toBe(true);
  });

  it('train_grpo.py passes every mapped field and comments every unmapped one', () => {
    const c: RunConfig = { ...defaultConfig, loss_type: 'vespo', vespo_k_pos: 1.5, use_bias_correction_kl: true };
    const script = trainScriptSource(c, {});
    for (const f of trlFields) expect(script, f).toMatch(new RegExp(`\\n {8}${f}=`));
    expect(script).toContain('loss_type="vespo",');
    expect(script).toContain('vespo_k_pos=1.5,');
    expect(script).toContain('use_bias_correction_kl=True,');
    for (const [k] of untranslated(c)) expect(script, k).toMatch(new RegExp(`\\n#   ${k} = `));
  });

  it('every loss_type TRL has goes over by name; the others say plainly that TRL lacks them', () => {
    const values = (fieldTable.loss_type as { values: readonly string[] }).values;
    for (const lt of values) {
      const m = trlLossType({ ...defaultConfig, loss_type: lt as RunConfig['loss_type'] });
      if ((trlLossTypes as readonly string[]).includes(lt)) expect(m).toEqual({ value: lt, comment: '' });
      else {
        expect(m.comment).toMatch(new RegExp(`^TRL 1\\.13 has no loss_type "${lt}"`));
        expect(trainScriptSource({ ...defaultConfig, loss_type: lt as RunConfig['loss_type'] }, {})).toContain(
          `loss_type="${m.value}",  # TRL 1.13 has no loss_type "${lt}"`,
        );
      }
    }
  });

  const haveTrl = existsSync(PYTHON);
  if (!haveTrl)
    console.warn(
      `\n${'!'.repeat(100)}\n!! TRL FIELD NAMES NOT CHECKED: no ${PYTHON} (bash scripts/setup-python.sh ` +
        `makes .venv-py)\n${'!'.repeat(100)}\n`,
    );
  it.skipIf(!haveTrl)(
    `${haveTrl ? '' : 'SKIPPED (no .venv-py with TRL): '}every mapped name is a field of TRL 1.13's ` +
      'GRPOConfig, every TRL loss_type one it documents',
    () => {
      const code =
        'import dataclasses, inspect, json, trl; print(json.dumps({"version": trl.__version__, "fields": ' +
        '[f.name for f in dataclasses.fields(trl.GRPOConfig)], "doc": ' +
        'inspect.getsource(trl.GRPOConfig)}))';
      const r = spawnSync(PYTHON, ['-c', code], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const trl = JSON.parse(r.stdout) as { version: string; fields: string[]; doc: string };
      expect(trl.version).toMatch(/^1\.13\./);
      for (const f of mapped) expect(trl.fields, f).toContain(f);
      // an unmapped field that TRL also has must say how it differs, never "no TRL field"
      for (const [k, reason] of untranslated(defaultConfig))
        if (trl.fields.includes(k)) expect(reason, k).not.toMatch(/no TRL field|no GRPOConfig field/);
      for (const lt of trlLossTypes) expect(trl.doc, lt).toContain(`- \`"${lt}"\``);
    },
  );

  it.skipIf(!haveTrl)(
    `${haveTrl ? '' : 'SKIPPED (no .venv-py with TRL): '}every TRL field's default is ours, or the field ` +
      `table names TRL's (trlDefault: the setup's badge says it differs)`,
    () => {
      const code =
        'import dataclasses, json, trl\nout = {}\nfor f in dataclasses.fields(trl.GRPOConfig):\n    d = ' +
        'f.default_factory() if f.default is dataclasses.MISSING and f.default_factory is not ' +
        'dataclasses.MISSING else f.default\n    out[f.name] = d if isinstance(d, (int, float, str, bool, ' +
        'type(None))) else repr(d)\nprint(json.dumps(out))';
      const r = spawnSync(PYTHON, ['-c', code], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const trlDefaults = JSON.parse(r.stdout) as Record<string, unknown>;
      const rows: string[] = [];
      for (const [k, spec] of Object.entries(fieldTable) as [
        string,
        { trl?: boolean; trlDefault?: unknown; kind: string; default: unknown },
      ][]) {
        if (!spec.trl || spec.kind === 'weights') continue;
        // TRL's None where it means a value: epsilon_high = epsilon's value, min_p = off (0), and
        // steps_per_generation = one generation per optimizer step (0 here).
        const noneMeans: Record<string, unknown> = {
          epsilon_high: trlDefaults.epsilon,
          min_p: 0,
          steps_per_generation: 0,
        };
        const theirs = trlDefaults[k] === null && k in noneMeans ? noneMeans[k] : trlDefaults[k];
        rows.push(
          `${k}: ours ${JSON.stringify(spec.default)}, TRL ${JSON.stringify(theirs)}` +
            `, trlDefault ${JSON.stringify(spec.trlDefault)}`,
        );
        if (spec.trlDefault === undefined) expect(theirs, rows.at(-1)).toEqual(spec.default);
        else {
          expect(theirs, rows.at(-1)).toEqual(spec.trlDefault);
          expect(spec.trlDefault, `${k}: trlDefault is only for a default that differs`).not.toEqual(spec.default);
        }
      }
    },
  );
});
