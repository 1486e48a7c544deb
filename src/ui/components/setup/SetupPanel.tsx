import { useState } from 'react';
import { setStepBudget } from '../../state/controller.ts';
import { cancelWarmStart, warmStart } from '../../state/long-jobs.ts';
import { JobProgress } from '../JobProgress.tsx';
import { useApp } from '../../state/store.ts';
import { AdvancedConfig } from './AdvancedConfig.tsx';
import { CheckpointPicker } from './CheckpointPicker.tsx';
import { ConfigField } from './ConfigField.tsx';
import { PresetPicker } from './PresetPicker.tsx';
import { TaskPicker } from './TaskPicker.tsx';

const MAIN_FIELDS = ['prompts_per_step', 'num_generations', 'max_completion_length', 'learning_rate', 'seed'];

function StepBudget() {
  const budget = useApp((s) => s.setup.stepBudget);
  return (
    <div className="field">
      <label htmlFor="step-budget">Step budget</label>
      <input
        id="step-budget"
        type="number"
        min={0}
        step={10}
        value={budget || ''}
        placeholder="no limit"
        data-testid="step-budget"
        aria-describedby="step-budget-help"
        onChange={(e) => {
          const n = Math.max(0, Math.floor(Number(e.target.value) || 0));
          void setStepBudget(n);
        }}
      />
      <p id="step-budget-help" className="help">
        stop after this many steps (empty: run until paused); shows a progress bar and ETA
      </p>
    </div>
  );
}

/** Optional supervised warm start on the task's reference solutions, before RL. */
function WarmStart() {
  const [steps, setSteps] = useState(200);
  const ws = useApp((s) => s.warmStart);
  const runStep = useApp((s) => s.run.step);
  const state = useApp((s) => s.run.state);
  const progress = useApp((s) => s.run.progress);
  const busy = ws.running || state === 'running' || state === 'pausing' || state === 'loading';
  return (
    <fieldset className="group" data-testid="warm-start">
      <legend>SFT warm start (optional)</legend>
      <p className="help">
        Supervised training on the task generator's reference solutions, before RL: how the shipped checkpoints were
        made (<code>rlvr pretrain</code>). Use it with a fresh model, or to make a checkpoint stronger at this
        difficulty. It runs before the first RL step; the warm-started model becomes the run's base.
      </p>
      <div className="field">
        <label htmlFor="warm-start-steps">Steps</label>
        <input
          id="warm-start-steps"
          type="number"
          min={1}
          max={10000}
          step={50}
          value={steps}
          data-testid="warm-start-steps"
          onChange={(e) => setSteps(Math.max(1, Math.min(10_000, Math.floor(Number(e.target.value) || 1))))}
        />
      </div>
      <button
        type="button"
        disabled={busy || runStep > 0}
        data-testid="warm-start-run"
        onClick={() => void warmStart(steps)}
        title={runStep > 0 ? 'the warm start runs before RL: reset the run first' : undefined}
      >
        Warm start
      </button>
      {ws.running && (
        <JobProgress
          wait={ws.wait ?? null}
          doing={
            progress?.what === 'warm-start'
              ? `SFT step ${progress.done} of ${progress.total}`
              : 'preparing: loading the model and compiling the training graph'
          }
          testId="warm-start-progress"
          onCancel={cancelWarmStart}
          cancelTestId="warm-start-cancel"
        />
      )}
      {ws.cancelled && !ws.running && (
        <p className="help" role="status" data-testid="warm-start-cancelled">
          Cancelled: the model keeps the weights it had before the warm start.
        </p>
      )}
      {ws.error && !ws.running && (
        <p className="inline-error" role="alert" data-testid="warm-start-error">
          {ws.error}
        </p>
      )}
      {ws.result && !ws.running && (
        <p className="help" data-testid="warm-start-result">
          {ws.result.steps} SFT steps in {ws.result.seconds.toFixed(0)} s: loss {ws.result.firstLoss.toFixed(3)} →{' '}
          {ws.result.lastLoss.toFixed(3)}
        </p>
      )}
    </fieldset>
  );
}

export function SetupPanel() {
  return (
    <div className="setup-panel" data-testid="setup">
      <h2>Setup</h2>
      <TaskPicker />
      <CheckpointPicker />
      <PresetPicker />
      <fieldset className="group">
        <legend>Main settings</legend>
        {MAIN_FIELDS.map((p) => (
          <ConfigField key={p} path={p} />
        ))}
        <StepBudget />
      </fieldset>
      <WarmStart />
      <AdvancedConfig exclude={MAIN_FIELDS} />
    </div>
  );
}
