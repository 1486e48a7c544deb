import { aboutTime, type JobWait, jobSecondsLeft, percentOf } from '../derive/job-progress.ts';

/**
 * A long job's one progress line: a bar and a percentage from 0 to 100%, what it is doing, the time
 * left measured from its own rate (job-progress.ts), and Cancel.
 */
export function JobProgress(props: {
  wait: JobWait | null;
  /** What it is doing, e.g. "SFT step 40 of 200". */
  doing: string;
  testId: string;
  onCancel?: () => void;
  cancelTestId?: string;
}) {
  const pct = percentOf(props.wait);
  const left = props.wait ? jobSecondsLeft(props.wait, performance.now()) : null;
  return (
    <p className="wait-line" role="status" data-testid={props.testId} data-percent={pct}>
      <progress max={100} value={pct} aria-hidden="true" /> {pct}%: {props.doing}
      {left !== null && <span data-testid={`${props.testId}-left`}> · {aboutTime(left)} left (measured)</span>}
      {props.onCancel && (
        <>
          {' '}
          <button type="button" data-testid={props.cancelTestId} onClick={props.onCancel}>
            Cancel
          </button>
        </>
      )}
    </p>
  );
}
