#!/usr/bin/env python3
"""The PyTorch peer of `rlvr bench` (src/cli/commands/bench.ts): the same model and the same GRPO step
written the ordinary PyTorch way (nn.Module, eager, CPU, torch.optim.AdamW), driven from Node.

Protocol: one JSON command per line on stdin, one JSON reply per line on stdout (`ok` true/false).
Large inputs (batches) come as JSON files written by the Node side, so both compute on identical
inputs; files are parsed once and cached, outside every timed region.

The model (mirroring src/model/transformer.ts) and safetensors I/O are in bench/torch_peer_model.py.
"""
import json
import sys
import time

import torch

from torch_peer_model import MASKED, GPT, matmul_gflops, read_safetensors, sequence_bias, write_safetensors

PAD = 0
EOS = 1


# ----------------------------------------------------------------------------------------- peer state

class Peer:
    def __init__(self):
        self.models = {}
        self.files = {}

    def load_json(self, path):
        if path not in self.files:
            with open(path) as f:
                self.files[path] = json.load(f)
        return self.files[path]

    def batch(self, path):
        """An update batch as tensors (cached)."""
        key = ('t', path)
        if key not in self.files:
            b = self.load_json(path)
            R, L = b['rows'], b['len']
            f = lambda k: torch.tensor(b[k], dtype=torch.float32).view(R, L)
            i = lambda k: torch.tensor(b[k], dtype=torch.int64).view(R, L)
            self.files[key] = {
                'tokens': i('tokens'), 'positions': i('positions'), 'key_bias': f('key_bias'),
                'targets': i('targets').unsqueeze(-1), 'old_logp': f('old_logp'), 'advantages': f('advantages'),
                'weights': f('weights'), 'mask': f('mask'), 'inv_temperature': b['inv_temperature'],
                'clip_low': b['clip_low'], 'clip_high': b['clip_high'], 'tokens_counted': b['tokens_counted'],
            }
        return self.files[key]


def setup_model(cmd):
    torch.manual_seed(0)
    m = GPT(cmd['config'])
    m.load(read_safetensors(cmd['weights']))
    a = cmd['adam']
    opt = torch.optim.AdamW(
        m.parameters(), lr=cmd['lr'], betas=(a['beta1'], a['beta2']), eps=a['eps'], weight_decay=a['weightDecay']
    )
    return {'model': m, 'opt': opt, 'adam': a, 'lr': cmd['lr'], 'cmd': cmd}


def grpo_update(st, b):
    """One GRPO update: scoring forward, token-level clipped objective, backward, clip, AdamW."""
    m, opt = st['model'], st['opt']
    logits = m(b['tokens'], b['positions'], sequence_bias(b['key_bias'])) * b['inv_temperature']
    logprobs = torch.log_softmax(logits, dim=-1)
    logp = logprobs.gather(-1, b['targets']).squeeze(-1)
    with torch.no_grad():  # logged, as TRL does; not part of the loss (entropy_coef 0)
        entropy = -(logprobs.exp() * logprobs).sum(-1)
    ratio = torch.exp(logp - b['old_logp'])
    A = b['advantages']
    obj = torch.minimum(ratio * A, torch.clamp(ratio, b['clip_low'], b['clip_high']) * A)
    loss = (b['weights'] * -obj).sum()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(m.parameters(), st['adam']['maxGradNorm'])
    opt.step()
    return loss.detach(), logp.detach(), entropy, gn


