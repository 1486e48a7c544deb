"""The model side of the PyTorch peer (bench/torch_peer.py): safetensors in and out, and the playground's
GPT written as an ordinary nn.Module.

Model (mirrors src/model/transformer.ts): learned token + position embeddings, pre-LN blocks, separate
q/k/v projections with biases, q scaled by 1/sqrt(dh), causal mask as an additive -1e9 plus a key
padding bias, exact-erf GELU MLP, final LayerNorm (eps 1e-5), output head tied to wte.
Weights come from the same safetensors file (names as in paramSpecs; matrices stored [in, out]).
"""
import json
import math
import struct
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

MASKED = -1e9



# ----------------------------------------------------------------------------------------------- io

def read_safetensors(path):
    with open(path, 'rb') as f:
        data = f.read()
    (n,) = struct.unpack('<Q', data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == '__metadata__':
            continue
        if e['dtype'] != 'F32':
            raise ValueError(f'{path}: tensor {name} is {e["dtype"]}, expected F32')
        a, b = e['data_offsets']
        raw = bytearray(data[base + a:base + b])
        out[name] = torch.frombuffer(raw, dtype=torch.float32).reshape(e['shape']).clone()
    return out


def write_safetensors(path, tensors):
    header = {}
    offset = 0
    names = sorted(tensors)
    blobs = []
    for name in names:
        t = tensors[name].detach().contiguous().to(torch.float32)
        raw = t.numpy().tobytes()
        header[name] = {'dtype': 'F32', 'shape': list(t.shape), 'data_offsets': [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    h = json.dumps(header).encode()
    h += b' ' * ((8 - (8 + len(h)) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


# -------------------------------------------------------------------------------------------- model

class Block(nn.Module):
    def __init__(self, d, h, dff):
        super().__init__()
        self.h, self.dh = h, d // h
        self.ln1 = nn.LayerNorm(d, eps=1e-5)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln2 = nn.LayerNorm(d, eps=1e-5)
        self.fc1 = nn.Linear(d, dff)
        self.fc2 = nn.Linear(dff, d)

    def forward(self, x, bias, cache=None, start=0):
        B, T, D = x.shape
        n = self.ln1(x)
        q = self.q(n).view(B, T, self.h, self.dh).transpose(1, 2) * (1.0 / math.sqrt(self.dh))
        k = self.k(n).view(B, T, self.h, self.dh).transpose(1, 2)
        v = self.v(n).view(B, T, self.h, self.dh).transpose(1, 2)
        if cache is not None:  # static KV cache [B,H,Tmax,dh]: write this block's rows, attend to the prefix
            kc, vc = cache
            kc[:, :, start:start + T] = k
            vc[:, :, start:start + T] = v
            k, v = kc[:, :, :start + T], vc[:, :, :start + T]
        att = torch.softmax(q @ k.transpose(-1, -2) + bias, dim=-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(B, T, D))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))  # exact (erf) GELU


class GPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        d = c['dModel']
        self.wte = nn.Embedding(c['vocabSize'], d)
        self.wpe = nn.Embedding(c['contextLength'], d)
        self.blocks = nn.ModuleList(Block(d, c['nHeads'], c['dFF']) for _ in range(c['nLayers']))
        self.lnf = nn.LayerNorm(d, eps=1e-5)

    def forward(self, tokens, positions, bias, caches=None, start=0, last_only=False):
        x = self.wte(tokens) + self.wpe(positions)
        for i, b in enumerate(self.blocks):
            x = b(x, bias, None if caches is None else caches[i], start)
        if last_only:
            x = x[:, -1:]
        return self.lnf(x) @ self.wte.weight.t()  # tied head

    # our names <-> module parameters; our matrices are [in, out], nn.Linear's [out, in]
    def mapping(self):
        m = {
            'wte': (self.wte.weight, False), 'wpe': (self.wpe.weight, False),
            'lnf.g': (self.lnf.weight, False), 'lnf.b': (self.lnf.bias, False),
        }
        for l, b in enumerate(self.blocks):
            p = f'h{l}.'
            m.update({
                p + 'ln1.g': (b.ln1.weight, False), p + 'ln1.b': (b.ln1.bias, False),
                p + 'ln2.g': (b.ln2.weight, False), p + 'ln2.b': (b.ln2.bias, False),
                p + 'mlp.w1': (b.fc1.weight, True), p + 'mlp.b1': (b.fc1.bias, False),
                p + 'mlp.w2': (b.fc2.weight, True), p + 'mlp.b2': (b.fc2.bias, False),
            })
            for n, lin in (('q', b.q), ('k', b.k), ('v', b.v), ('o', b.o)):
                m[p + 'attn.w' + n] = (lin.weight, True)
                m[p + 'attn.b' + n] = (lin.bias, False)
        return m

    def load(self, weights):
        with torch.no_grad():
            for name, (param, transposed) in self.mapping().items():
                w = weights[name]
                param.copy_(w.t() if transposed else w)

    def export(self):
        return {n: (p.t() if tr else p).detach().clone() for n, (p, tr) in self.mapping().items()}


def sequence_bias(key_bias):
    """[B,T] key padding bias -> [B,1,T,T] causal + padding, as the graph builds it."""
    T = key_bias.shape[1]
    causal = torch.full((T, T), MASKED).triu(1)
    return causal[None, None] + key_bias[:, None, None, :]


def matmul_gflops(m, k, n, seconds):
    """GFLOP/s of repeated [m,k] x [k,n] matmuls over about `seconds`, after three warm-up products (both peers)."""
    a, b = torch.randn(m, k), torch.randn(k, n)
    for _ in range(3):
        a @ b
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        a @ b
        reps += 1
    return 2 * m * k * n * reps / (time.perf_counter() - t0) / 1e9
