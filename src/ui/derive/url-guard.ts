/**
 * Guards the page against hostile or broken links before url-state.ts parses them: a query string
 * longer than any real experiment link is ignored with a note, and the notes about a link are capped
 * (ten thousand unknown keys give one line saying so, not ten thousand).
 */

/** A link with every config field set is under 2 KB; anything this long is not one of ours. */
export const MAX_SEARCH_CHARS = 8192;
export const MAX_URL_NOTES = 8;

export function guardSearch(search: string): { search: string; note: string | null } {
  if (search.length <= MAX_SEARCH_CHARS) return { search, note: null };
  return {
    search: '',
    note:
      `this link's settings are ${search.length.toLocaleString('en')} ` +
      `characters long (at most ${MAX_SEARCH_CHARS.toLocaleString('en')}` +
      '): it was ignored and the defaults are shown',
  };
}

export function capNotes(notes: string[]): string[] {
  if (notes.length <= MAX_URL_NOTES) return notes;
  return [
    ...notes.slice(0, MAX_URL_NOTES - 1),
    `…and ${notes.length - (MAX_URL_NOTES - 1)} more problems with this link`,
  ];
}
