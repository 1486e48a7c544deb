#!/usr/bin/env python3
"""The PyTorch + PEFT peer of `rlvr bench --presets smollm2-135m` (bench/llama.ts): transformers'
LlamaForCausalLM with PEFT LoRA adapters, eager (no torch.compile), CPU, float32, the same weights
(base and adapters) from the same safetensors file as ours, and the same batches.

Protocol as bench/torch_peer.py: one JSON command per line on stdin, one JSON reply per line on
stdout (`ok` true/false). Run with the project's .venv-py (scripts/setup-python.sh: torch, transformers,
peft; nothing is downloaded).

Peak memory: VmHWM of this process (/proc/self/status) after resetting it (write 5 to
/proc/self/clear_refs) just before the measured call, so it is that call's peak resident set.
"""
import json
import sys
import time

import torch

# The safetensors reader and the additive mask value shared with the GPT-2 peer (this script's folder).
from torch_peer_model import MASKED, matmul_gflops, read_safetensors

EOS = 1


def rss_kib(field):
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1])
    return 0


def reset_peak():
    try:
        with open('/proc/self/clear_refs', 'w') as f:
            f.write('5')
        return True
    except OSError:
        return False


def memory(before_kib, reset_ok):
    """MiB: the resident set before the call, and its peak during the call (null if the peak could not be reset)."""
    return {'rss_before_mib': before_kib / 1024, 'peak_rss_mib': rss_kib('VmHWM') / 1024 if reset_ok else None}


# ours -> transformers' LlamaForCausalLM (our matrices are [in, out], nn.Linear's [out, in])
LINEARS = {'attn.wq': 'self_attn.q_proj', 'attn.wk': 'self_attn.k_proj', 'attn.wv': 'self_attn.v_proj',
           'attn.wo': 'self_attn.o_proj', 'mlp.wg': 'mlp.gate_proj', 'mlp.wu': 'mlp.up_proj', 'mlp.wd': 'mlp.down_proj'}


