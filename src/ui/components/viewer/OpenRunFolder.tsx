import { useRef } from 'react';
import { folderFromPicker } from '../../derive/folder-files.ts';
import { openFolder } from '../../state/viewer-actions.ts';

/** "Open a run folder…": a folder picker (drops of a folder anywhere on the page do the same, recording.ts). */
export function OpenRunFolder() {
  const input = useRef<HTMLInputElement>(null);
  return (
    <span className="viewer-opener">
      <button type="button" onClick={() => input.current?.click()} data-testid="open-run-folder">
        Open a run folder…
      </button>
      <input
        ref={(el) => {
          input.current = el;
          // React does not pass the non-standard attribute through as a prop.
          el?.setAttribute('webkitdirectory', '');
        }}
        type="file"
        multiple
        hidden
        data-testid="run-folder-input"
        aria-label="Open a run folder (TRL, veRL, NeMo-RL, prime-rl, ROLL, AReaL, Trackio, JSONL, records)"
        onChange={(e) => {
          const folder = folderFromPicker(e.target.files ?? []);
          e.target.value = '';
          if (folder) void openFolder(folder);
        }}
      />
      <span className="muted small">
        {' '}
        or drop a folder on the page: TRL's output_dir, veRL's rollout_data_dir, NeMo-RL's, prime-rl's, ROLL's or
        AReaL's rollout dumps, a Trackio project's .db, a JSONL of completions or .rlvr.gz records. It is read in this
        tab, nothing is uploaded.
      </span>
    </span>
  );
}
