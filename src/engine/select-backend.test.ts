import { describe, expect, it } from 'vitest';
import { decideBackend, withWebGpuBuild } from './select-backend.ts';

const hardware = {
  adapter: { vendor: 'nvidia', architecture: 'ampere', device: '', description: '', software: false },
};

describe('withWebGpuBuild: a WebGPU choice needs its ORT build', () => {
  it('keeps the choice when the build can be fetched', () => {
    const d = decideBackend(null, hardware);
    expect(d.kind).toBe('webgpu');
    expect(withWebGpuBuild(d, null, null)).toEqual(d);
  });
  it("falls back to WASM, saying why, when the browser chose WebGPU and its build can't be fetched", () => {
    const d = withWebGpuBuild(decideBackend(null, hardware), null, 'Failed to fetch');
    expect(d.kind).toBe('wasm');
    expect(d.reason).toBe(
      "WASM: ONNX Runtime's WebGPU build could not be fetched (Failed to fetch); it is cached on first use online",
    );
    expect(d.adapter).toEqual(hardware.adapter);
  });
  it('keeps a forced WebGPU (its failure is reported) and leaves a WASM choice alone', () => {
    const forced = decideBackend('webgpu', hardware);
    expect(withWebGpuBuild(forced, 'webgpu', 'HTTP 503 Offline')).toEqual(forced);
    const wasm = decideBackend('wasm', hardware);
    expect(withWebGpuBuild(wasm, 'wasm', 'HTTP 503 Offline')).toEqual(wasm);
  });
});