@torch.inference_mode()
def sample(m, prompts, prompt_len, completion_len, n_new, temperature, gen, stop_eos):
    """G×P completions with a static KV cache: one prefill over the left-padded prompts, then one
    token per step. stop_eos=False generates exactly n_new tokens per row (fixed-length throughput)."""
    c = m.c
    B = len(prompts)
    tmax = prompt_len + completion_len
    H, dh = c['nHeads'], c['dModel'] // c['nHeads']
    pads = torch.tensor([prompt_len - len(p) for p in prompts])
    toks = torch.zeros(B, prompt_len, dtype=torch.int64)
    for r, p in enumerate(prompts):
        if p:
            toks[r, prompt_len - len(p):] = torch.tensor(p)
    cols = torch.arange(tmax)
    key_bias = torch.where(cols[None, :] >= pads[:, None], 0.0, MASKED)  # [B,Tmax]
    positions = (cols[None, :prompt_len] - pads[:, None]).clamp(min=0)
    caches = [(torch.zeros(B, H, tmax, dh), torch.zeros(B, H, tmax, dh)) for _ in range(c['nLayers'])]
    logits = m(toks, positions, sequence_bias(key_bias[:, :prompt_len]), caches, 0, last_only=True)[:, 0]
    out_tok = torch.empty(B, n_new, dtype=torch.int64)
    out_logp = torch.empty(B, n_new)
    out_ent = torch.empty(B, n_new)
    done = torch.zeros(B, dtype=torch.bool)
    steps = 0
    for i in range(n_new):
        lp = torch.log_softmax(logits / temperature, dim=-1)
        tok = torch.multinomial(lp.exp(), 1, generator=gen)  # [B,1]
        out_tok[:, i] = tok[:, 0]
        out_logp[:, i] = lp.gather(-1, tok)[:, 0]
        out_ent[:, i] = -(lp.exp() * lp).sum(-1)
        steps = i + 1
        if stop_eos:
            done |= tok[:, 0] == EOS
            if bool(done.all()):
                break
        if i == n_new - 1:
            break
        col = prompt_len + i
        feed = torch.where(done[:, None], PAD, tok) if stop_eos else tok
        pos = (col - pads)[:, None]
        logits = m(feed, pos, key_bias[:, None, None, :col + 1], caches, col)[:, 0]
    tokens = out_tok[:, :steps].tolist()
    logps = out_logp[:, :steps].tolist()
    ents = out_ent[:, :steps].tolist()
    comps = []
    for r in range(B):
        t = tokens[r]
        n = t.index(EOS) + 1 if (stop_eos and EOS in t) else len(t)
        comps.append({'tokens': t[:n], 'logp': logps[r][:n], 'entropy': ents[r][:n], 'truncated': EOS not in t[:n]})
    return comps, steps


def pack(prompts, comps, prompt_len, completion_len):
    """layout.ts pack(): left-padded prompts, right-padded completions, positions skip the padding."""
    R, L = len(prompts), prompt_len + completion_len
    tokens = torch.zeros(R, L, dtype=torch.int64)
    positions = torch.zeros(R, L, dtype=torch.int64)
    key_bias = torch.full((R, L), MASKED)
    targets = torch.zeros(R, L, dtype=torch.int64)
    for r in range(R):
        pad = prompt_len - len(prompts[r])
        seq = prompts[r] + comps[r][:completion_len]
        n = len(seq)
        tokens[r, pad:pad + n] = torch.tensor(seq)
        positions[r, pad:] = torch.arange(L - pad)
        key_bias[r, pad:pad + n] = 0
        # the column before the prompt predicts its first token, as layout.ts does
        lo = max(0, pad - 1)
        if pad + n - 1 > lo:
            targets[r, lo:pad + n - 1] = torch.tensor(seq[lo - pad + 1:])
    return tokens, positions, key_bias, targets


def decode(ids, spec):
    s = []
    nspec = len(spec['specials'])
    for i in ids:
        if i >= nspec:
            s.append(spec['chars'][i - nspec])
        elif i >= 2:
            s.append(spec['specials'][i])
    return ''.join(s)


def verify(text, answer):
    """Trivial verifier: the <answer> tag's content equals the reference answer (1.0) or not (0.0)."""
    a = text.find('<answer>')
    b = text.find('</answer>', a + 1)
    return 1.0 if a >= 0 and b > a and text[a + 8:b].strip() == answer else 0.0


