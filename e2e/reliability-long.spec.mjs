// The long reliability tests (docs/reliability.md), only with RLVR_RELIABILITY_LONG=1
// (`npm run test:reliability`): a worker killed mid-step resumes with identical metrics, a 300-step soak
// on WASM, a WebGPU (SwiftShader) soak, and a lost WebGPU device falling back to WASM.
//
// Alone: `RLVR_RELIABILITY_LONG=1 npx playwright test e2e/reliability-long.spec.mjs`.
import assert from 'node:assert/strict';
import { expect, test } from '@playwright/test';
import { NANO, note, screenshot } from './lib.mjs';
import {
  LONG,
  LONG_ONLY,
  open,
  reliabilityHooks,
  results,
  SOAK_STEPS,
  state,
  strip,
  text,
  trainerWorker,
  WEBGPU_SOAK_STEPS,
  withDiagnostics,
} from './reliability-lib.mjs';

reliabilityHooks(test, 'reliability-long-e2e.json');

// Long suite only: whether the kill lands after the last autosave depends on timing on a busy machine.
test(
  'a worker killed mid-step: a clear message, resume ' +
    'from the autosave, identical metrics to the ' +
    'uninterrupted run',
  async ({}, testInfo) => {
    test.skip(!LONG, LONG_ONLY);
    test.setTimeout(300_000);
    const p = await open(`/?${NANO}&steps=2000&learning_rate=0.003`);
    try {
      await withDiagnostics(testInfo, p, 'reliability-kill', async () => {
        const { page } = p;
        await page.evaluate(() => window.__rlvr.setAutosaveEvery(8));
        await page.click('[data-testid="start"]');
        await page.waitForFunction(() => (window.__rlvr.state().autosave?.step ?? 0) >= 8, undefined, {
          timeout: 200_000,
          polling: 100,
        });
        // Past model loading and graph compiles: a short watchdog (default 120 s) so the test is quick.
        await page.evaluate(() => window.__rlvr.setWatchdogMs(8000));
        const firstSave = (await state(page)).autosave.step;
        await page.waitForFunction((k) => window.__rlvr.state().run.metrics.length >= k + 3, firstSave, {
          timeout: 60_000,
          polling: 50,
        });
        // Kill it from inside, mid-step: no error event reaches the page, only silence.
        const killed = await trainerWorker(page).evaluate(() => {
          const busy = self.__rlvrTest !== undefined;
          setTimeout(() => self.close(), 0);
          return busy;
        });
        assert.ok(killed);
        const atKill = await state(page);
        assert.equal(atKill.run.state, 'running', 'killed while training');
        await page.waitForSelector('[data-testid="error-banner"][data-kind="crash"]', { timeout: 40_000 });
        const msg = await text(page, 'error-message');
        assert.match(msg, /stopped responding/);
        const original = (await state(page)).run.metrics;
        const K = (await state(page)).autosave.step;
        assert.match(msg, new RegExp(`last autosave is from step ${K}`));
        assert.equal(await text(page, 'restart-autosave'), `Restart from the last autosave (step ${K})`);
        const compare = Math.min(3, original.length - K);
        assert.ok(compare >= 1, `the original run got past the autosave (${original.length} steps, autosave at ${K})`);
        await screenshot(page, 'reliability-killed');
        await page.click('[data-testid="restart-autosave"]');
        await page.waitForFunction(
          (k) => window.__rlvr.state().run.step === k && window.__rlvr.state().run.state === 'paused',
          K,
          { timeout: 120_000, polling: 100 },
        );
        const restored = await state(page);
        assert.deepEqual(
          restored.run.metrics.map(strip),
          original.slice(0, K).map(strip),
          'the metrics history is restored',
        );
        assert.equal(restored.run.config.learning_rate, 0.003, 'and the config');
        assert.equal(await page.$('[data-testid="error-banner"]'), null);
        for (let i = 0; i < compare; i++) {
          await page.click('[data-testid="step-once"]');
          await page.waitForFunction(
            (n) => window.__rlvr.state().run.metrics.length === n && window.__rlvr.state().run.state === 'paused',
            K + i + 1,
            { timeout: 60_000 },
          );
        }
        const resumed = (await state(page)).run.metrics.slice(K, K + compare);
        assert.deepEqual(
          resumed.map(strip),
          original.slice(K, K + compare).map(strip),
          `steps ${K + 1}..${K + compare} after the resume equal the uninterrupted run's`,
        );
        results.kill = { autosaveEvery: 8, killedAtStep: atKill.run.step, resumedFrom: K, comparedSteps: compare };
        note(
          testInfo,
          `killed during step ${atKill.run.step + 1}; resumed ` +
            `from the autosave at step ${K}; the next ${compare} ` +
            `steps matched the uninterrupted run exactly (${Object.keys(strip(resumed[0])).length} ` +
            'metrics each)',
        );
      });
    } finally {
      await p.close();
    }
  },
);

