import { setStepBudget } from '../../controller.ts';
import { useApp } from '../../store.ts';
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
      <AdvancedConfig exclude={MAIN_FIELDS} />
    </div>
  );
}
