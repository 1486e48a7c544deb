/** Switching the setup's preset while keeping what the person typed (the setup panel's preset picker). */
import { baseValue, type Edits, fieldSpec, parseText, type SetupDraft, safePreset } from './config-form.ts';

export interface PresetChange {
  draft: SetupDraft;
  /** Typed values kept over the new preset; `preset` is the new preset's own value where it sets the field. */
  kept: { path: string; value: string | boolean; preset?: string }[];
}

/**
 * Switches the preset and keeps what the person typed: the preset sets every field they did not
 * touch. Edits that now equal the preset's value are dropped (they are no longer edits).
 */
export function choosePreset(d: SetupDraft, presetId: string): PresetChange {
  const edits: Edits = {};
  const kept: PresetChange['kept'] = [];
  const own = (safePreset(presetId)?.config ?? {}) as Record<string, unknown>;
  for (const [path, raw] of Object.entries(d.edits)) {
    const spec = fieldSpec(path);
    const base = baseValue(path, presetId);
    if (spec && JSON.stringify(parseText(spec.kind, raw)) === JSON.stringify(base)) continue;
    edits[path] = raw;
    const [head, part] = path.split('.') as [string, string | undefined];
    const setsIt =
      part === undefined
        ? head in own
        : typeof own[head] === 'object' && own[head] !== null && part in (own[head] as object);
    kept.push({ path, value: raw, preset: setsIt ? (base === null ? 'off' : String(base)) : undefined });
  }
  return { draft: { ...d, presetId, edits }, kept };
}