test(
  `soak: ${SOAK_STEPS} steps on WASM; the worker's JS ` +
    'heap and the rollout history stay bounded, metrics ' +
    'every step',
  async ({}, testInfo) => {
    test.skip(!LONG, LONG_ONLY);
    test.setTimeout(900_000);
    const p = await open(`/?${NANO}&steps=${SOAK_STEPS}&rollout_history_steps=10`);
    try {
      await withDiagnostics(testInfo, p, 'reliability-soak', async () => {
        const { page } = p;
        await page.evaluate(() => window.__rlvr.setAutosaveEvery(50)); // autosave in the loop, as a person's run has
        // The worker's heap through CDP (Runtime.getHeapUsage after HeapProfiler.collectGarbage).
        const cdp = await p.context.newCDPSession(page);
        const targets = [];
        const pending = new Map();
        cdp.on('Target.attachedToTarget', (e) => targets.push(e));
        cdp.on('Target.receivedMessageFromTarget', (e) => {
          const m = JSON.parse(e.message);
          pending.get(m.id)?.(m);
        });
        let id = 0;
        const workerCdp = (method) =>
          new Promise((ok) => {
            const session = targets.find((x) => x.targetInfo.url.includes('trainer.worker'));
            const i = ++id;
            pending.set(i, ok);
            void cdp.send('Target.sendMessageToTarget', {
              sessionId: session.sessionId,
              message: JSON.stringify({ id: i, method }),
            });
          });
        // The page's own heap is measured with the Share tab open: the charts' memory grows with the
        // points they draw (measured at the end, with its own bound); the rest of the page must stay flat.
        await page.click('[data-testid="tab-share"]');
        await page.click('[data-testid="start"]');
        await page.waitForFunction(() => window.__rlvr.state().run.metrics.length >= 1, undefined, {
          timeout: 150_000,
        });
        await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
        // The trainer worker's target attaches asynchronously: wait for it before talking to it.
        await expect
          .poll(() => targets.some((x) => x.targetInfo.url.includes('trainer.worker')), {
            timeout: 30_000,
            message: 'the trainer worker attached',
          })
          .toBe(true);
        const rows = [];
        const t0 = Date.now();
        for (let target = 50; target <= SOAK_STEPS; target += 50) {
          await page.waitForFunction((n) => window.__rlvr.state().run.metrics.length >= n, target, {
            timeout: 600_000,
            polling: 250,
          });
          await workerCdp('HeapProfiler.collectGarbage');
          const heap = (await workerCdp('Runtime.getHeapUsage')).result.usedSize;
          const mem = await trainerWorker(page).evaluate(() => self.__rlvrTest.memory());
          await cdp.send('HeapProfiler.collectGarbage');
          const pageHeap = (await cdp.send('Runtime.getHeapUsage')).usedSize;
          rows.push({
            step: target,
            workerHeapMB: +(heap / 2 ** 20).toFixed(2),
            pageHeapMB: +(pageHeap / 2 ** 20).toFixed(2),
            rolloutStepsKept: mem.rolloutStepsKept,
            liveTensors: mem.liveTensors,
            seconds: Math.round((Date.now() - t0) / 1000),
          });
        }
        await page.waitForFunction(() => window.__rlvr.state().run.state === 'done', undefined, { timeout: 60_000 });
        const s = await state(page);
        for (const r of rows) note(testInfo, JSON.stringify(r));
        results.soak = rows;
        assert.equal(s.run.metrics.length, SOAK_STEPS, 'metrics for every step');
        assert.deepEqual(
          s.run.metrics.map((m) => m.step),
          Array.from({ length: SOAK_STEPS }, (_, i) => i),
        );
        assert.ok(s.run.metrics.every((m) => Number.isFinite(m.loss) && Number.isFinite(m.reward)));
        assert.ok(
          rows.every((r) => r.rolloutStepsKept <= 10),
          'rollout history bounded',
        );
        assert.ok(new Set(rows.map((r) => r.liveTensors)).size === 1, 'live device tensors constant');
        // Worker heap from step 50 to 300: the metrics history and old-step summaries grow by design (~1-2 KB/step).
        const growth = rows.at(-1).workerHeapMB - rows[0].workerHeapMB;
        assert.ok(growth < 3, `worker heap grew ${growth.toFixed(2)} MB over ${SOAK_STEPS - 50} steps (bound 3 MB)`);
        const pageGrowth = rows.at(-1).pageHeapMB - rows[0].pageHeapMB;
        assert.ok(
          pageGrowth < 2,
          `page heap grew ${pageGrowth.toFixed(2)} MB (bound 2 MB: the metrics history, ~1.5 KB/step, grows by design)`,
        );
        // With the charts drawn: each chart draws at most 300 points (chart-data.ts), so this stops growing past 300
        // steps.
        await page.click('[data-testid="tab-charts"]');
        await page.locator('[data-testid="chart-reward"]').scrollIntoViewIfNeeded(); // charts draw in view
        await page.waitForFunction(
          (n) => Number(document.querySelector('[data-testid="chart-reward"]')?.getAttribute('data-points')) === n,
          SOAK_STEPS,
          { timeout: 30_000 },
        );
        await cdp.send('HeapProfiler.collectGarbage');
        const withCharts = (await cdp.send('Runtime.getHeapUsage')).usedSize / 2 ** 20;
        results.soakPageHeapWithChartsMB = +withCharts.toFixed(2);
        note(
          testInfo,
          `page heap with the charts of ${SOAK_STEPS} steps ` +
            `drawn: ${withCharts.toFixed(1)} MB (without: ${rows.at(-1).pageHeapMB} ` +
            'MB)',
        );
        assert.ok(
          withCharts - rows.at(-1).pageHeapMB < 40,
          `the charts of ${SOAK_STEPS} steps take ${(withCharts - rows.at(-1).pageHeapMB).toFixed(1)} MB (bound 40 MB)`,
        );
        assert.deepEqual(p.pageErrors, []);
      });
    } finally {
      await p.close();
    }
  },
);