def whole_step(st, s, spec, gen):
    """sample (EOS stops a row) -> verify -> group advantages -> one GRPO update, as Trainer.trainStep."""
    t0 = time.perf_counter()
    G, P = s['G'], len(s['prompts'])
    rows = [p for p in s['prompts'] for _ in range(G)]
    comps, _ = sample(
        st['model'], rows, s['promptLen'], s['completionLen'], s['completionLen'], s['temperature'], gen, True
    )
    t1 = time.perf_counter()
    rewards = torch.tensor(
        [verify(decode(c['tokens'], spec), s['answers'][r // G]) for r, c in enumerate(comps)]
    ).view(P, G)
    adv = (rewards - rewards.mean(1, keepdim=True)) / (rewards.std(1, keepdim=True) + 1e-4)
    t2 = time.perf_counter()
    # the trainer's fitted grid (layout.ts fitCompletions): completion columns up to the longest, in multiples of 8
    longest = max(1, max(min(len(c['tokens']), s['completionLen']) for c in comps))
    fitted = min(s['completionLen'], -(-longest // 8) * 8)
    tokens, positions, key_bias, targets = pack(rows, [c['tokens'] for c in comps], s['promptLen'], fitted)
    R, L = tokens.shape
    old = torch.zeros(R, L)
    A = torch.zeros(R, L)
    w = torch.zeros(R, L)
    for r, c in enumerate(comps):
        n = min(len(c['tokens']), fitted)
        c0 = s['promptLen'] - 1
        old[r, c0:c0 + n] = torch.tensor(c['logp'][:n])
        A[r, c0:c0 + n] = adv[r // G, r % G]
        w[r, c0:c0 + n] = 1.0 / (max(1, n) * R)  # loss_type grpo: mean per sequence, then over sequences
    b = {'tokens': tokens, 'positions': positions, 'key_bias': key_bias, 'targets': targets.unsqueeze(-1),
         'old_logp': old, 'advantages': A, 'weights': w, 'inv_temperature': 1.0 / s['temperature'],
         'clip_low': s['clip_low'], 'clip_high': s['clip_high']}
    grpo_update(st, b)
    t3 = time.perf_counter()
    return {'ms': (t3 - t0) * 1e3, 'sampling_ms': (t1 - t0) * 1e3, 'verify_ms': (t2 - t1) * 1e3,
            'update_ms': (t3 - t2) * 1e3,
            'sampled_tokens': sum(len(c['tokens']) for c in comps), 'accuracy': float(rewards.mean())}


def blas_check():
    cfg = torch.__config__.show()
    blas = next((l.strip() for l in cfg.splitlines() if 'BLAS_INFO' in l), '')
    return {'gflops_512': matmul_gflops(512, 512, 512, 0.3), 'build': blas[:60] + '...' if blas else ''}


def mlp_gemm():
    """The small model's MLP on a 64 x 64 update grid, [4096,256] x [256,1024] (bench/gemm.ts times ours)."""
    return matmul_gflops(4096, 256, 1024, 0.5)


# --------------------------------------------------------------------------------------------- main

def handle(peer, cmd):
    c = cmd['cmd']
    if c == 'init':
        torch.set_num_threads(cmd['threads'])
        return {'torch': torch.__version__, 'python': sys.version.split()[0], 'threads': torch.get_num_threads(),
                'interop_threads': torch.get_num_interop_threads(), 'blas': blas_check()}
    if c == 'gemm':
        return {'gflops': mlp_gemm()}
    if c == 'load':
        peer.models[cmd['id']] = setup_model(cmd)
        return {'parameters': sum(p.numel() for p in peer.models[cmd['id']]['model'].parameters())}
    st = peer.models[cmd['id']]
    if c == 'check':
        # Fresh model from the same file: one update on the given batch; logp, loss, grad norm and the
        # updated weights come back for comparison with ours.
        fresh = setup_model(st['cmd'])
        b = peer.batch(cmd['batch'])
        loss, logp, entropy, gn = grpo_update(fresh, b)
        write_safetensors(cmd['out'], fresh['model'].export())
        # our pack() must match ours: rebuild the grid from the raw rows and compare
        raw = peer.load_json(cmd['batch'])
        tk, ps, kb, tg = pack(raw['prompts'], raw['completions'], raw['promptLen'], raw['completionLen'])
        same_pack = bool(
            torch.equal(tk, b['tokens']) and torch.equal(ps, b['positions'])
            and torch.equal(kb, b['key_bias']) and torch.equal(tg, b['targets'][..., 0])
        )
        return {
            'loss': float(loss), 'logp': logp.flatten().tolist(), 'entropy': entropy.flatten().tolist(),
            'grad_norm': float(gn), 'pack_matches': same_pack,
        }
    if c == 'sample':
        s = peer.load_json(cmd['batch'])
        gen = torch.Generator().manual_seed(cmd.get('seed', 0))
        t0 = time.perf_counter()
        comps, steps = sample(
            st['model'], s['rows'], s['promptLen'], s['completionLen'], cmd['steps'], s['temperature'], gen,
            cmd.get('stop_eos', False),
        )
        ms = (time.perf_counter() - t0) * 1e3
        return {'ms': ms, 'steps': steps, 'tokens': sum(len(x['tokens']) for x in comps)}
    if c == 'update':
        b = peer.batch(cmd['batch'])
        t0 = time.perf_counter()
        loss, _, _, gn = grpo_update(st, b)
        ms = (time.perf_counter() - t0) * 1e3
        return {'ms': ms, 'loss': float(loss), 'grad_norm': float(gn), 'tokens': b['tokens_counted']}
    if c == 'step':
        s = peer.load_json(cmd['batch'])
        gen = torch.Generator().manual_seed(cmd.get('seed', 0))
        return whole_step(st, s, s['tokenizer'], gen)
    raise ValueError(f'unknown command {c!r}')


def main():
    peer = Peer()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            reply = {'ok': True, **handle(peer, json.loads(line))}
        except Exception as e:  # reported to Node, which stops the bench with the message
            import traceback
            reply = {'ok': False, 'error': f'{type(e).__name__}: {e}\n{traceback.format_exc()[-1500:]}'}
        sys.stdout.write(json.dumps(reply) + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
