import { useState } from 'react';
import { presets } from '../../../rl/presets.ts';
import { safePreset } from '../../derive/config-form.ts';
import { choosePreset, type PresetChange } from '../../derive/preset-change.ts';
import { updateSetup } from '../../state/setup-state.ts';
import { useApp } from '../../state/store.ts';

/**
 * Algorithm preset with its explanation and paper. Choosing one keeps the values you typed (a preset
 * sets the fields you did not touch) and says which it kept, with one click to take the preset's.
 */
export function PresetPicker() {
  const presetId = useApp((s) => s.setup.draft.presetId);
  const [kept, setKept] = useState<PresetChange | null>(null);
  const p = safePreset(presetId);
  const onChange = (id: string) => {
    let change: PresetChange | null = null;
    updateSetup((s) => {
      change = choosePreset(s.draft, id);
      return { ...s, draft: change.draft };
    });
    setKept(change && (change as PresetChange).kept.length ? change : null);
  };
  const keepPresetValues = () => {
    if (!kept) return;
    updateSetup((s) => {
      const edits = { ...s.draft.edits };
      for (const k of kept.kept) delete edits[k.path];
      return { ...s, draft: { ...s.draft, edits } };
    });
    setKept(null);
  };
  const shown = kept && kept.draft.presetId === presetId ? kept : null;
  return (
    <fieldset className="group">
      <legend>Algorithm</legend>
      <div className="field">
        <label htmlFor="preset">Preset</label>
        <select id="preset" value={presetId} data-testid="preset" onChange={(e) => onChange(e.target.value)}>
          {presets.map((x) => (
            <option key={x.id} value={x.id}>
              {x.title}
            </option>
          ))}
        </select>
      </div>
      {shown && (
        <p className="note" role="status" data-testid="preset-kept">
          Kept your values:{' '}
          {shown.kept.map((k, i) => (
            <span key={k.path}>
              {i > 0 && ', '}
              <code>
                {k.path} = {String(k.value)}
              </code>
              {k.preset !== undefined && ` (${p?.title ?? presetId} sets ${k.preset})`}
            </span>
          ))}
          .{' '}
          <button type="button" data-testid="preset-use-values" onClick={keepPresetValues}>
            Use the preset's values instead
          </button>
        </p>
      )}
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
