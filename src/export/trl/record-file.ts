/**
 * The run-record writer in Python: python/rlvr_playground/rlvr_record.py is its one copy. The
 * rlvr_playground package imports it with its settings module (python/rlvr_playground/record_settings.py,
 * written from here by scripts/python-record-settings.mjs and checked by
 * src/export/trl/python-package.test.ts); the TRL export writes it as rlvr_record.py with the same
 * settings inlined, next to trl_record.py (GRPOTrainer's capture and the callback that writes the file).
 * The format's constants, channel list and metric keys come from the TypeScript, so the two cannot drift.
 */
import { fieldTable, type FieldDecl } from '../../rl/config.ts';
import { lossTypes } from '../../rl/loss-types.ts';
import { metricKeys } from '../../rl/metrics.ts';
import { RUN_RECORD_FORMAT, RUN_RECORD_MAGIC, RUN_RECORD_VERSION } from '../../record/run-record.ts';
import { runRecordChannels, runRecordScoredChannels, runRecordVersion1Writers } from '../../record/run-record.ts';
import { pyValue } from './python-literal.ts';
import { pythonSource } from './python-text.ts';

/** The config fields TRL's GRPOConfig shares by name, with what the playground accepts for each. */
function trlConfigFields(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, d] of Object.entries(fieldTable) as [string, FieldDecl & { trl?: boolean }][]) {
    if (!d.trl) continue;
    const { kind } = d;
    if (kind === 'int' || kind === 'num') out[name] = { kind, min: d.min, max: d.max, exclusive_min: !!d.exclusiveMin };
    else if (kind === 'nullable-num') out[name] = { kind, min: d.min };
    else if (kind === 'enum') out[name] = { kind, values: [...d.values] };
    else if (kind === 'bool') out[name] = { kind };
  }
  return out;
}

/**
 * The loss types TRL has by name, with each one's per-token surrogate and aggregation (src/rl/loss-types.ts),
 * so the recorder's clipped-objective and loss-weight channels follow the TypeScript's table.
 */
function lossTypeTables(): string[] {
  const named = Object.entries(lossTypes).filter(([, d]) => d.trl === true);
  return [
    "# TRL's loss types (src/rl/loss-types.ts): each one's per-token surrogate and how its token losses are aggregated",
    `LOSS_FORMS = ${pyValue(Object.fromEntries(named.map(([k, d]) => [k, d.form])))}`,
    `LOSS_AGGREGATIONS = ${pyValue(Object.fromEntries(named.map(([k, d]) => [k, d.aggregation])))}`,
  ];
}

/** The format's settings block: what the Python writer takes from src/record/run-record.ts and src/rl/metrics.ts. */
export function recordSettingsSource(): string {
  return [
    '# ---- the run-record format (src/record/run-record.ts, src/rl/metrics.ts, src/rl/config-fields.ts) ----',
    `RUN_RECORD_FORMAT = ${pyValue(RUN_RECORD_FORMAT)}`,
    `RUN_RECORD_VERSION = ${pyValue(RUN_RECORD_VERSION)}`,
    `RUN_RECORD_MAGIC = ${pyValue(RUN_RECORD_MAGIC)}`,
    '# the writers a version-1 file may name',
    `VERSION_1_WRITERS = ${pyValue(runRecordVersion1Writers)}`,
    '# every per-token channel in file order, with its encoding (token ids become u32 when one does not fit u16)',
    `CHANNELS = ${pyValue(runRecordChannels)}`,
    '# the channels with one value per scored token',
    `SCORED_CHANNELS = ${pyValue(runRecordScoredChannels)}`,
    `METRIC_KEYS = ${pyValue(metricKeys)}`,
    "# the run config's fields TRL's GRPOConfig shares by name, and the values the playground accepts",
    `TRL_CONFIG_FIELDS = ${pyValue(trlConfigFields())}`,
    ...lossTypeTables(),
  ].join('\n');
}

/** python/rlvr_playground/record_settings.py as it must read. */
export function packageSettingsSource(): string {
  const note = '# Written by scripts/python-record-settings.mjs from the TypeScript; do not edit.';
  return [note, recordSettingsSource(), ''].join('\n');
}

/** A module of the rlvr_playground package (python/rlvr_playground/), read through python-text.ts. */
function packageSource(name: string): string {
  return pythonSource(`rlvr_playground/${name}`);
}

/** rlvr_record.py for the exported project: the package's writer with its settings import replaced by the settings. */
export function recordWriterSource(): string {
  const lines = packageSource('rlvr_record').split('\n');
  const body = lines.filter((line) => !line.includes('# rlvr:strip'));
  // The settings go after the imports (the first blank line after them).
  const at = body.findIndex((line, i) => i > 0 && line === '' && body[i - 1]!.startsWith('import '));
  return [...body.slice(0, at), '', recordSettingsSource(), ...body.slice(at)].join('\n').trimEnd() + '\n';
}

export function trlRecordSource(): string {
  return pythonSource('trl_record');
}
