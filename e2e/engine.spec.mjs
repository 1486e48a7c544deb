// Engine e2e: the tiny training graph on three runtimes, a WebGPU soak, CPU-placement and
// threading checks. Runs in headless Debian Chromium against the built app (playwright.config.ts's
// webServer starts it); alone: `npx vite build && npx playwright test e2e/engine.spec.mjs`.
//
// On a machine without a GPU, WebGPU is SwiftShader (software), forced with ?backend=webgpu: about
// 100x slower than WASM, but the real WebGPU EP code path.
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { importTs, note, openPage, RESULTS_DIR, screenshot, timed } from './lib.mjs';

/**
 * Losses of the same graph from the same initial weights must agree step by step within this absolute
 * tolerance (losses are ~2.4-3.2). Measured here: WASM vs onnxruntime-node differ by ~1e-6, SwiftShader
 * WebGPU vs both by up to ~1.5e-5 after 20 steps (float32 summation order); 1e-3 leaves room for real
 * GPUs' different FMA/reduction orders while still catching any wrong gradient or optimizer step.
 */
const LOSS_TOLERANCE = 1e-3;
const STEPS = 20;
/**
 * The soak's length: 40 steps in `npm test` (checkpoints at steps 20 and 40, 20 steps apart: a leak of one
 * tensor or buffer a step shows as 20), 300 in the long suite (`npm run test:reliability`,
 * RLVR_RELIABILITY_LONG=1). The GPU state settles after the first step: measured on SwiftShader, 38 live
 * tensors at step 1 and 76 at steps 20, 40, 50 and 100, 218 GPUBuffers (545,744 bytes) at every one, so step
 * 20 is already steady. At 0.3-0.5 s a step, the 60 steps more took 16-33 s of every run.
 */
const SOAK_STEPS = process.env.RLVR_RELIABILITY_LONG === '1' ? 300 : 40;
const SOAK_EVERY = process.env.RLVR_RELIABILITY_LONG === '1' ? 50 : 20;

/** @type {import('playwright-core').Browser} */
let browser;
/** Loss sequences by runtime, filled by the first tests, compared by the agreement test. */
const losses = /** @type {Record<string, number[]>} */ ({});
const timings = /** @type {Record<string, unknown>} */ ({});

test.beforeAll(({ browser: b }) => {
  browser = b;
});
test.afterAll(async () => {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'engine-e2e.json'), JSON.stringify({ losses, timings }, null, 2));
});

/**
 * Opens the engine harness with `query`, waits for its worker to finish, screenshots the page and
 * returns the harness result plus the page's console. Fails with the harness's own error if any.
 */
async function runHarness(testInfo, query, { name, timeout }) {
  const p = await openPage(browser, `/e2e/harness/engine.html?${query}`);
  try {
    await p.page.waitForFunction(() => window.__engine?.done === true, undefined, { timeout, polling: 500 });
    const state = await p.page.evaluate(() => window.__engine);
    await screenshot(p.page, `engine-${name}`);
    assert.equal(state.error, null, `harness failed: ${state.error}`);
    assert.deepEqual(p.externalRequests, [], 'the page must not fetch anything from outside the app (offline)');
    assert.deepEqual(p.pageErrors, [], 'uncaught page errors');
    return { ...state.result, logs: state.logs };
  } catch (e) {
    await screenshot(p.page, `engine-${name}-FAILED`).catch(() => undefined);
    const tail = p.consoleMessages
      .slice(-15)
      .map((m) => `  [${m.type}] ${m.text.slice(0, 300)}`)
      .join('\n');
    note(testInfo, `last console messages:\n${tail}`);
    throw e;
  } finally {
    await p.close();
  }
}

function assertLearns(name, ls) {
  assert.equal(ls.length, STEPS, `${name}: expected ${STEPS} losses`);
  for (const [i, l] of ls.entries()) assert.ok(Number.isFinite(l), `${name}: loss at step ${i + 1} is ${l}`);
  assert.ok(
    ls.at(-1) < ls[0] * 0.85,
    `${name}: loss must fall by >15% in ${STEPS} steps, went ${ls[0]} -> ${ls.at(-1)}`,
  );
}

