import { useEffect, useRef, useState } from 'react';
import { draftValidation, initRequest } from '../state/setup-state.ts';
import { download } from '../state/exporters.ts';
import { getState, useApp } from '../state/store.ts';
import {
  adapterLine,
  buildReport,
  WARMUP_STEPS,
  type BackendRun,
  type BenchKind,
  type DeviceBenchReport,
} from '../derive/bench-report.ts';
import { measureBackend, planWebGpu, type BenchProgress, type WebGpuPlan } from '../state/device-bench.ts';
import type { InitResult } from '../../../workers/protocol.ts';

const LABEL: Record<BenchKind, string> = { wasm: 'WASM', webgpu: 'WebGPU' };

function progressText(p: BenchProgress): string {
  const name = LABEL[p.kind];
  if (p.phase === 'loading') return `${name}: loading the model`;
  if (p.phase === 'warmup') return `${name}: warm-up step ${p.done + 1} of ${p.total}`;
  return p.done < p.total ? `${name}: step ${p.done + 1} of ${p.total}` : `${name}: done`;
}

function fmt(x: number, digits = 3): string {
  return Number.isFinite(x) ? x.toPrecision(digits) : '—';
}

/** Benchmark this device: a GRPO step on WASM and on WebGPU, timed in the app's own trainer worker. */
export default function BenchmarkPanel({ steps, note }: { steps: number; note: string | null }) {
  const runState = useApp((s) => s.run.state);
  const forced = useApp((s) => s.setup.backend);
  const [plan, setPlan] = useState<WebGpuPlan | null>(null);
  const [progress, setProgress] = useState<BenchProgress | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<DeviceBenchReport | null>(null);
  const alive = useRef(true);

  useEffect(() => {
    alive.current = true;
    void planWebGpu(forced).then((p) => alive.current && setPlan(p));
    return () => {
      alive.current = false;
    };
  }, [forced]);

  const training = runState === 'running' || runState === 'loading' || runState === 'pausing';

  async function run(kinds: BenchKind[]) {
    const v = draftValidation();
    if (!v.config) {
      setError('The setup has invalid values: fix them in the setup panel first.');
      return;
    }
    setBusy(true);
    setError(null);
    setReport(null);
    const request = initRequest(getState());
    const runs: Partial<Record<BenchKind, BackendRun>> = {};
    const skipped: Partial<Record<BenchKind, string>> = {};
    let init: InitResult | null = null;
    let adapter = plan?.adapter ?? null;
    try {
      for (const kind of ['wasm', 'webgpu'] as const) {
        if (!kinds.includes(kind)) {
          skipped[kind] = 'not selected';
          continue;
        }
        if (kind === 'webgpu' && !plan?.run) {
          skipped[kind] = plan?.note ?? 'WebGPU was not probed';
          continue;
        }
        let r;
        try {
          r = await measureBackend(kind, request, steps, (p) => alive.current && setProgress(p));
        } catch (e) {
          // A WebGPU failure (driver, lost device, an unsupported op) still leaves the WASM numbers worth keeping.
          if (kind !== 'webgpu' || !runs.wasm) throw e;
          skipped[kind] = `failed: ${e instanceof Error ? e.message : String(e)}`;
          continue;
        }
        runs[kind] = r.run;
        init = r.init;
        if (r.adapter) adapter = r.adapter;
      }
      if (!init) throw new Error(skipped.webgpu ?? 'nothing was measured');
      const c = init.config;
      const rep = buildReport({
        date: new Date(),
        browser: {
          user_agent: navigator.userAgent,
          hardware_concurrency: navigator.hardwareConcurrency ?? null,
          cross_origin_isolated: crossOriginIsolated,
        },
        adapter,
        webgpuNote: runs.webgpu ? null : (skipped.webgpu ?? null),
        model: { name: init.model.name, parameters: init.model.parameters, config: init.model.model },
        task: c.task,
        batch: {
          prompts_per_step: c.prompts_per_step,
          num_generations: c.num_generations,
          max_completion_length: c.max_completion_length,
        },
        warmupSteps: WARMUP_STEPS,
        measuredSteps: steps,
        runs,
        skipped,
      });
      if (alive.current) setReport(rep);
    } catch (e) {
      if (alive.current) setError(e instanceof Error ? e.message : String(e));
    } finally {
      if (alive.current) {
        setBusy(false);
        setProgress(null);
      }
    }
  }

  const summary = (k: BenchKind) => {
    const s = report?.[k];
    return s && !('skipped' in s) ? s : null;
  };
  const webgpuButton = plan?.run ? undefined : (plan?.note ?? 'probing WebGPU…');

  return (
    <div className="bench-panel" data-testid="bench-panel" aria-busy={busy}>
      <p>
        Times a GRPO step (sampling, verifying, the update) of the current setup on ONNX Runtime's WASM backend and on
        WebGPU, in this browser: {WARMUP_STEPS} warm-up step, then {steps} measured steps on each. To measure another
        model or batch (a fresh <code>small</code> model is the one meant for WebGPU), change the setup first. Nothing
        leaves this page; download the result and share it if you like.
      </p>
      {note && <p className="note">{note}</p>}
      <p data-testid="bench-adapter">
        <strong>WebGPU adapter: </strong>
        {plan === null ? 'probing…' : plan.adapter ? adapterLine(plan.adapter) : 'none'}
        {plan?.note && <span className="muted"> ({plan.note})</span>}
      </p>
      <div className="row">
        <button
          type="button"
          className="primary"
          data-testid="bench-run"
          disabled={busy || training}
          onClick={() => void run(['wasm', 'webgpu'])}
        >
          {busy ? 'Benchmarking…' : 'Benchmark this device'}
        </button>
        <button
          type="button"
          data-testid="bench-run-wasm"
          disabled={busy || training}
          onClick={() => void run(['wasm'])}
        >
          WASM only
        </button>
        <button
          type="button"
          data-testid="bench-run-webgpu"
          disabled={busy || training || !plan?.run}
          title={webgpuButton}
          onClick={() => void run(['webgpu'])}
        >
          WebGPU only
        </button>
        <button
          type="button"
          data-testid="bench-download"
          disabled={!report || busy}
          onClick={() =>
            report &&
            download(
              `rlvr-benchmark-${report.date.slice(0, 19).replace(/:/g, '-')}.json`,
              JSON.stringify(report, null, 2) + '\n',
              'application/json',
            )
          }
        >
          Download JSON
        </button>
      </div>
      {training && !busy && (
        <p className="muted small">Pause training first: it shares this machine and would skew the numbers.</p>
      )}
      {progress && (
        <p className="muted" role="status" data-testid="bench-progress">
          {progressText(progress)}
        </p>
      )}
      {error && (
        <p className="inline-error" role="alert" data-testid="bench-error">
          {error}
        </p>
      )}
      {report && (
        <div data-testid="bench-result">
          <p className="muted small">
            {report.model.name} ({report.model.parameters.toLocaleString('en')} parameters), {report.task},{' '}
            {report.batch.prompts_per_step} prompts × {report.batch.num_generations} completions of up to{' '}
            {report.batch.max_completion_length} tokens per step
          </p>
          <table>
            <thead>
              <tr>
                <th>backend</th>
                <th>steps/s</th>
                <th>s/step (median)</th>
                <th>sampling / update (s)</th>
              </tr>
            </thead>
            <tbody>
              {(['wasm', 'webgpu'] as const).map((k) => {
                const s = summary(k);
                const r = report[k];
                return (
                  <tr key={k} data-testid={`bench-row-${k}`} data-steps-per-second={s?.steps_per_second ?? ''}>
                    <td>{s ? s.backend : LABEL[k]}</td>
                    {s ? (
                      <>
                        <td>{fmt(s.steps_per_second)}</td>
                        <td>{fmt(s.median_step_seconds)}</td>
                        <td>
                          {fmt(s.median_sampling_seconds)} / {fmt(s.median_update_seconds)}
                        </td>
                      </>
                    ) : (
                      <td colSpan={3} className="muted">
                        not measured: {'skipped' in r ? r.skipped : ''}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p data-testid="bench-ratio" data-ratio={report.webgpu_over_wasm ?? ''}>
            <strong>WebGPU/WASM: </strong>
            {report.webgpu_over_wasm === null
              ? 'needs both backends'
              : `${fmt(report.webgpu_over_wasm)}× ` +
                `(WebGPU ${report.webgpu_over_wasm >= 1 ? 'is faster' : 'is slower'} ` +
                'than WASM here)'}
          </p>
        </div>
      )}
    </div>
  );
}
