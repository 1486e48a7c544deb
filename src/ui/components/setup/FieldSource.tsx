import { pageSourceText } from '../../../rl/resolve-config.ts';
import { toText, valueAt, type EditOrigin } from '../../derive/config-form.ts';
import { resolvedBase } from '../../state/setup-state.ts';
import { useApp } from '../../state/store.ts';

/**
 * Which layer a field's text comes from: the draft's own (link, saved config, a lesson, edited) when it holds an edit,
 * else the resolver's source of the base value.
 */
export function fieldSourceText(origin: EditOrigin | undefined, edited: boolean, baseSource: string): string {
  if (!edited) return baseSource;
  if (origin?.startsWith('lesson:')) return `lesson ${origin.slice('lesson:'.length)}`;
  return origin === 'link' ? 'from the link' : origin === 'saved config' ? 'saved config' : 'edited';
}

/**
 * Where a field's value came from, in words ("recipe of sort-tiny", "preset dapo", "from the link",
 * "saved config", "edited", "default"; src/rl/resolve-config.ts), and for a value the person's layers
 * set, one click back to the layer beneath.
 */
export function FieldSource({ path, edited, reset }: { path: string; edited: boolean; reset: () => void }) {
  const baseSource = useApp((s) => pageSourceText(resolvedBase(s).source[path] ?? { kind: 'default' }));
  const baseText = useApp((s) => String(toText(valueAt(resolvedBase(s).config, path) ?? null)));
  const origin = useApp((s) => s.setup.draft.origins?.[path]);
  const layer = baseSource.startsWith('recipe of ')
    ? 'recipe'
    : baseSource.startsWith('preset ')
      ? 'preset'
      : baseSource;
  return (
    <p className="field-source" data-testid={`source-${path}`}>
      <span className="muted">{fieldSourceText(origin, edited, baseSource)}</span>
      {edited && (
        <>
          {' '}
          <button
            type="button"
            className="link"
            onClick={reset}
            data-testid={`reset-${path}`}
            title={`Back to ${baseSource}: ${baseText === '' ? 'off' : baseText}`}
          >
            reset to {layer}
          </button>
        </>
      )}
    </p>
  );
}
