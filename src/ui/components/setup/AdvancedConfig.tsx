import { fieldGroups, fieldSpecs } from '../../derive/config-form.ts';
import { ConfigField } from './ConfigField.tsx';

/** Every config field, grouped, each with its one-line help and paper. */
export function AdvancedConfig({ exclude }: { exclude: string[] }) {
  return (
    <details className="advanced" data-testid="advanced">
      <summary>Advanced: every knob</summary>
      {fieldGroups.map((g) => {
        const fields = fieldSpecs.filter((f) => f.group === g && !exclude.includes(f.path));
        // A group whose fields all sit in the main settings is left out rather than shown empty.
        if (!fields.length) return null;
        return (
          <fieldset key={g} className="group">
            <legend>{g}</legend>
            {fields.map((f) => (
              <ConfigField key={f.path} path={f.path} />
            ))}
          </fieldset>
        );
      })}
    </details>
  );
}
