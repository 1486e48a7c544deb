/**
 * prime-rl's rollouts, as src/prime_rl/monitors/file.py `FileMonitor.log_episodes` writes them: per step,
 * `rollouts/step_{N}/{train,eval}/{all,effective}/traces.jsonl`, appended an episode at a time
 * (`orjson.dumps(episode.to_record(), option=OPT_APPEND_NEWLINE)`), so a run being written is read live.
 * Each line is a verifiers v1 Episode (verifiers/v1/episode.py `to_record`: model_dump(mode="json",
 * exclude_none=True)): {id, env: {id, name?}, task, group?: {id}, run?, ok, errors, traces: [Trace]}, a
 * Trace (verifiers/v1/trace.py) holding `nodes` (verifiers/v1/graph.py MessageNode: parent?, message,
 * sampled, token_ids, mask, logprobs, advantages?, reference_logprobs?), `calls`, `rewards` ({name:
 * {score, weight}}), `metrics`, `stop_condition`. One row per trace; the episode's `group.id` is its group.
 * The train side is read, `effective` (the admitted batch) where a step has it, else `all` (episodes as
 * they complete); eval is not. `metrics.jsonl` beside `rollouts/` (`log_metrics`) gives the curves.
 */
import { asText, isRecord, toNumber, why } from './files.ts';
import { scanJsonLines } from './lines.ts';
import { type LineRow, numberList, type StepLinesFormat, tokenChannels } from './step-lines.ts';
import type { MetricPoint, RunFileEntry, RunFiles, RunProblem } from './types.ts';

export const primeRlTraceFile = /^(?:(.*)\/)?rollouts\/step_(\d+)\/(train|eval)\/(all|effective)\/traces\.jsonl$/;

const expected =
  "expected a verifiers Episode record {id, task, ok, traces: [{nodes, rewards, ...}]} as prime-rl's " +
  'src/prime_rl/monitors/file.py writes';
/** Trace.is_truncated (verifiers/v1/trace.py): a framework limit, or a final response cut by length. */
const limitStops = new Set([
  'max_turns',
  'max_input_tokens',
  'max_output_tokens',
  'max_total_tokens',
  'context_length',
]);

/** content_text (verifiers/v1/types.py): a string, or the text parts joined by newlines. */
const contentText = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c
          .filter((p) => isRecord(p) && p.type === 'text')
          .map((p) => String((p as Record<string, unknown>).text ?? ''))
          .join('\n')
      : '';

function traceRow(
  episode: Record<string, unknown>,
  trace: Record<string, unknown>,
  tokenText?: (ids: number[]) => string[],
): LineRow['completion'] {
  const nodes = (Array.isArray(trace.nodes) ? trace.nodes : []).filter(isRecord);
  const firstSampled = nodes.findIndex((n) => n.sampled === true);
  const promptNodes = firstSampled < 0 ? nodes : nodes.slice(0, firstSampled);
  const sampled = nodes.filter((n) => n.sampled === true);
  const message = (n: Record<string, unknown>) => (isRecord(n.message) ? n.message : {});
  const prompt = promptNodes.map((n) => `${String(message(n).role ?? 'message')}: ${contentText(message(n).content)}`);
  const completion = sampled.map((n) => contentText(message(n).content)).join('\n');
  const rewards: Record<string, number> = {};
  if (isRecord(trace.rewards))
    for (const [k, r] of Object.entries(trace.rewards))
      if (isRecord(r)) rewards[k] = (toNumber(r.score) ?? Number.NaN) * (toNumber(r.weight) ?? 1);
  const ids: number[] = [];
  const logprobs: number[] = [];
  const advantages: number[] = [];
  const refLogprobs: number[] = [];
  let hasAdvantages = false;
  let hasRef = false;
  for (const n of sampled) {
    const tokenIds = numberList(n.token_ids) ?? [];
    const mask = Array.isArray(n.mask) ? n.mask : [];
    const lp = numberList(n.logprobs) ?? [];
    const adv = numberList(n.advantages);
    const ref = numberList(n.reference_logprobs);
    hasAdvantages ||= !!adv;
    hasRef ||= !!ref;
    let k = 0;
    tokenIds.forEach((id, i) => {
      if (mask[i] !== true) return;
      ids.push(id);
      logprobs.push(lp[k] ?? Number.NaN);
      advantages.push(adv?.[k] ?? 0);
      refLogprobs.push(ref?.[k] ?? Number.NaN);
      k++;
    });
  }
  const calls = (Array.isArray(trace.calls) ? trace.calls : []).filter(isRecord);
  const lastCall = [...calls].reverse().find((c) => c.error === undefined || c.error === null);
  const stop = typeof trace.stop_condition === 'string' ? trace.stop_condition : undefined;
  const extra: Record<string, unknown> = {
    episode: episode.id,
    ...(isRecord(episode.env) ? { env: episode.env.id } : {}),
    ok: trace.ok,
    ...(stop ? { stop_condition: stop } : {}),
    ...(isRecord(trace.metrics) && Object.keys(trace.metrics).length ? { metrics: trace.metrics } : {}),
    ...(Array.isArray(trace.errors) && trace.errors.length ? { errors: trace.errors } : {}),
  };
  return {
    prompt: prompt.join('\n'),
    completion,
    rewards,
    reward: Object.values(rewards).reduce((a, b) => a + b, 0),
    ...(hasAdvantages && advantages.length ? { advantage: advantages[0]! } : {}),
    length: ids.length,
    lengthUnit: 'tokens',
    truncated: (stop !== undefined && limitStops.has(stop)) || lastCall?.finish_reason === 'length',
    tokens: tokenChannels(ids, tokenText, {
      logprobs,
      ...(hasAdvantages ? { advantages } : {}),
      ...(hasRef ? { refLogprobs } : {}),
    }),
    extra,
  };
}

