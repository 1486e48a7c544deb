/** Training on the imported dataset: the setup switches to the custom task, and a new run starts when there is none. */
import { start } from './controller.ts';
import { updateSetup } from './setup-state.ts';
import { hasRun } from './store.ts';
import { useDataset } from './dataset-import.ts';

/** What happened, for the panel: 'started', or why not. */
export async function trainOnDataset(): Promise<string> {
  if (!useDataset.getState().payload) return 'import a JSONL file first';
  updateSetup((s) => ({ ...s, draft: { ...s.draft, task: 'custom', knobs: {} } }));
  if (hasRun()) return 'The setup now trains on this dataset. The current run keeps its task until you press Reset, then Start.';
  await start();
  return 'started';
}
