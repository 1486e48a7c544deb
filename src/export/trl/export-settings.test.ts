// The TRL export checked where it goes, for every value of the fields that shape it: every loss_type,
// every preset, every value of every enum and boolean field, every task family and LoRA. Each exported
// project's .py files must compile (Debian's python3, one process), and where .venv-py holds TRL, each
// project's GRPOConfig and trainer are built by the real TRL 1.13 in one Python process
// (checks/build_exports.py): train_grpo.py's main() runs with train() and save_model() replaced.
// A line-wrapped note in src/rl/loss-types.ts once made gmpo's, clip_cov's and kl_cov's scripts a
// SyntaxError that a check of one setting could not see.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, fieldTable, type RunConfig, validateConfig } from '../../rl/config.ts';
import { presets } from '../../rl/presets.ts';
import { writeTrlExport } from './export.ts';
import { portedFamilies } from './python-sources.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const HOST_PYTHON = process.env.PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-export-settings-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Every setting that shapes the exported files, by a name for messages. */
function settings(): [string, Partial<RunConfig>][] {
  const out: [string, Partial<RunConfig>][] = [];
  for (const p of presets) out.push([`preset ${p.id}`, p.config as Partial<RunConfig>]);
  for (const [k, d] of Object.entries(fieldTable) as [keyof RunConfig, { kind: string; values?: string[] }][]) {
    if (d.kind === 'enum') for (const v of d.values!) out.push([`${k}=${v}`, { [k]: v }]);
    if (d.kind === 'bool') out.push([`${k}=${!defaultConfig[k]}`, { [k]: !defaultConfig[k] }]);
  }
  for (const task of portedFamilies) out.push([`task=${task}`, { task }]);
  out.push(['lora_r=8', { lora_r: 8 }]);
  out.push(['lora_r=8, loss_type=gmpo', { lora_r: 8, loss_type: 'gmpo' }]);
  return out;
}

interface Project {
  name: string;
  dir: string;
}

/** One project per distinct set of files (many settings write the same script). */
const projects: Project[] = [];

beforeAll(() => {
  const seen = new Set<string>();
  for (const [name, set] of settings()) {
    const config = validateConfig(set);
    const dir = join(tmp, `p${projects.length}`);
    const { files } = writeTrlExport(config, {}, dir, 4);
    const hash = createHash('sha256');
    for (const f of files.filter((f) => f.endsWith('.py'))) hash.update(readFileSync(join(dir, f)));
    const key = hash.digest('hex');
    if (seen.has(key)) rmSync(dir, { recursive: true, force: true });
    else {
      seen.add(key);
      projects.push({ name, dir });
    }
  }
});

describe('the TRL export of every setting', () => {
  it('every loss_type, preset, enum and boolean value, task family and LoRA exports a project', () => {
    const values = (fieldTable.loss_type as { values: readonly string[] }).values;
    expect(settings().length).toBeGreaterThanOrEqual(values.length + presets.length + portedFamilies.length);
    // the loss types all write scripts of their own
    for (const lt of values)
      expect(projects.some((p) => p.name === `loss_type=${lt}` || p.name.includes(lt))).toBe(true);
  });

  it("every exported .py file compiles (python3's compile(), as py_compile; one process for all)", () => {
    // compile() is what py_compile runs, without writing a .pyc beside each file
    const code =
      'import os, sys\nbad = []\nfor d in sys.argv[1:]:\n  for f in sorted(os.listdir(d)):\n' +
      '    if f.endswith(".py"):\n      p = os.path.join(d, f)\n' +
      '      try: compile(open(p, encoding="utf-8").read(), p, "exec")\n' +
      '      except SyntaxError as e: bad.append(d + "\\t" + f + " line " + str(e.lineno) + ": " + e.msg)\n' +
      'print("\\n".join(bad))';
    const r = spawnSync(HOST_PYTHON, ['-c', code, ...projects.map((p) => p.dir)], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const byDir = new Map(projects.map((p) => [p.dir, p.name]));
    const failed = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => `${byDir.get(l.split('\t')[0]!)}: ${l.split('\t')[1]}`);
    expect(failed).toEqual([]);
  });

  const venvPython = process.env.TRL_PYTHON ?? join(ROOT, '.venv-py/bin/python');
  const haveTrl = existsSync(venvPython);
  if (!haveTrl)
    console.warn(
      `\n${'!'.repeat(100)}\n!! THE EXPORTED PROJECTS WERE NOT BUILT UNDER TRL: no ${venvPython} ` +
        `(bash scripts/setup-python.sh makes .venv-py)\n${'!'.repeat(100)}\n`,
    );
  it.skipIf(!haveTrl)(
    `${haveTrl ? '' : 'SKIPPED (no .venv-py with TRL): '}TRL 1.13 builds every exported GRPOConfig and trainer`,
    () => {
      const model = join(tmp, 'hf');
      const manifest = join(ROOT, 'public/checkpoints/sat-tiny/manifest.json');
      const hf = spawnSync(
        'node',
        ['scripts/rlvr.mjs', 'export', '--format', 'hf', '--model', manifest, '--out', model],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      );
      expect(hf.status, hf.stderr).toBe(0);
      const r = spawnSync(
        venvPython,
        [join(import.meta.dirname, 'checks/build_exports.py'), model, ...projects.map((p) => p.dir)],
        {
          encoding: 'utf8',
          timeout: 600_000,
          env: {
            ...process.env,
            HF_HUB_OFFLINE: '1',
            HF_DATASETS_OFFLINE: '1',
            TRANSFORMERS_OFFLINE: '1',
            HF_HOME: join(tmp, 'hf-home'),
            TOKENIZERS_PARALLELISM: 'false',
            OMP_NUM_THREADS: '1',
            WANDB_DISABLED: 'true',
          },
        },
      );
      expect(r.status, r.stderr.slice(-4000)).toBe(0);
      const rows = r.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map(
          (l) => JSON.parse(l) as { project: string; ok: boolean; error?: string; loss_type?: string; peft?: boolean },
        );
      const byDir = new Map(projects.map((p) => [p.dir, p.name]));
      const failed = rows.filter((x) => !x.ok).map((x) => `${byDir.get(x.project)}: ${x.error}`);
      expect(failed).toEqual([]);
      expect(rows.map((x) => byDir.get(x.project))).toEqual(projects.map((p) => p.name));
      for (const x of rows) {
        const name = byDir.get(x.project)!;
        expect(x.peft, name).toBe(name.startsWith('lora_r='));
      }
    },
    600_000,
  );
});