test(
  `WebGPU (SwiftShader) soak: ${WEBGPU_SOAK_STEPS} ` + 'steps of the nano model, live GPU tensors constant',
  async ({}, testInfo) => {
    test.skip(!LONG, LONG_ONLY);
    test.setTimeout(1_500_000);
    const p = await open(`/?backend=webgpu&${NANO}&steps=${WEBGPU_SOAK_STEPS}&rollout_history_steps=10`);
    try {
      await withDiagnostics(testInfo, p, 'reliability-webgpu-soak', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-share"]');
        await page.click('[data-testid="step-once"]');
        await page.waitForFunction(
          () =>
            window.__rlvr.state().run.state === 'paused' &&
            window.__rlvr.state().autosave?.step === 1 &&
            window.__rlvr.state().run.metrics.length === 1,
          undefined,
          { timeout: 600_000, polling: 500 },
        );
        assert.equal((await state(page)).run.backend.kind, 'webgpu');
        const memory = () => trainerWorker(page).evaluate(() => self.__rlvrTest.memory());
        // weights + AdamW moments, after a step and an autosave (which reads them back)
        const steady = (await memory()).liveTensors;
        const t0 = Date.now();
        await page.click('[data-testid="start"]');
        const samples = [];
        while ((await state(page)).run.state !== 'done') {
          samples.push((await memory()).liveTensors); // mid-step: plus at most the KV caches or one update's outputs
          // A sampling period (samples land at any phase of a step), not a wait for an event.
          await page.waitForTimeout(2000);
        }
        const end = await memory();
        const s = await state(page);
        const perStep = (Date.now() - t0) / 1000 / (WEBGPU_SOAK_STEPS - 1);
        results.webgpuSoak = {
          steps: WEBGPU_SOAK_STEPS,
          steady,
          end: end.liveTensors,
          maxMidStep: Math.max(...samples),
          secondsPerStep: +perStep.toFixed(2),
        };
        note(testInfo, JSON.stringify(results.webgpuSoak));
        assert.equal(s.run.metrics.length, WEBGPU_SOAK_STEPS);
        assert.ok(s.run.metrics.every((m) => Number.isFinite(m.loss)));
        assert.equal(
          end.liveTensors,
          steady,
          `live GPU tensors: ${steady} after step 1, ${end.liveTensors} after step ${WEBGPU_SOAK_STEPS}`,
        );
        assert.ok(
          Math.max(...samples) <= steady + 2 * 108,
          `mid-step peaks stay bounded (max ${Math.max(...samples)})`,
        );
        assert.ok(end.rolloutStepsKept <= 10);
      });
    } finally {
      await p.close();
    }
  },
);

