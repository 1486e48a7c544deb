/**
 * The exported project's run-record writer: rlvr_record.py (the layout of src/rl/run-record.ts,
 * with the format's constants, channel list and metric keys written from the TypeScript, so the
 * two cannot drift) and trl_record.py (GRPOTrainer's capture and the callback that writes the file).
 */
import { metricKeys } from '../../rl/metrics.ts';
import { RUN_RECORD_FORMAT, RUN_RECORD_MAGIC, RUN_RECORD_VERSION, runRecordChannels, runRecordScoredChannels } from '../../rl/run-record.ts';
import { pyValue } from './python-literal.ts';
import { pythonSource } from './python-text.ts';

/** The format's settings block: what the Python writer takes from src/rl/run-record.ts and src/rl/metrics.ts. */
export function recordSettingsSource(): string {
  return [
    '# ---- the run-record format (src/rl/run-record.ts, src/rl/metrics.ts; written by rlvr export --format trl) ----',
    `RUN_RECORD_FORMAT = ${pyValue(RUN_RECORD_FORMAT)}`,
    `RUN_RECORD_VERSION = ${pyValue(RUN_RECORD_VERSION)}`,
    `RUN_RECORD_MAGIC = ${pyValue(RUN_RECORD_MAGIC)}`,
    '# every per-token channel in file order, with its encoding',
    `CHANNELS = ${pyValue(runRecordChannels)}`,
    '# the channels with one value per scored token',
    `SCORED_CHANNELS = ${pyValue(runRecordScoredChannels)}`,
    `METRIC_KEYS = ${pyValue(metricKeys)}`,
  ].join('\n');
}

export function recordWriterSource(): string {
  const lines = pythonSource('rlvr_record').split('\n');
  const body = lines.filter((line) => !line.includes('# rlvr:strip'));
  // The settings go after the imports (the first blank line after them).
  const at = body.findIndex((line, i) => i > 0 && line === '' && body[i - 1]!.startsWith('import '));
  return [...body.slice(0, at), '', recordSettingsSource(), ...body.slice(at)].join('\n').trimEnd() + '\n';
}

export function trlRecordSource(): string {
  return pythonSource('trl_record');
}