def setup_model(cmd):
    from peft import LoraConfig, get_peft_model, set_peft_model_state_dict
    from transformers import LlamaConfig, LlamaForCausalLM

    c = cmd['config']
    hf = LlamaConfig(
        vocab_size=c['vocabSize'], hidden_size=c['dModel'], intermediate_size=c['dFF'],
        num_hidden_layers=c['nLayers'], num_attention_heads=c['nHeads'], num_key_value_heads=c['nKvHeads'],
        max_position_embeddings=c['contextLength'], rms_norm_eps=c['normEps'], rope_theta=c['ropeTheta'],
        tie_word_embeddings=True, hidden_act='silu', attention_bias=False, mlp_bias=False,
        bos_token_id=None, eos_token_id=EOS, pad_token_id=0,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(hf).to(torch.float32)
    w = read_safetensors(cmd['weights'])
    sd = {'model.embed_tokens.weight': w['wte'], 'model.norm.weight': w['lnf.g']}
    for l in range(c['nLayers']):
        sd[f'model.layers.{l}.input_layernorm.weight'] = w[f'h{l}.ln1.g']
        sd[f'model.layers.{l}.post_attention_layernorm.weight'] = w[f'h{l}.ln2.g']
        for ours, theirs in LINEARS.items():
            sd[f'model.layers.{l}.{theirs}.weight'] = w[f'h{l}.{ours}'].t().contiguous()
    missing, unexpected = model.load_state_dict(sd, strict=False)
    missing = [k for k in missing if k != 'lm_head.weight']  # tied to embed_tokens
    if missing or unexpected:
        raise ValueError(f'base weights: missing {missing[:5]}, unexpected {unexpected[:5]}')
    lora = c['lora']
    model = get_peft_model(model, LoraConfig(r=lora['r'], lora_alpha=lora['alpha'], target_modules=lora['targets'],
                                             lora_dropout=0.0, bias='none', task_type='CAUSAL_LM'))
    ad = {}
    for l in range(c['nLayers']):
        for ours, theirs in LINEARS.items():
            if theirs.split('.')[1] not in lora['targets']:
                continue
            p = f'base_model.model.model.layers.{l}.{theirs}'
            ad[p + '.lora_A.weight'] = w[f'h{l}.{ours}.lora_A'].t().contiguous()  # ours [in, r] -> [r, in]
            ad[p + '.lora_B.weight'] = w[f'h{l}.{ours}.lora_B'].t().contiguous()  # ours [r, out] -> [out, r]
    res = set_peft_model_state_dict(model, ad)
    if getattr(res, 'unexpected_keys', None):
        raise ValueError(f'adapter weights: unexpected {res.unexpected_keys[:5]}')
    del w, sd, ad
    model.train()
    a = cmd['adam']
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(
        params, lr=cmd['lr'], betas=(a['beta1'], a['beta2']), eps=a['eps'], weight_decay=a['weightDecay']
    )
    return {'model': model, 'opt': opt, 'params': params, 'adam': a,
            'trainable': sum(p.numel() for p in params), 'total': sum(p.numel() for p in model.parameters()),
            'attn_implementation': model.config._attn_implementation}


def load_batch(path):
    with open(path) as f:
        b = json.load(f)
    R, L = b['rows'], b['len']
    f = lambda k: torch.tensor(b[k], dtype=torch.float32).view(R, L)
    i = lambda k: torch.tensor(b[k], dtype=torch.int64).view(R, L)
    return {
        'tokens': i('tokens'), 'positions': i('positions'), 'attention_mask': (f('key_bias') == 0).to(torch.int64),
        'targets': i('targets'), 'old_logp': f('old_logp'), 'advantages': f('advantages'), 'weights': f('weights'),
        'mask': f('mask'), 'inv_temperature': b['inv_temperature'],
        'clip_low': b['clip_low'], 'clip_high': b['clip_high'],
        'tokens_counted': b['tokens_counted'], 'promptLen': b['promptLen'], 'len': L,
    }


def grpo_update(st, b):
    """Scoring forward (logits only from the column before the first completion token on), token-level
    clipped GRPO objective, backward, clip_grad_norm_, AdamW on the adapters."""
    m, opt = st['model'], st['opt']
    lo = b['promptLen'] - 1
    keep = b['len'] - lo
    out = m(input_ids=b['tokens'], attention_mask=b['attention_mask'], position_ids=b['positions'],
            use_cache=False, logits_to_keep=keep)
    logits = out.logits[:, :-1] * b['inv_temperature']  # columns lo .. len-2 predict the completion tokens
    logprobs = torch.log_softmax(logits, dim=-1)
    sl = slice(lo, b['len'] - 1)
    logp = logprobs.gather(-1, b['targets'][:, sl].unsqueeze(-1)).squeeze(-1)
    ratio = torch.exp(logp - b['old_logp'][:, sl])
    A = b['advantages'][:, sl]
    obj = torch.minimum(ratio * A, torch.clamp(ratio, b['clip_low'], b['clip_high']) * A)
    loss = (b['weights'][:, sl] * -obj).sum()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(st['params'], st['adam']['maxGradNorm'])
    opt.step()
    full = torch.zeros_like(b['old_logp'])
    full[:, sl] = logp.detach()
    return loss.detach(), full * b['mask'], gn


@torch.inference_mode()
def sample(m, rows, n_new, temperature, gen):
    """len(rows) completions of exactly n_new tokens (EOS ignored) with transformers' KV cache
    (DynamicCache): one prefill over the equal-length prompts, then one token per step."""
    ids = torch.tensor(rows, dtype=torch.int64)
    out = m(input_ids=ids, use_cache=True, logits_to_keep=1)
    past = out.past_key_values
    logits = out.logits[:, -1]
    toks = []
    for i in range(n_new):
        lp = torch.log_softmax(logits / temperature, dim=-1)
        tok = torch.multinomial(lp.exp(), 1, generator=gen)
        toks.append(tok)
        if i == n_new - 1:
            break
        out = m(input_ids=tok, past_key_values=past, use_cache=True, logits_to_keep=1)
        past = out.past_key_values
        logits = out.logits[:, -1]
    return torch.cat(toks, 1)


def handle(peer, cmd):
    c = cmd['cmd']
    if c == 'init':
        import peft
        import transformers
        torch.set_num_threads(cmd['threads'])
        cfg = torch.__config__.show()
        blas = next((l.split('=', 1)[1].split(',')[0] for l in cfg.split() if l.startswith('BLAS_INFO=')), 'unknown')
        return {'torch': torch.__version__, 'transformers': transformers.__version__, 'peft': peft.__version__,
                'python': sys.version.split()[0], 'threads': torch.get_num_threads(), 'blas': blas}
    if c == 'load':
        st = setup_model(cmd)
        peer[cmd['id']] = st
        return {
            'parameters': st['total'], 'trainable': st['trainable'],
            'attn_implementation': st['attn_implementation'],
        }
    if c == 'gemm':  # SmolLM2-135M's matmuls (bench/gemm.ts llamaGemms times ours)
        return {'gflops': [matmul_gflops(m, k, n, 0.5) for m, k, n in cmd['shapes']]}
    st = peer[cmd['id']]
    if c == 'update':  # also the check: the first update's log-probs, loss and grad norm come back
        b = load_batch(cmd['batch'])
        before, ok = rss_kib('VmRSS'), reset_peak()
        t0 = time.perf_counter()
        loss, logp, gn = grpo_update(st, b)
        ms = (time.perf_counter() - t0) * 1e3
        r = {'ms': ms, 'loss': float(loss), 'grad_norm': float(gn), 'tokens': b['tokens_counted'], **memory(before, ok)}
        if cmd.get('values'):
            r['logp'] = logp.flatten().tolist()
        return r
    if c == 'sample':
        with open(cmd['batch']) as f:
            s = json.load(f)
        gen = torch.Generator().manual_seed(cmd.get('seed', 0))
        before, ok = rss_kib('VmRSS'), reset_peak()
        t0 = time.perf_counter()
        toks = sample(st['model'], s['rows'], cmd['steps'], s['temperature'], gen)
        ms = (time.perf_counter() - t0) * 1e3
        return {'ms': ms, 'steps': int(toks.shape[1]), **memory(before, ok)}
    if c == 'dispose':
        del peer[cmd['id']]
        return {}
    raise ValueError(f'unknown command {c!r}')


def main():
    peer = {}
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
