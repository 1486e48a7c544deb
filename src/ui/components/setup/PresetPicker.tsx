import { presets } from '../../../rl/presets.ts';
import { safePreset } from '../../config-form.ts';
import { updateSetup } from '../../controller.ts';
import { useApp } from '../../store.ts';

/** Algorithm preset with its explanation and paper. Choosing one clears the per-field edits. */
export function PresetPicker() {
  const presetId = useApp((s) => s.setup.draft.presetId);
  const p = safePreset(presetId);
  return (
    <fieldset className="group">
      <legend>Algorithm</legend>
      <div className="field">
        <label htmlFor="preset">Preset</label>
        <select id="preset" value={presetId} data-testid="preset" onChange={(e) => updateSetup((s) => ({ ...s, draft: { ...s.draft, presetId: e.target.value, edits: {} } }))}>
          {presets.map((x) => (
            <option key={x.id} value={x.id}>
              {x.title}
            </option>
          ))}
        </select>
      </div>
      {p && (
        <div className="preset-info" data-testid="preset-explanation">
          <p>{p.explanation}</p>
          <p className="paper">Paper: {p.paper}</p>
          <p className="muted small">
            Sets:{' '}
            {Object.entries(p.config)
              .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
              .join(', ')}
          </p>
        </div>
      )}
    </fieldset>
  );
}
