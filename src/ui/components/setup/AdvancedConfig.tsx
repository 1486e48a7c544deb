import { fieldGroups, fieldSpecs } from '../../config-form.ts';
import { ConfigField } from './ConfigField.tsx';

/** Every config field, grouped, each with its one-line help and paper. */
export function AdvancedConfig({ exclude }: { exclude: string[] }) {
  return (
    <details className="advanced" data-testid="advanced">
      <summary>Advanced: every knob</summary>
      {fieldGroups.map((g) => (
        <fieldset key={g} className="group">
          <legend>{g}</legend>
          {fieldSpecs
            .filter((f) => f.group === g && !exclude.includes(f.path))
            .map((f) => (
              <ConfigField key={f.path} path={f.path} />
            ))}
        </fieldset>
      ))}
    </details>
  );
}
