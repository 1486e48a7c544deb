import { parseKnob, pickableTasks, safeFamily, type EditOrigin } from '../../derive/config-form.ts';
import { draftValidation, measuredDifficulty, updateSetup } from '../../state/setup-state.ts';
import { useApp } from '../../state/store.ts';
import { FieldSource } from './FieldSource.tsx';

/**
 * Sets (or, at its base value, drops) one knob's text; a typed knob is the person's edit, no longer the link's or the
 * saved config's.
 */
function setKnob(name: string, text: string | null) {
  updateSetup((s) => {
    const next = { ...s.draft.knobs };
    if (text === null) delete next[name];
    else next[name] = text;
    const { [`difficulty.${name}`]: _gone, ...origins } = s.draft.origins ?? {};
    return { ...s, draft: { ...s.draft, knobs: next, origins } };
  });
}

/** A picked task is the person's: the task's and the old knobs' origins go, the other fields' stay. */
const ownOrigins = (o: Record<string, EditOrigin> | undefined) =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => k !== 'task' && !k.startsWith('difficulty.')));

/** Task family and its difficulty knobs (starting from the difficulty the checkpoint was measured at). */
export function TaskPicker() {
  const task = useApp((s) => s.setup.draft.task);
  const knobs = useApp((s) => s.setup.draft.knobs);
  const errors = useApp((s) => draftValidation(s).errors);
  const measured = useApp((s) => JSON.stringify(measuredDifficulty(s)));
  const family = safeFamily(task);
  const m = JSON.parse(measured) as Record<string, number | string>;
  return (
    <fieldset className="group">
      <legend>Task</legend>
      <div className="field">
        <label htmlFor="task">Task family</label>
        <select
          id="task"
          value={task}
          data-testid="task"
          onChange={(e) =>
            // A new task starts from its own shipped checkpoint (an uploaded or fresh model stays chosen).
            updateSetup((s) => ({
              ...s,
              checkpoint: s.checkpoint === 'upload' ? 'upload' : null,
              draft: { ...s.draft, task: e.target.value, knobs: {}, origins: ownOrigins(s.draft.origins) },
            }))
          }
        >
          {pickableTasks.map((f) => (
            <option key={f.id} value={f.id}>
              {f.title}
            </option>
          ))}
          {task === 'custom' && <option value="custom">Your own data (JSONL, from the Your data tab)</option>}
        </select>
        {family && <p className="help">{family.description}</p>}
      </div>
      {family?.knobs.map((k) => {
        const base = m[k.name] ?? family.defaultDifficulty[k.name] ?? k.default;
        const value = knobs[k.name] ?? String(base);
        const err = errors[`difficulty.${k.name}`];
        const id = `knob-${k.name}`;
        return (
          <div key={k.name} className={`field${err ? ' invalid' : ''}${knobs[k.name] !== undefined ? ' edited' : ''}`}>
            <label htmlFor={id}>
              <code>{k.name}</code>
            </label>
            <input
              id={id}
              type="text"
              inputMode={typeof k.default === 'number' ? 'numeric' : 'text'}
              value={value}
              aria-invalid={!!err}
              aria-describedby={`${id}-help${err ? ` ${id}-err` : ''}`}
              data-testid={`knob-${k.name}`}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) =>
                setKnob(
                  k.name,
                  JSON.stringify(parseKnob(family, k.name, e.target.value)) === JSON.stringify(base)
                    ? null
                    : e.target.value,
                )
              }
            />
            <FieldSource
              path={`difficulty.${k.name}`}
              edited={knobs[k.name] !== undefined}
              reset={() => setKnob(k.name, null)}
            />
            <p id={`${id}-help`} className="help">
              {k.description}
              {k.min !== undefined && ` (${k.min}–${k.max ?? '∞'})`}
              {k.choices && ` (${k.choices.join(', ')})`}
              {m[k.name] !== undefined && <span className="muted"> · checkpoint measured at {String(m[k.name])}</span>}
            </p>
            {err && (
              <p id={`${id}-err`} className="inline-error" role="alert" data-testid={`error-difficulty.${k.name}`}>
                {err}
              </p>
            )}
          </div>
        );
      })}
      {errors.difficulty && <p className="inline-error">{errors.difficulty}</p>}
    </fieldset>
  );
}
