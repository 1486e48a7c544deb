import type { InferenceSession, Tensor as OrtTensor } from 'onnxruntime-common';
import type { CompiledGraph, Signature } from './compile.ts';
import { fmt, size, type DType } from './shape.ts';

export type BackendKind = 'webgpu' | 'wasm' | 'node';
export type DeviceTensor = OrtTensor;
export type HostData = Float32Array | BigInt64Array | Uint8Array;

/** The slice of an onnxruntime module (node or web) that we use; both share onnxruntime-common's API. */
export interface OrtModule {
  InferenceSession: {
    create(buffer: Uint8Array, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  };
  Tensor: new (type: 'float32' | 'int64' | 'bool', data: HostData | boolean[], dims: readonly number[]) => OrtTensor;
}

export interface SessionOptions {
  /** Outputs that stay on the device (WebGPU: GPU buffers) because they are fed back as inputs. */
  deviceOutputs?: string[];
  /** Label used in error messages. */
  label?: string;
  /**
   * The session runs many small ops per run (a decode step), where a thread pool's hand-offs cost
   * more than the extra threads give: a backend whose thread count was left automatic runs it on one
   * thread. Measured with onnxruntime-node on two cores (docs/measured.md): sampling on one thread
   * was 1.8-2.9x faster than on two for the tiny model and as fast for the small one.
   */
  smallOps?: boolean;
}

/**
 * The ORT session options for one session: `base`, with one intra-op thread where `smallOps` asks and the thread count
 * is automatic (onnxruntime-node only; the web builds set threads globally).
 */
export function sessionOptionsFor(
  kind: BackendKind,
  base: InferenceSession.SessionOptions,
  opts: SessionOptions,
): InferenceSession.SessionOptions {
  const auto = !base.intraOpNumThreads;
  return kind === 'node' && opts.smallOps && auto ? { ...base, intraOpNumThreads: 1 } : { ...base };
}

export interface Session {
  readonly graph: CompiledGraph;
  /** Runs one step. Runs of one session are serialised (WebGPU rejects overlapping runs). */
  run(feeds: Record<string, DeviceTensor>): Promise<Record<string, DeviceTensor>>;
  release(): Promise<void>;
}

export interface Backend {
  readonly kind: BackendKind;
  /** Human-readable: which EP, adapter or thread count. */
  readonly description: string;
  /** Why this backend was chosen (shown in the UI status bar). */
  readonly reason: string;
  createSession(graph: CompiledGraph, opts?: SessionOptions): Promise<Session>;
  tensor(dtype: DType, data: HostData | ArrayLike<number>, shape: readonly number[]): DeviceTensor;
  read(t: DeviceTensor): Promise<Float32Array | BigInt64Array | Uint8Array>;
  dispose(t: DeviceTensor): void;
  /** Device tensors created by this backend's runs and not yet disposed (leak checks). */
  liveTensors(): number;
}

export class FeedError extends Error {}

function checkFeeds(label: string, inputs: Signature[], feeds: Record<string, DeviceTensor>): void {
  for (const s of inputs) {
    const t = feeds[s.name];
    if (!t) throw new FeedError(`${label}: missing input "${s.name}" (${s.dtype}${fmt(s.shape)})`);
    if (t.type !== s.dtype) throw new FeedError(`${label}: input "${s.name}" must be ${s.dtype}, got ${t.type}`);
    if (t.dims.length !== s.shape.length || t.dims.some((d, i) => d !== s.shape[i])) {
      throw new FeedError(`${label}: input "${s.name}" must have shape ${fmt(s.shape)}, got ${fmt(t.dims)}`);
    }
  }
  // Every input is present, so a feed count above the input count means an unexpected name.
  if (Object.keys(feeds).length !== inputs.length) {
    const expected = new Set(inputs.map((s) => s.name));
    const name = Object.keys(feeds).find((n) => !expected.has(n))!;
    throw new FeedError(`${label}: unexpected input "${name}" (expected: ${inputs.map((s) => s.name).join(', ')})`);
  }
}

/**
 * One implementation over onnxruntime-common's API for all three backends; they differ only in the
 * module, the execution providers and where outputs are kept.
 */
export class OrtBackend implements Backend {
  /**
   * Device outputs not yet disposed. Tracked by identity, not by `location`: reading a GPU tensor
   * (getData) flips its location to 'cpu' while it still holds its GPU buffer until disposed.
   */
  private readonly device = new Set<DeviceTensor>();

  constructor(
    private readonly ort: OrtModule,
    readonly kind: BackendKind,
    readonly description: string,
    readonly reason: string,
    private readonly baseOptions: InferenceSession.SessionOptions,
  ) {}

  async createSession(graph: CompiledGraph, opts: SessionOptions = {}): Promise<Session> {
    const label = opts.label ?? 'session';
    const device = new Set(opts.deviceOutputs ?? []);
    const options = sessionOptionsFor(this.kind, this.baseOptions, opts);
    if (this.kind === 'webgpu' && device.size) {
      const loc: Record<string, 'gpu-buffer' | 'cpu'> = {};
      for (const o of graph.outputs) loc[o.name] = device.has(o.name) ? 'gpu-buffer' : 'cpu';
      options.preferredOutputLocation = loc;
    }
    if (graph.externalData) options.externalData = graph.externalData;
    const session = await this.ort.InferenceSession.create(graph.bytes, options);
    let queue: Promise<unknown> = Promise.resolve();
    const backend = this;
    return {
      graph,
      async run(feeds) {
        checkFeeds(label, graph.inputs, feeds);
        const next = queue.then(async () => {
          const out = (await session.run(feeds)) as Record<string, DeviceTensor>;
          for (const t of Object.values(out)) if (t.location === 'gpu-buffer') backend.device.add(t);
          return out;
        });
        queue = next.catch(() => undefined);
        return next;
      },
      async release() {
        await queue;
        await session.release();
      },
    };
  }

  tensor(dtype: DType, data: HostData | ArrayLike<number>, shape: readonly number[]): DeviceTensor {
    const n = size(shape);
    let arr: HostData;
    if (dtype === 'float32') arr = data instanceof Float32Array ? data : Float32Array.from(data as ArrayLike<number>);
    else if (dtype === 'int64')
      arr = data instanceof BigInt64Array ? data : BigInt64Array.from(data as ArrayLike<number>, (v) => BigInt(v));
    else arr = data instanceof Uint8Array ? data : Uint8Array.from(data as ArrayLike<number>);
    if (arr.length !== n) throw new FeedError(`tensor: ${arr.length} values do not fill shape ${fmt(shape)}`);
    return dtype === 'bool'
      ? new this.ort.Tensor('bool', Array.from(arr as Uint8Array, Boolean), shape)
      : new this.ort.Tensor(dtype, arr, shape);
  }

  async read(t: DeviceTensor): Promise<Float32Array | BigInt64Array | Uint8Array> {
    return (await t.getData()) as Float32Array | BigInt64Array | Uint8Array;
  }

  dispose(t: DeviceTensor): void {
    this.device.delete(t);
    t.dispose();
  }

  liveTensors(): number {
    return this.device.size;
  }
}
