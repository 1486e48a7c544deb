/**
 * `rlvr bench`, the end: statistics and ratios per preset (PyTorch ratios only when the correctness
 * check passed and torch uses an optimised BLAS), ORT profiles when a target was missed, then the
 * results JSON and the markdown table.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { relative } from 'node:path';
import { profileNode, type ProfileSummary } from './profile.ts';
import { fmtStat, median, stat, TOLERANCE, version, type Metric, type Sample } from './presets.ts';
import type { Bench } from './session.ts';
import { llamaSummary, llamaTable } from './llama.ts';

/**
 * The speed goals: ours at least this many times PyTorch eager (each thread count, and best vs best), the browser's
 * WASM step at most this many times the Node step.
 */
export const TARGETS = { vsPyTorch: 1.5, wasmVsNode: 1.5 };
const meetsPyTorch = (x: number) => x >= TARGETS.vsPyTorch;
const meetsWasm = (x: number) => x <= TARGETS.wasmVsNode;

export interface Summary {
  results: Record<string, Record<string, unknown>>;
  allProfiles: ProfileSummary[];
  tableRows: string[];
  ratioRows: string[];
}

/** Statistics, ratios and (when asked for, or a target was missed) profiles of every preset run. */
export async function summarise(b: Bench): Promise<Summary> {
  const { runs, peers, blasOk, wasmThreads, log, machine, loads } = b;
  const { noProfile, wantProfile, quick } = b.opts;
  const results: Record<string, Record<string, unknown>> = {};
  const allProfiles: ProfileSummary[] = [];
  const tableRows: string[] = [];
  const ratioRows: string[] = [];
  for (const run of runs) {
    const { id: presetId, check, threadsHere, samples, params, rows, setup, config, ctx: c } = run;
    const thr = (xs: Sample[]) => stat(xs.map((x) => x.tokens / x.s));
    const secs = (xs: Sample[]) => stat(xs.map((x) => x.s));
    const statsOf = (id: string) => {
      const s = samples.get(id);
      return s ? { sampling: thr(s.sampling), update: thr(s.update), step: secs(s.step) } : null;
    };
    const ratioOK = !!check?.ok && blasOk;
    const withheld = !peers.size
      ? 'no PyTorch peer in this run'
      : !check
        ? 'no check ran'
        : !check.ok
          ? `correctness check failed: max |Δ logp| ${check.max_abs_logp_diff.toExponential(2)}, |Δ loss| ` +
            `${check.abs_loss_diff.toExponential(2)} ` +
            `(tolerance ${TOLERANCE})`
          : !blasOk
            ? 'torch is not using an optimised BLAS'
            : null;
    const r3 = (x: number | null | undefined) =>
      x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 1000) / 1000;
    const byThreads: Record<string, Record<string, number | null>> = {};
    for (const t of threadsHere) {
      const n = statsOf(`node@${t}`);
      const p = statsOf(`torch@${t}`);
      byThreads[String(t)] = {
        update_vs_pytorch: ratioOK && n?.update && p?.update ? r3(n.update.median / p.update.median) : null,
        sampling_vs_pytorch: ratioOK && n?.sampling && p?.sampling ? r3(n.sampling.median / p.sampling.median) : null,
        step_vs_pytorch: ratioOK && n?.step && p?.step ? r3(p.step.median / n.step.median) : null,
      };
    }
    const best = (fam: 'node' | 'torch', m: Metric) => {
      const xs = threadsHere
        .map((t) => statsOf(`${fam}@${t}`)?.[m]?.median)
        .filter((x): x is number => x !== undefined);
      return xs.length ? (m === 'step' ? Math.min(...xs) : Math.max(...xs)) : null;
    };
    const bb = (m: Metric) => {
      const n = best('node', m);
      const p = best('torch', m);
      return ratioOK && n && p ? r3(m === 'step' ? p / n : n / p) : null;
    };
    const head = String(threadsHere[0]);
    // The browser's WASM step against Node at the WASM EP's thread count, and against Node's best.
    const wasmAt = statsOf(`node@${wasmThreads}`) ? String(wasmThreads) : head;
    const nodeWasm = statsOf(`node@${wasmAt}`);
    const wasmS = statsOf('wasm');
    const bestNodeStep = best('node', 'step');
    const bestVsBest = {
      update_vs_pytorch: bb('update'),
      sampling_vs_pytorch: bb('sampling'),
      step_vs_pytorch: bb('step'),
      browser_wasm_step_vs_node: r3(wasmS?.step && bestNodeStep ? wasmS.step.median / bestNodeStep : null),
    };
    const ratios = {
      ...byThreads[head],
      browser_wasm_step_vs_node: r3(wasmS?.step && nodeWasm?.step ? wasmS.step.median / nodeWasm.step.median : null),
      browser_wasm_update_vs_node: r3(
        wasmS?.update && nodeWasm?.update ? nodeWasm.update.median / wasmS.update.median : null,
      ),
      browser_wasm_sampling_vs_node: r3(
        wasmS?.sampling && nodeWasm?.sampling ? nodeWasm.sampling.median / wasmS.sampling.median : null,
      ),
    };
    results[presetId] = {
      parameters: params,
      weights: setup.source,
      model: setup.model,
      layout: c.primary.layout,
      rows,
      update_tokens: c.batch.tokens_counted,
      units: {
        sampling: 'tokens/s (rows x decode positions per second)',
        update: 'completion tokens/s',
        step: 'seconds per GRPO step',
      },
      engines: Object.fromEntries(
        run.engines.map((e) => [
          e.id,
          { label: e.label, rows: e.rows, threads: e.threads, ...statsOf(e.id), runs: samples.get(e.id) },
        ]),
      ),
      ratios,
      ratios_by_threads: byThreads,
      ratios_best_vs_best: bestVsBest,
      ratios_withheld_because: withheld,
      check,
      browser_checks: run.browserChecks,
      first_run_ms: run.firstRun,
    };
    for (const e of run.engines) {
      const s = statsOf(e.id)!;
      tableRows.push(
        `| ${presetId} (${(params / 1e6).toFixed(2)}M) | ${e.label} | ${fmtStat(s.sampling)} | ${fmtStat(s.update)} ` +
          `| ${fmtStat(s.step)} |`,
      );
    }
    const fr = (x: number | null | undefined, ok?: (x: number) => boolean) =>
      x === null || x === undefined ? '—' : `${x.toFixed(2)}×${ok ? (ok(x) ? ' ✓' : ' ✗') : ''}`;
    for (const t of threadsHere) {
      const b = byThreads[String(t)]!;
      const isHead = String(t) === head;
      ratioRows.push(
        `| ${presetId} | ${t} | ${fr(b.update_vs_pytorch, meetsPyTorch)} | ` +
          `${fr(b.sampling_vs_pytorch, meetsPyTorch)} ` +
          `| ${fr(b.step_vs_pytorch)} | ` +
          `${String(t) === wasmAt && wasmS ? fr(ratios.browser_wasm_step_vs_node, meetsWasm) : ''} ` +
          '| ' +
          (isHead && check
            ? `${check.max_abs_logp_diff.toExponential(1)}, ${check.abs_loss_diff.toExponential(1)} ` +
              (check.ok ? 'OK' : 'FAILED')
            : '') +
          ' ' +
          '|',
      );
    }
    if (threadsHere.length > 1)
      ratioRows.push(
        `| ${presetId} | best vs best | ${fr(bestVsBest.update_vs_pytorch, meetsPyTorch)} | ` +
          `${fr(bestVsBest.sampling_vs_pytorch, meetsPyTorch)} ` +
          `| ${fr(bestVsBest.step_vs_pytorch)} | ${wasmS ? fr(bestVsBest.browser_wasm_step_vs_node, meetsWasm) : ''} ` +
          '| |',
      );
    if (withheld) ratioRows.push(`| ${presetId} | no PyTorch ratios: ${withheld} | | | | | |`);

    const below = (x: number | null | undefined) => x !== null && x !== undefined && !meetsPyTorch(x);
    const missed =
      threadsHere.some(
        (t) => below(byThreads[String(t)]?.update_vs_pytorch) || below(byThreads[String(t)]?.sampling_vs_pytorch),
      ) ||
      below(bestVsBest.update_vs_pytorch) ||
      below(bestVsBest.sampling_vs_pytorch);
    if (!noProfile && (wantProfile || (missed && !quick))) {
      log(`profiling onnxruntime-node on ${presetId} (${wantProfile ? '--profile' : 'a target was missed'})`);
      const prof: ProfileSummary[] = [];
      for (const t of threadsHere) prof.push(...(await profileNode(setup, config, t, c.batch, log)));
      allProfiles.push(...prof);
      results[presetId]!.profile = prof;
    }
  }
  machine.load_average_end = loadavg();
  machine.load_average_1min_median_during_run = median(loads);
  return { results, allProfiles, tableRows, ratioRows };
}