test(
  'WebGPU device lost (simulated by destroying the ' +
    'device): falls back to WASM from the last ' +
    'autosave, with a message',
  async ({}, testInfo) => {
    test.skip(!LONG, LONG_ONLY);
    test.setTimeout(900_000);
    const p = await open(`/?backend=webgpu&${NANO}`);
    try {
      await withDiagnostics(testInfo, p, 'reliability-device-lost', async () => {
        const { page } = p;
        await page.click('[data-testid="step-once"]');
        // The autosave can land before the step's event (events are batched): wait for both.
        await page.waitForFunction(
          () =>
            (window.__rlvr.state().autosave?.step === 1 && window.__rlvr.state().run.metrics.length === 1) ||
            window.__rlvr.state().error,
          undefined,
          { timeout: 800_000, polling: 500 },
        );
        let s = await state(page);
        assert.equal(s.error, null, s.error?.message);
        assert.equal(s.run.backend.kind, 'webgpu');
        const before = s.run.metrics.map(strip);
        // TEST ONLY hook: destroy ORT's GPUDevice; device.lost resolves as it would after a driver reset.
        assert.equal(
          await trainerWorker(page).evaluate(() => self.__rlvrTest.loseDevice()),
          true,
          'ORT had a WebGPU device',
        );
        await page.waitForSelector('[data-testid="fallback-banner"]', { timeout: 120_000 });
        assert.match(
          await text(page, 'fallback-banner'),
          /WebGPU device was lost .*Switched to WASM and resumed from the autosave at step 1/,
        );
        await page.waitForFunction(
          () => window.__rlvr.state().run.backend?.kind === 'wasm' && window.__rlvr.state().run.state === 'paused',
          undefined,
          { timeout: 120_000 },
        );
        s = await state(page);
        assert.equal(s.run.step, 1);
        assert.deepEqual(s.run.metrics.map(strip), before);
        assert.match(page.url(), /backend=wasm/, 'the link now asks for WASM');
        await page.click('[data-testid="step-once"]');
        await page.waitForFunction(() => window.__rlvr.state().run.metrics.length === 2, undefined, {
          timeout: 120_000,
        });
        await screenshot(page, 'reliability-device-lost');
        note(testInfo, 'device destroyed after step 1 on WebGPU; resumed on WASM at step 1 and trained step 2');
      });
    } finally {
      await p.close();
    }
  },
);
