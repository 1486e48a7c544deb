/**
 * The batched KV-cache sampler (Policy.sample): a prefill over the distinct prompts, then one decode run a
 * token, with the caches on the device (WebGPU) or on the host (CPU backends).
 */
import type { Backend, DeviceTensor, Session, SessionOptions } from '../engine/backend.ts';
import type { Graph } from '../engine/graph.ts';
import type { Rng } from '../util/rng.ts';
import type { ModelConfig } from './config.ts';
import { buildDecodeGraph, buildPrefillGraph } from './graphs.ts';
import { leftPad, promptGroups, type Layout } from './layout.ts';
import { drawToken, type SamplingParams } from './sampling.ts';
import { PAD } from './tokenizer.ts';
import { MASKED } from './transformer.ts';

export interface Completion {
  tokens: number[]; // generated tokens, EOS included when emitted
  logp: number[]; // sampling-time log-prob per token ("old policy")
  entropy: number[];
  truncated: boolean; // hit the length cap without EOS
}

/** What the sampler needs of a Policy: its weights as feeds, its sessions and its stop rule. */
export interface SamplerHost {
  readonly backend: Backend;
  readonly config: ModelConfig;
  readonly layout: Layout;
  readonly params: Record<string, DeviceTensor>;
  readonly stopTokens: ReadonlySet<number>;
  /** After each sampled token column: the Policy's onDecode as it is at that moment (a hook may be unset mid-batch). */
  decoded(tokens: number, maxTokens: number): void;
  session(key: string, build: () => Graph, opts?: Omit<SessionOptions, 'label'>): Promise<Session>;
}

/**
 * Generates one completion per prompt row in a single batch: one prefill run over the prompts gives
 * their keys and values and the first token, then the decode graph adds one token per run. When the
 * rows come in equal groups of the same prompt (a GRPO batch: row r continues prompt ⌊r / G⌋), the
 * prompt is passed, and its keys and values kept and read, once per group.
 */
