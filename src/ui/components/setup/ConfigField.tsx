import { baseValue, fieldSpec, parseText, toText } from '../../config-form.ts';
import { draftValidation, recipeKnobs, updateSetup } from '../../setup-state.ts';
import { useApp } from '../../store.ts';

/** One config field: label, input, one-line help, its paper, and its validation error inline. */
export function ConfigField({ path }: { path: string }) {
  const spec = fieldSpec(path)!;
  const presetId = useApp((s) => s.setup.draft.presetId);
  const edit = useApp((s) => s.setup.draft.edits[path]);
  const error = useApp((s) => draftValidation(s).errors[path]);
  const recipeJson = useApp((s) => JSON.stringify(recipeKnobs(s)));
  const recipe = JSON.parse(recipeJson) as ReturnType<typeof recipeKnobs>;
  const value = edit ?? toText(baseValue(path, presetId, recipe));
  const id = `f-${path.replace(/\W/g, '-')}`;
  const set = (v: string | boolean) =>
    updateSetup((s) => {
      const edits = { ...s.draft.edits };
      const base = baseValue(path, s.draft.presetId, recipe);
      if (JSON.stringify(parseText(spec.kind, v)) === JSON.stringify(base) && typeof v === typeof toText(base)) delete edits[path];
      else edits[path] = v;
      return { ...s, draft: { ...s.draft, edits } };
    });
  const describedBy = `${id}-help${error ? ` ${id}-err` : ''}`;
  let input;
  if (spec.kind === 'bool') {
    input = <input id={id} type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} aria-describedby={describedBy} data-testid={`field-${path}`} />;
  } else if (spec.kind === 'enum') {
    input = (
      <select id={id} value={String(value)} onChange={(e) => set(e.target.value)} aria-describedby={describedBy} aria-invalid={!!error} data-testid={`field-${path}`}>
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
        inputMode={spec.kind === 'int' ? 'numeric' : 'decimal'}
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
          <span className="badge" title="Same name and meaning as TRL's GRPOConfig">
            TRL
          </span>
        )}
        {spec.restart && (
          <span className="badge" title="Changing it takes effect in a new run: Reset, then Start">
            new run
          </span>
        )}
      </label>
      {input}
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