const round = (x, d = 2) => Number(x.toFixed(d));

test('WASM EP: 20 training steps, multi-threaded (cross-origin isolated)', async ({}, testInfo) => {
  test.setTimeout(180_000);
  const { value: r, seconds } = await timed(() =>
    runHarness(testInfo, `backend=wasm&steps=${STEPS}`, { name: 'wasm', timeout: 170_000 }),
  );
  note(
    testInfo,
    `${r.backend.description}: ${seconds.toFixed(1)} s ` +
      `wall (first step incl. WASM load + session ${round(r.firstStepMs / 1000)} ` +
      `s, then ${round(median(r.stepMs.slice(1)))} ` +
      'ms/step)',
  );
  timings.wasm = {
    wallS: round(seconds),
    firstStepS: round(r.firstStepMs / 1000),
    msPerStep: round(median(r.stepMs.slice(1))),
  };
  assert.equal(r.backend.kind, 'wasm');
  assert.equal(r.backend.crossOriginIsolated, true, 'the server must send COOP same-origin + COEP require-corp');
  assert.ok(
    r.backend.threads > 1,
    `WASM must be multi-threaded, got ${r.backend.threads} thread(s): ${r.backend.description}`,
  );
  assert.match(r.backend.description, /^WASM, \d+ threads$/);
  // ORT starts (threads - 1) pthread workers: proof the thread pool exists, not just the setting.
  assert.ok(
    r.workersSpawned >= r.backend.threads - 1,
    `expected ${r.backend.threads - 1} WASM pthread worker(s), saw ${r.workersSpawned}`,
  );
  assert.equal(r.liveTensorsAfter, 0);
  assertLearns('wasm', r.losses);
  losses.wasm = r.losses;
});

// One WebGPU run serves two checks: its first STEPS losses are compared with WASM's and Node's (the same graph
// and initial weights, so the first 20 of 40 are the 20 a shorter run would give), and its checkpoints are the soak.
test(
  `WebGPU EP (SwiftShader adapter, forced): ${SOAK_STEPS} training steps; ` +
    'live GPU tensors and buffers do not grow',
  async ({}, testInfo) => {
    test.setTimeout(600_000);
    const { value: r, seconds } = await timed(() =>
      runHarness(testInfo, `backend=webgpu&mode=soak&steps=${SOAK_STEPS}&every=${SOAK_EVERY}`, {
        name: 'webgpu',
        timeout: 590_000,
      }),
    );
    note(
      testInfo,
      `${r.backend.description}: ${seconds.toFixed(1)} s ` +
        'wall (first step incl. session + shader ' +
        `compilation ${round(r.firstStepMs / 1000)} s, then ` +
        `${round(median(r.stepMs.slice(1)))} ms/step)`,
    );
    for (const c of r.checkpoints)
      note(
        testInfo,
        `  step ${c.step}: ${c.liveTensors} live GPU ` +
          `tensors, ${c.liveGpuBuffers} GPUBuffers (${c.liveGpuBytes} ` +
          `bytes), loss ${c.loss.toFixed(4)}`,
      );
    timings.webgpu = {
      wallS: round(seconds),
      firstStepS: round(r.firstStepMs / 1000),
      msPerStep: round(median(r.stepMs.slice(1))),
      checkpoints: r.checkpoints,
    };
    assert.equal(r.backend.kind, 'webgpu');
    assert.ok(r.adapter, 'select-backend found no adapter');
    assert.ok(r.adapterInUse, 'could not read the adapter of the GPUDevice ORT uses');
    assert.equal(
      r.adapterInUse.architecture,
      r.adapter.architecture,
      'ORT must run on the adapter select-backend chose',
    );
    assert.match(r.backend.reason, /forced/);
    if (r.adapter.software) assert.match(r.backend.reason, /software/);
    assert.equal(r.losses.length, SOAK_STEPS);
    for (const [i, l] of r.losses.entries()) assert.ok(Number.isFinite(l), `loss at step ${i + 1} is ${l}`);
    assertLearns('webgpu', r.losses.slice(0, STEPS));
    losses.webgpu = r.losses.slice(0, STEPS);
    // Checkpoint 0 is step 1 (state still on the CPU); from step SOAK_EVERY on, the counts must be identical.
    const steady = r.checkpoints.filter((c) => c.step >= SOAK_EVERY);
    assert.equal(steady.length, SOAK_STEPS / SOAK_EVERY);
    const first = steady[0];
    for (const c of steady) {
      assert.equal(
        c.liveTensors,
        first.liveTensors,
        `live GPU tensors grew: ${first.liveTensors} at step ${first.step}, ${c.liveTensors} at step ${c.step}`,
      );
      assert.ok(
        c.liveGpuBuffers <= first.liveGpuBuffers,
        `GPUBuffers grew: ${first.liveGpuBuffers} at step ${first.step}, ${c.liveGpuBuffers} at step ${c.step}`,
      );
      assert.ok(
        c.liveGpuBytes <= first.liveGpuBytes,
        `GPU memory grew: ${first.liveGpuBytes} B at step ${first.step}, ${c.liveGpuBytes} B at step ${c.step}`,
      );
    }
    assert.equal(r.liveTensorsAfter, 0, 'every GPU tensor the run created must be disposed');
    assert.ok(r.losses.at(-1) < r.losses[0], 'the soak run must still be learning');
  },
);

