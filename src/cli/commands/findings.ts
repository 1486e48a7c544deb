import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { nodeRunFiles } from '../../node/run-files.ts';
import { findingToJson, findRunFindings } from '../../runs/findings/index.ts';
import type { Finding } from '../../runs/findings/index.ts';
import { detectRuns, openRun } from '../../runs/index.ts';
import type { OpenedRun, RunProblem } from '../../runs/index.ts';
import { flagUsage, parseFlags, UsageError, type FlagTable } from '../args.ts';
import type { Command } from './command.ts';

const FLAGS: FlagTable = {
  json: { help: 'one JSON object per line: {"run","kind","step","group","rows","score","text"}' },
};

/** Progress lines on stderr for a run that takes longer than this, then at most this often. */
const PROGRESS_MS = 2000;

class Unreadable extends Error {}

/** The runs at a path: every run under a folder, or the run that one file is (a JSONL file, a record). */
async function runsAt(path: string): Promise<{ runs: OpenedRun[]; problems: RunProblem[] }> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new Unreadable(`${path}: no such file or folder`);
  const folder = info.isDirectory() ? path : dirname(path);
  const files = nodeRunFiles(folder);
  const detected = await detectRuns(files);
  const found = info.isDirectory() ? detected.runs : detected.runs.filter((r) => r.path === basename(path));
  if (!found.length) {
    const why = detected.problems.find((p) => info.isDirectory() || p.file === basename(path))?.message;
    throw new Unreadable(
      `${path}: no run found${why ? ` (${why})` : ''}; a run is a TRL output_dir, a veRL rollout dump, a ` +
        'documented JSONL (docs/run-formats.md) or a *.rlvr.gz record',
    );
  }
  const runs: OpenedRun[] = [];
  const problems = info.isDirectory() ? [...detected.problems] : [];
  for (const f of found) {
    const run = await openRun(files, f);
    // A run opened from a file is named by its path as given; runs under a folder by their path in it.
    if (!info.isDirectory()) run.index.name = path;
    runs.push(run);
  }
  return { runs, problems };
}

/** The table: highest score first, one finding a line. */
function table(findings: Finding[]): string {
  if (!findings.length) return 'no findings\n';
  const rows = findings.map((f) => [
    f.score.toFixed(2),
    f.kind,
    f.run,
    String(f.step),
    f.group === null ? '-' : String(f.group),
    f.rows.length > 6 ? `${f.rows.slice(0, 6).join(',')},… (${f.rows.length})` : f.rows.join(',') || '-',
    f.text,
  ]);
  const head = ['score', 'kind', 'run', 'step', 'group', 'rows', 'finding'];
  const widths = head.slice(0, -1).map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i < widths.length ? c.padEnd(widths[i]!) : c)).join('  ');
  return `${[head, ...rows].map(line).join('\n')}\n`;
}

export const findingsCommand: Command = {
  name: 'findings',
  summary: "a run's anomalies (zero-variance groups, reward hacking, truncation, ...), each with its samples",
  help: [
    'rlvr findings PATH... [--json]',
    "  Reads every step of each run at PATH (a folder of runs, or a run's file) once and lists what",
    '  looks wrong, each with its step, group and rows: zero_variance_group, reward_hacking, truncation,',
    '  repetition, length_blowup, logprob_mismatch, entropy_collapse, nonfinite (docs/findings.md gives',
    '  each definition and threshold). Without --json, a table sorted by score, highest first.',
    flagUsage(FLAGS),
    '  Exit codes: 0 whether or not anything is found; 2 for a PATH that cannot be read or holds no run.',
  ].join('\n'),
  modes: [{ argv: ['PATH'], flags: FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, FLAGS);
    if (a.positional.length === 0) throw new UsageError('give at least one run or folder of runs');
    const json = a.flags.has('json');
    const all: Finding[] = [];
    let unreadable = false;
    for (const path of a.positional) {
      let opened: { runs: OpenedRun[]; problems: RunProblem[] };
      try {
        opened = await runsAt(path);
      } catch (e) {
        if (!(e instanceof Unreadable)) throw e;
        process.stderr.write(`rlvr findings: ${e.message}\n`);
        unreadable = true;
        continue;
      }
      for (const p of opened.problems) process.stderr.write(`rlvr findings: ${p.message}\n`);
      for (const run of opened.runs) {
        const name = run.index.name;
        if (run.index.steps.length === 0 && run.index.problems.length) {
          for (const p of run.index.problems) process.stderr.write(`rlvr findings: ${p.message}\n`);
          unreadable = true;
          continue;
        }
        const started = Date.now();
        let said = started;
        const result = await findRunFindings(run, {
          onProgress: ({ done, total }) => {
            const now = Date.now();
            if (now - said < PROGRESS_MS) return;
            said = now;
            process.stderr.write(`rlvr findings: ${name}: ${done}/${total} steps read\n`);
          },
        });
        for (const p of run.index.problems) process.stderr.write(`rlvr findings: ${p.message}\n`);
        if (json) for (const f of result.findings) process.stdout.write(`${JSON.stringify(findingToJson(f))}\n`);
        all.push(...result.findings);
      }
    }
    if (!json) process.stdout.write(table(all.sort((x, y) => y.score - x.score)));
    return unreadable ? 2 : 0;
  },
};