/** Writes the results JSON (--out) and returns the markdown report. */
export function writeResults(b: Bench, { results, allProfiles, tableRows, ratioRows }: Summary): string {
  const { argv, elapsed, machine, browserInfo, torchInfo, skipped, browser } = b;
  const { presets, quick, reps, threadList, outFile, engines } = b.opts;
  const headline = (results['tiny'] ?? results[presets[0] ?? ''] ?? {}) as Record<string, unknown>;
  const wall = elapsed();
  const json = {
    date: new Date().toISOString(),
    command: `rlvr bench ${argv.join(' ')}`.trim(),
    quick,
    wall_seconds: Math.round(wall),
    skipped,
    machine,
    versions: {
      node: process.version,
      'onnxruntime-node': version('onnxruntime-node'),
      'onnxruntime-web': version('onnxruntime-web'),
      chromium: browserInfo.chromium ?? null,
      'playwright-core': version('playwright-core'),
      ...torchInfo,
    },
    browser: browserInfo,
    setup: {
      task: 'arithmetic (difficulty of the shipped checkpoint: 3 digits, + and -)',
      rows: '8 prompts x 8 completions = 64 (WebGPU: --webgpu-rows)',
      max_completion_length: 48,
      reps,
      threads: threadList,
      sampling:
        'ours: Policy.sample (temperature 1: one prefill run over the distinct left-padded prompts fills ' +
        'the KV caches of every row, then one decode run per token). PyTorch: one prefill pass over all ' +
        '64 left-padded prompt rows, then one token per step with a static KV cache, torch.multinomial. ' +
        'Throughput = rows x decode positions per second: every row is computed at every position. Ours ' +
        'stops once every row has emitted EOS; PyTorch then generates the same number of positions with ' +
        'EOS ignored.',
      update:
        'one GRPO update (loss_type grpo, token-level ratio, clip 0.2, AdamW lr 1e-4, betas 0.9/0.999, ' +
        'eps 1e-8, weight decay 0, global grad-norm clip 1.0) on a fixed batch: our sampled completions, ' +
        'synthetic seeded rewards, old log-probs shifted by a seeded ±0.3. Ours: Policy.train with ' +
        'buildRlGraph (one ONNX graph: forward with each of the 8 distinct prompts passed once and logits ' +
        'only where a completion token is predicted, objective, backward, AdamW); PyTorch: nn.Module ' +
        'forward over the whole 64-row grid, as a plain GRPO implementation does, log_softmax/gather, ' +
        'clipped objective, backward, clip_grad_norm_, torch.optim.AdamW.',
      step:
        'ours: Trainer.trainStep (sample + the TypeScript verifier + reward shaping + advantages + update + ' +
        'metrics and rollout records). PyTorch: the same prompts, sample (EOS stops a row) + a trivial ' +
        'Python verifier (exact match of the <answer> tag) + group advantages + update.',
      alternation:
        'one thread count at a time (2 threads first): every CPU engine of that count (node, torch, WASM) ' +
        'once per metric per round, order reversed every other round; WebGPU after the CPU engines',
    },
    // Headline: the default CPU preset (tiny), node and PyTorch on the first --threads value (2 = the cores).
    ratios: headline.ratios,
    ratios_best_vs_best: headline.ratios_best_vs_best,
    targets: {
      update_vs_pytorch: `>= ${TARGETS.vsPyTorch} at each thread count and best vs best`,
      sampling_vs_pytorch: `>= ${TARGETS.vsPyTorch} at each thread count and best vs best`,
      browser_wasm_step_vs_node:
        `<= ${TARGETS.wasmVsNode} against Node at the WASM EP's thread count (ratios_best_vs_best: against ` +
        `Node's best step)`,
    },
    presets: { ...results, ...Object.fromEntries(b.llamaRuns.map((r) => [r.id, llamaSummary(r)])) },
    profile: allProfiles,
    gemm_gflops: b.gemm,
  };
  writeFileSync(outFile, JSON.stringify(json, null, 2) + '\n');

  const md: string[] = [];
  const la = machine.load_average_start;
  md.push(
    `**Speed against PyTorch** (\`rlvr bench${argv.length ? ' ' + argv.join(' ') : ''}\`, ` +
      `${json.date.slice(0, 16).replace('T', ' ')} ` +
      `UTC, ${Math.round(wall)} s; every sample in \`${relative(process.cwd(), outFile) || outFile}\`; ` +
      `\`--quick\` runs a 3-minute subset):`,
  );
  md.push('');
  md.push(
    `${machine.cpu}, ${machine.cores} cores, shared with other jobs: load average ${la[0]!.toFixed(1)} at ` +
      `the start, median ${machine.load_average_1min_median_during_run.toFixed(1)} during the run. Node ` +
      `${process.version}, onnxruntime-node ${version('onnxruntime-node')}, onnxruntime-web ` +
      `${version('onnxruntime-web')}${browserInfo.chromium ? `, Chromium ${String(browserInfo.chromium)}` : ''}` +
      (torchInfo.torch
        ? `; torch ${String(torchInfo.torch)} (${String(torchInfo.debian_package)}), ` +
          `OpenBLAS ${String(torchInfo.openblas)}: 512×512 matmul ` +
          `${(torchInfo.matmul_512_gflops as number).toFixed(0)} GFLOP/s, ` +
          `torch.get_num_threads() = ${String(torchInfo.threads)}`
        : '') +
      '.',
  );
  if (b.gemm.length) {
    const per = b.gemm.map(
      (x) =>
        `${x.threads} thread${x.threads === 1 ? '' : 's'}: ` +
        x.mlas.toFixed(0) +
        (x.openblas === null ? '' : ` vs ${x.openblas.toFixed(0)} (ours ${(x.mlas / x.openblas).toFixed(2)}×)`) +
        `${x.wasm === null ? '' : `; browser WASM ${x.wasm.toFixed(0)} (Node ${(x.mlas / x.wasm).toFixed(2)}× WASM)`}`,
    );
    md.push(
      `The matmul kernels alone (\`bench/gemm.ts\`: one [4096×256]·[256×1024] matmul, the small model's ` +
        `MLP on this grid), GFLOP/s of onnxruntime-node (MLAS) vs PyTorch (OpenBLAS): ${per.join('; ')}. ` +
        'Most of an update is such matmuls, so these ratios bound what graph-level changes can gain at each ' +
        'thread count.',
    );
  }
  if (tableRows.length) {
    md.push(
      `Median (min–max) over up to ${reps} alternating rounds (the engines of one thread count take their ` +
        'rounds together, 2 threads first); 64 rows = 8 prompts × 8 completions (arithmetic, 48-token cap). ' +
        'Sampling: rows × decode positions per second; update: completion tokens per second; step: seconds.',
    );
    md.push('');
    md.push('| preset | engine | sampling tok/s | update tok/s | step s |');
    md.push('|---|---|---|---|---|');
    md.push(...tableRows);
    md.push('');
    md.push(
      `| preset | CPU threads | update vs PyTorch (goal ≥ ${TARGETS.vsPyTorch}) | sampling vs PyTorch ` +
        `(goal ≥ ${TARGETS.vsPyTorch}) | step time PyTorch / ours | WASM step / node step (goal ≤ ` +
        `${TARGETS.wasmVsNode}) | check vs PyTorch: max abs Δ logp, Δ loss (≤1e-4) |`,
    );
    md.push('|---|---|---|---|---|---|---|');
    md.push(...ratioRows);
  }
  for (const run of b.llamaRuns) md.push('', ...llamaTable(run));
  if (engines.has('webgpu') && tableRows.length)
    md.push(
      '\nWebGPU here runs on SwiftShader, a software adapter (this machine has no GPU): its figures show ' +
        'the WebGPU code path working, not GPU speed; they use fewer rows (--webgpu-rows) and are not ' +
        'compared.',
    );
  if (allProfiles.length) {
    md.push('\n#### Where onnxruntime-node spends its time (ORT profiling, per call)');
    for (const p of allProfiles) {
      md.push(
        `- ${p.what}: ${p.wall_ms_per_call.toFixed(0)} ms = ORT runs ${p.ort_run_ms_per_call.toFixed(0)} ms ` +
          `(${p.ort_runs_per_call} run${p.ort_runs_per_call === 1 ? '' : 's'}: ` +
          `kernels ${p.kernel_ms_per_call.toFixed(0)} ms + ` +
          `ORT per-run overhead ${p.ort_overhead_ms_per_call.toFixed(0)} ms) ` +
          `+ outside ORT ${p.outside_ort_ms_per_call.toFixed(0)} ms (JS: feeds, reading outputs, token draws). ` +
          `Top ops: ${p.top_ops
            .slice(0, 6)
            .map((o) => `${o.op} ${o.ms_per_call.toFixed(1)} ms (${(o.share * 100).toFixed(0)}%)`)
            .join(', ')}`,
      );
    }
  }
  if (skipped.length) md.push(`\nSkipped: ${skipped.join('; ')}.`);
  md.push(`\nWall time: ${wall.toFixed(0)} s. Results: ${relative(process.cwd(), outFile) || outFile}`);
  const errs = browser?.consoleErrors.filter((e) => !/favicon|404/.test(e)) ?? [];
  if (errs.length) md.push(`\nBrowser console errors/warnings (${errs.length}): ${errs.slice(0, 3).join(' | ')}`);
  return md.join('\n') + '\n';
}