test('onnxruntime-node: 20 training steps', async ({}, testInfo) => {
  test.setTimeout(120_000);
  const { createNodeBackend } = await importTs('src/engine/backend-node.ts');
  const { runTinyTraining } = await importTs('src/model/tiny-training.ts');
  const { value: r, seconds } = await timed(() => runTinyTraining(createNodeBackend(), STEPS));
  note(testInfo, `onnxruntime-node CPU: ${seconds.toFixed(1)} s`);
  timings.node = { wallS: round(seconds) };
  assertLearns('node', r.losses);
  losses.node = r.losses;
});

test(
  'WASM, WebGPU and onnxruntime-node losses agree ' + `step by step (|diff| <= ${LOSS_TOLERANCE})`,
  async ({}, testInfo) => {
    for (const k of ['wasm', 'webgpu', 'node']) assert.ok(losses[k], `no ${k} losses: its test failed`);
    const pairs = [
      ['wasm', 'node'],
      ['webgpu', 'node'],
      ['webgpu', 'wasm'],
    ];
    const report = {};
    for (const [a, b] of pairs) {
      const diffs = losses[a].map((x, i) => Math.abs(x - losses[b][i]));
      const max = Math.max(...diffs);
      report[`${a}-${b}`] = { maxAbsDiff: max, perStep: diffs };
      note(testInfo, `${a} vs ${b}: max |diff| ${max.toExponential(2)} (step ${diffs.indexOf(max) + 1})`);
      for (const [i, d] of diffs.entries()) {
        assert.ok(
          d <= LOSS_TOLERANCE,
          `${a} vs ${b} at step ${i + 1}: ${losses[a][i]} vs ${losses[b][i]} (|diff| ${d} > ${LOSS_TOLERANCE})`,
        );
      }
    }
    timings.agreement = report;
  },
);

