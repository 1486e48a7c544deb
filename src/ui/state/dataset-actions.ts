/**
 * Training on the imported dataset: the setup switches to the custom task and the button does what it
 * says. A run already built on this very dataset continues; any other run (another task, another file,
 * or the 0-step run Try the policy loads) is ended and a new run starts on the dataset, and when that
 * run has trained steps the button's label says so before the click (datasetTrainLabel).
 */
import { start } from './controller.ts';
import { reset } from './run-load.ts';
import { updateSetup } from './setup-state.ts';
import { getState, hasRun } from './store.ts';
import { useDataset, type DatasetState } from './dataset-import.ts';

/** Whether the current run (if any) was built on the dataset in use. */
export function runTrainsOnDataset(d: Pick<DatasetState, 'payload' | 'inRun'> = useDataset.getState()): boolean {
  return hasRun() && getState().run.config?.task === 'custom' && d.payload !== null && d.inRun === d.payload;
}

/** The button's label: what a click will do to the current run. */
export function datasetTrainLabel(steps: number, sameRun: boolean, runExists: boolean): string {
  if (!runExists || sameRun || steps === 0) return 'Train on this dataset';
  return `Train on this dataset (a new run: ends the current run at step ${steps})`;
}

/** What happened, for the panel: 'started', or why not. */
export async function trainOnDataset(): Promise<string> {
  if (!useDataset.getState().payload) return 'import a JSONL file first';
  const name = useDataset.getState().payload!.name;
  updateSetup((s) => ({ ...s, draft: { ...s.draft, task: 'custom', knobs: {} }, dataset: name }));
  if (hasRun() && !runTrainsOnDataset()) await reset();
  await start();
  // start() reports its own failures in the error banner; the run may still be loading here.
  return getState().error ? 'the run could not start (see the message above)' : 'started';
}