export async function sampleBatch(
  policy: SamplerHost,
  prompts: number[][],
  sp: SamplingParams,
  maxNewTokens: number,
  rng: Rng,
): Promise<Completion[]> {
  const { promptLen, completionLen } = policy.layout;
  const rows = prompts.length;
  const maxNew = Math.min(maxNewTokens, completionLen);
  const c = policy.config;
  const dh = c.dModel / c.nHeads;
  const cacheNames = Array.from({ length: c.nLayers }, (_, l) => [`k${l}`, `v${l}`]).flat();
  // On the GPU the completion caches stay device-resident; on CPU backends the host keeps them and the
  // decode graph returns only the new column (copying whole caches in and out every step dominated the time).
  const deviceCache = policy.backend.kind === 'webgpu';
  if (maxNew <= 0) return prompts.map(() => ({ tokens: [], logp: [], entropy: [], truncated: true }));
  const { rowOf, first } = promptGroups(prompts);
  const group = rows / first.length;
  const grouped = Number.isInteger(group) && rowOf.every((u, r) => u === Math.floor(r / group));
  const promptRows = grouped ? first.map((r) => prompts[r]!) : prompts;
  const u = promptRows.length;
  const G = rows / u;
  const prefillSession = await policy.session(`prefill:${u}x${promptLen}`, () => buildPrefillGraph(c, u, promptLen), {
    deviceOutputs: deviceCache ? cacheNames.map((n) => 'cache.' + n) : [],
    smallOps: true,
  });
  const session = await policy.session(
    `decode:${u}>${rows}x${promptLen}+${completionLen}:${deviceCache}`,
    () => buildDecodeGraph(c, u, rows, promptLen, completionLen, deviceCache),
    { deviceOutputs: deviceCache ? cacheNames.map((n) => 'new.' + n) : [], smallOps: true },
  );
  const pads = prompts.map((p) => leftPad(policy.layout, p));
  const out: Completion[] = prompts.map(() => ({ tokens: [], logp: [], entropy: [], truncated: false }));
  const done = new Array<boolean>(rows).fill(false);
  const scratch = new Float64Array(2 * c.vocabSize);
  // The repetition penalty reads each row's tokens so far, prompt included (as generate()'s input_ids).
  const seen = (sp.repetitionPenalty ?? 1) !== 1 ? prompts.map((p) => new Set(p)) : null;
  // `perPrompt`: the logits hold one row per prompt (the prefill's), shared by its group.
  const draw = async (logitsTensor: DeviceTensor, produced: number, perPrompt: boolean) => {
    const logits = (await policy.backend.read(logitsTensor)) as Float32Array;
    policy.backend.dispose(logitsTensor);
    for (let r = 0; r < rows; r++) {
      if (done[r]) continue;
      const d = drawToken(
        logits,
        (perPrompt ? Math.floor(r / G) : r) * c.vocabSize,
        c.vocabSize,
        sp,
        rng,
        scratch,
        seen?.[r],
      );
      if (seen) seen[r]!.add(d.token);
      const o = out[r]!;
      o.tokens.push(d.token);
      o.logp.push(d.logp);
      o.entropy.push(d.entropy);
      if (policy.stopTokens.has(d.token)) done[r] = true;
    }
    policy.decoded(produced, maxNew);
  };

  const prompt = promptFeeds(
    policy.backend,
    policy.layout,
    promptRows,
    promptRows.map((p) => leftPad(policy.layout, p)),
  );
  const pre = await prefillSession.run({ ...policy.params, ...prompt });
  const promptCaches: Record<string, DeviceTensor> = {};
  for (const n of cacheNames) promptCaches['p' + n] = pre['cache.' + n]!;
  const host: Record<string, Float32Array> = {};
  const cache: Record<string, DeviceTensor> = {};
  for (const n of cacheNames) {
    host[n] = new Float32Array(rows * c.nHeads * completionLen * dh);
    cache[n] = policy.backend.tensor('float32', host[n]!, [rows, c.nHeads, completionLen, dh]);
  }
  const tok = new BigInt64Array(rows);
  const pos = new BigInt64Array(rows);
  // Completion columns visible to column j: every one before it (the token itself is scored apart).
  const keyBias = new Float32Array(rows * completionLen).fill(MASKED);
  try {
    await draw(pre['logits']!, 1, true);
    // Completion column j holds completion token j; its logits give the next one.
    for (let j = 0; j < maxNew - 1 && !done.every(Boolean); j++) {
      for (let r = 0; r < rows; r++) {
        tok[r] = BigInt(out[r]!.tokens[j] ?? PAD);
        pos[r] = BigInt(promptLen + j - pads[r]!);
        if (j > 0) keyBias[r * completionLen + j - 1] = 0;
      }
      const res = await session.run({
        ...policy.params,
        ...promptCaches,
        ...cache,
        tok: policy.backend.tensor('int64', tok, [rows]),
        pos: policy.backend.tensor('int64', pos, [rows]),
        step: policy.backend.tensor('int64', BigInt64Array.of(BigInt(j)), []),
        prompt_bias: prompt['key_bias']!,
        key_bias: policy.backend.tensor('float32', keyBias, [rows, completionLen]),
      });
      if (deviceCache) {
        for (const n of cacheNames) {
          policy.backend.dispose(cache[n]!);
          cache[n] = res['new.' + n]!;
        }
      } else {
        const cols = (await policy.backend.read(res['new.kv']!)) as Float32Array;
        cacheNames.forEach((n, i) =>
          writeColumn(host[n]!, cols, i * rows * c.nHeads * dh, rows * c.nHeads, completionLen, j, dh),
        );
        policy.backend.dispose(res['new.kv']!);
      }
      await draw(res['logits']!, j + 2, false);
    }
  } finally {
    for (const t of [...Object.values(promptCaches), ...Object.values(cache)]) policy.backend.dispose(t);
  }
  for (let r = 0; r < rows; r++) out[r]!.truncated = !done[r];
  return out;
}

/**
 * The left-padded prompts as the prefill graph's inputs (pad columns masked, positions from 0 at each prompt's start).
 */
function promptFeeds(
  backend: Backend,
  layout: Layout,
  prompts: number[][],
  pads: number[],
): Record<string, DeviceTensor> {
  const { promptLen } = layout;
  const rows = prompts.length;
  const tokens = new BigInt64Array(rows * promptLen);
  const positions = new BigInt64Array(rows * promptLen);
  const keyBias = new Float32Array(rows * promptLen);
  for (let r = 0; r < rows; r++)
    for (let col = 0; col < promptLen; col++) {
      const k = col - pads[r]!;
      tokens[r * promptLen + col] = BigInt(k >= 0 ? prompts[r]![k]! : PAD);
      positions[r * promptLen + col] = BigInt(Math.max(0, k));
      keyBias[r * promptLen + col] = k >= 0 ? 0 : MASKED;
    }
  return {
    tokens: backend.tensor('int64', tokens, [rows, promptLen]),
    positions: backend.tensor('int64', positions, [rows, promptLen]),
    key_bias: backend.tensor('float32', keyBias, [rows, promptLen]),
  };
}

/**
 * Copies one decode step's key (or value) rows, [rowsHeads, dh] starting at `from` in `cols`, into
 * column `s` of a host cache [rowsHeads, tmax, dh]. A plain loop in its own small function: views per
 * (row, head) were most of the JS time and garbage, and inside the long async sampler V8 ran this loop
 * about 5× slower than here.
 */
function writeColumn(
  cache: Float32Array,
  cols: Float32Array,
  from: number,
  rowsHeads: number,
  tmax: number,
  s: number,
  dh: number,
): void {
  for (let rh = 0, src = from; rh < rowsHeads; rh++)
    for (let j = 0, dst = (rh * tmax + s) * dh; j < dh; j++) cache[dst + j] = cols[src++]!;
}