test('WebGPU: no node of our graphs is placed on the CPU EP (ORT verbose placement report)', async ({}, testInfo) => {
  test.setTimeout(300_000);
  const { value: r, seconds } = await timed(() =>
    runHarness(testInfo, 'backend=webgpu&mode=placement&cpuOp=Det', { name: 'webgpu-placement', timeout: 290_000 }),
  );
  note(testInfo, `placement: ${seconds.toFixed(1)} s wall`);
  timings.placement = { wallS: round(seconds) };

  // The control proves the method: an op the WebGPU EP lacks must show up on CPUExecutionProvider.
  const c = r.control;
  assert.ok(c, 'no control graph result');
  assert.equal(c.error, undefined, `control graph failed: ${c.error}`);
  assert.ok(c.placement.reported, `ORT printed no "Node placements" report at VERBOSE:\n${c.excerpt.join('\n')}`);
  assert.ok(
    c.placement.eps.CPUExecutionProvider?.nodes.some((n) => n.startsWith('Det ')),
    `the control's Det node was not reported on the CPU EP:\n${c.excerpt.join('\n')}`,
  );
  assert.ok(c.placement.notAssignedWarning, 'ORT did not warn about the CPU-placed node');
  assert.equal(c.value, 12, 'control graph: 2 * det([[2,0,0],[0,3,0],[0,0,1]])');

  const bad = [];
  for (const g of r.placements) {
    const eps = Object.entries(g.placement.eps)
      .map(([ep, v]) => `${ep}: ${v.count}`)
      .join(', ');
    note(
      testInfo,
      `${g.graph} (${g.nodeCount} nodes built): ${eps || 'no report'}${g.error ? ` ERROR ${g.error}` : ''}`,
    );
    if (g.error) bad.push(`${g.graph}: session failed: ${g.error}`);
    else if (!g.placement.reported) bad.push(`${g.graph}: ORT printed no placement report`);
    else if (!g.placement.eps.WebGpuExecutionProvider) bad.push(`${g.graph}: nothing on WebGpuExecutionProvider`);
    const cpu = g.placement.eps.CPUExecutionProvider;
    if (cpu)
      bad.push(
        `${g.graph}: ${cpu.count} node(s) on ` +
          `CPUExecutionProvider: ${cpu.nodes.join(', ')}` +
          (g.placement.kernelNotFound.length
            ? ` (no WebGPU kernel for: ${g.placement.kernelNotFound.join(', ')})`
            : ''),
      );
    for (const ep of Object.keys(g.placement.eps))
      if (ep !== 'WebGpuExecutionProvider' && ep !== 'CPUExecutionProvider') bad.push(`${g.graph}: nodes on ${ep}`);
  }
  assert.deepEqual(bad, [], `graphs with nodes off the WebGPU EP:\n  ${bad.join('\n  ')}`);
});

for (const backend of ['wasm', 'webgpu']) {
  test(
    `${backend === 'wasm' ? 'WASM' : 'WebGPU (SwiftShader, forced)'}` +
      ': KV-cache sampler log-probs equal the scoring ' +
      'graph within 1e-4',
    async ({}, testInfo) => {
      test.setTimeout(300_000);
      const r = await runHarness(testInfo, `backend=${backend}&mode=parity`, {
        name: `parity-${backend}`,
        timeout: 290_000,
      });
      assert.equal(r.backend.kind, backend);
      const p = r.parity;
      note(
        testInfo,
        `${backend}: ${p.rows} rows, ${p.tokens} sampled ` +
          `tokens; max |Δ logp| ${p.maxLogpDiff.toExponential(2)}` +
          `, max |Δ entropy| ${p.maxEntropyDiff.toExponential(2)}`,
      );
      assert.ok(p.tokens > p.rows * 5, `the sampler must produce real completions (${p.tokens} tokens)`);
      assert.ok(p.maxLogpDiff < 1e-4, `sampler vs scorer log-probs differ by ${p.maxLogpDiff}`);
      assert.ok(p.maxEntropyDiff < 1e-4, `sampler vs scorer entropies differ by ${p.maxEntropyDiff}`);
      assert.ok(p.reproducible, 'the same seed must give the same completions');
    },
  );
}

test('automatic choice: no hardware adapter -> WASM, with the reason recorded', async ({}, testInfo) => {
  test.setTimeout(120_000);
  const r = await runHarness(testInfo, 'steps=1', { name: 'auto-choice', timeout: 110_000 });
  note(testInfo, `chose ${r.backend.description}: ${r.backend.reason}`);
  if (r.adapter && !r.adapter.software) {
    assert.equal(r.backend.kind, 'webgpu', 'a hardware adapter must be used');
  } else {
    assert.equal(r.backend.kind, 'wasm', 'a software adapter must not be picked by itself');
    assert.match(r.backend.reason, r.adapter ? /software/ : /WebGPU/);
  }
  assert.equal(r.losses.length, 1);
});

function median(xs) {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