/** The curves of `metrics.jsonl` ({"step", "time", ...} a line): every numeric field but `time`. */
async function metricsFile(files: RunFiles, listed: RunFileEntry[], problems: RunProblem[]): Promise<MetricPoint[]> {
  const file = listed.find((f) => f.path === 'metrics.jsonl');
  if (!file) return [];
  const points: MetricPoint[] = [];
  try {
    await scanJsonLines(
      files,
      file.path,
      { end: file.size },
      ({ line, value }) => {
        const step = isRecord(value) ? toNumber(value.step) : undefined;
        if (!isRecord(value) || step === undefined) {
          problems.push({ file: file.path, line, message: `${file.path} line ${line}: expected {"step", ...metrics}` });
          return;
        }
        const values: Record<string, number> = {};
        for (const [k, v] of Object.entries(value))
          if (k !== 'step' && k !== 'time' && typeof v === 'number') values[k] = v;
        points.push({ step, values });
      },
      (p) => problems.push(p),
    );
  } catch (e) {
    problems.push({ file: file.path, message: why(e) });
  }
  return points.sort((a, b) => a.step - b.step);
}

export function primeRlFormat(tokenText?: (ids: number[]) => string[]): StepLinesFormat {
  return {
    format: 'prime-rl',
    stepOf(path) {
      const m = primeRlTraceFile.exec(path);
      return m && m[1] === undefined && m[3] === 'train'
        ? { step: Number(m[2]), order: m[4] === 'effective' ? 0 : 1 }
        : null;
    },
    chooseFiles: (paths) => paths.slice(0, 1),
    rowsOf(value): LineRow[] | string {
      if (!isRecord(value) || !Array.isArray(value.traces) || !('task' in value)) return `not an episode; ${expected}`;
      const group = isRecord(value.group) && typeof value.group.id === 'string' ? value.group.id : String(value.id);
      const traces = value.traces.filter(isRecord);
      if (traces.length === 0) {
        // An episode that failed before any trace: kept, so its errors are seen (file.py keeps them too).
        const prompt = isRecord(value.task) ? asText(value.task.data) : '';
        const extra = { episode: value.id, ok: value.ok, errors: value.errors };
        return [
          {
            group,
            completion: {
              prompt,
              completion: '',
              rewards: {},
              reward: Number.NaN,
              length: 0,
              lengthUnit: 'tokens',
              extra,
            },
          },
        ];
      }
      return traces.map((t) => ({ group, completion: traceRow(value, t, tokenText) }));
    },
    metrics: metricsFile,
    notes: [
      "prime-rl: each trace's reward is the sum of its rewards' score × weight (verifiers' Trace.reward); a step's " +
        '`train/effective` episodes are read where written, else `train/all` (those completed so far).',
    ],
    tokenText,
  };
}
