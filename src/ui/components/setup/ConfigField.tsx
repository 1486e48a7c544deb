import { fieldSpec, parseText, toText, valueAt } from '../../derive/config-form.ts';
import { draftValidation, resolvedBase, updateSetup } from '../../state/setup-state.ts';
import { FieldSource } from './FieldSource.tsx';
import { useApp } from '../../state/store.ts';

/** Drops a field's edit and where it came from: the field goes back to the layer beneath (preset, recipe, default). */
function dropEdit(path: string) {
  updateSetup((s) => {
    const edits = { ...s.draft.edits };
    delete edits[path];
    const { [path]: _gone, ...origins } = s.draft.origins ?? {};
    return { ...s, draft: { ...s.draft, edits, origins } };
  });
}

/** One config field: label, input, one-line help, its paper, and its validation error inline. */
export function ConfigField({ path }: { path: string }) {
  const spec = fieldSpec(path)!;
  const edit = useApp((s) => s.setup.draft.edits[path]);
  const error = useApp((s) => draftValidation(s).errors[path]);
  // The value before the person's layers and where it comes from; then where the field's value comes from now.
  const baseJson = useApp((s) => JSON.stringify(valueAt(resolvedBase(s).config, path) ?? null));
  const base = JSON.parse(baseJson) as unknown;
  const value = edit ?? toText(base);
  const id = `f-${path.replace(/\W/g, '-')}`;
  const set = (v: string | boolean) =>
    updateSetup((s) => {
      const edits = { ...s.draft.edits };
      const { [path]: _typed, ...origins } = s.draft.origins ?? {};
      if (JSON.stringify(parseText(spec.kind, v)) === JSON.stringify(base) && typeof v === typeof toText(base))
        delete edits[path];
      else edits[path] = v;
      return { ...s, draft: { ...s.draft, edits, origins } };
    });
  const describedBy = `${id}-help${error ? ` ${id}-err` : ''}`;
  let input;
  if (spec.kind === 'bool') {
    input = (
      <input
        id={id}
        type="checkbox"
        checked={value === true}
        onChange={(e) => set(e.target.checked)}
        aria-describedby={describedBy}
        data-testid={`field-${path}`}
      />
    );
  } else if (spec.kind === 'enum') {
    input = (
      <select
        id={id}
        value={String(value)}
        onChange={(e) => set(e.target.value)}
        aria-describedby={describedBy}
        aria-invalid={!!error}
        data-testid={`field-${path}`}
      >
        {spec.options!.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else {
    input = (
      <input
        id={id}
        type="text"
        inputMode={spec.kind === 'int' ? 'numeric' : spec.kind === 'text' ? 'text' : 'decimal'}
        value={String(value)}
        placeholder={spec.kind === 'nullable-num' ? 'off' : undefined}
        onChange={(e) => set(e.target.value)}
        aria-describedby={describedBy}
        aria-invalid={!!error}
        data-testid={`field-${path}`}
        spellCheck={false}
        autoComplete="off"
      />
    );
  }
  return (
    <div className={`field${error ? ' invalid' : ''}${edit !== undefined ? ' edited' : ''}`}>
      <label htmlFor={id}>
        <code>{path}</code>
        {spec.trl && (
          <span className="badge" title={spec.trlNote} data-testid={`trl-badge-${path}`}>
            {spec.trlNote?.includes("TRL's default is") ? 'TRL · default differs' : 'TRL'}
          </span>
        )}
        {spec.restart && (
          <span className="badge" title="Changing it takes effect in a new run: Reset, then Start">
            new run
          </span>
        )}
      </label>
      {input}
      <FieldSource path={path} edited={edit !== undefined} reset={() => dropEdit(path)} />
      <p id={`${id}-help`} className="help">
        {spec.help}
        {spec.paper && <span className="paper"> — {spec.paper}</span>}
      </p>
      {error && (
        <p id={`${id}-err`} className="inline-error" role="alert" data-testid={`error-${path}`}>
          {error}
        </p>
      )}
    </div>
  );
}
