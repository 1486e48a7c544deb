"""Records a TRL GRPO run in the rlvr playground's run-record format (rlvr_record.py), so it opens in
the playground's inspector.

RecordingGRPOTrainer is GRPOTrainer plus a capture of what each generation batch produced (TRL itself
is unchanged): the prompts, the completion token ids (the exported model uses the playground's
tokenizer, so ids map 1:1), the rewards TRL computed per reward function (gathered over processes),
the advantages it trains on, and the sampling policy's per-token log-probs (one forward pass of the
model that generated them, on the same tokens, before the batch's first update). A TrainerCallback
adds TRL's logged metrics under the playground's metric keys where they
mean the same thing (src/rl/metrics.ts), and writes the file when training ends. Only the main
process writes, with every process's completions.

One recorded step is one generation batch (one playground step); TRL's per-token update numbers
(ratio, clipping, per-token loss) stay inside its loss and are not recorded.
"""
import datetime
import json
import math
import os
import shlex
import sys

import torch
import trl
from accelerate.utils import gather_object
from transformers import TrainerCallback
from trl import GRPOTrainer

import rewards
from rlvr_record import RunRecordWriter, advantage_histogram

# TRL's logged metric -> the playground's key, for those that are the same quantity (src/rl/metrics.ts).
# Not mapped: learning_rate (the Trainer logs the rate of the step after), num_tokens, the terminated
# lengths, clip_ratio/low_min and high_max, step_time and epoch (no playground metric).
SAME_METRICS = [
    "reward",
    "completions/mean_length",
    "completions/max_length",
    "completions/min_length",
    "completions/clipped_ratio",
    "entropy",
    "kl",
    "clip_ratio/low_mean",
    "clip_ratio/high_mean",
    "clip_ratio/region_mean",
    "grad_norm",
    "loss",
]


def base_of(model):
    """The playground checkpoint the model was exported from (config.json's rlvr_playground), or None."""
    meta = getattr(model.config, "rlvr_playground", None)
    if not isinstance(meta, dict) or not isinstance(meta.get("manifest"), dict):
        return None
    return {"name": meta["manifest"].get("name", meta.get("checkpoint", "")), "manifest": meta["manifest"]}


def model_base_of(model, tokenizer):
    """Another model's base, as Hugging Face describes it (as python/rlvr_playground/provenance.py base_of does)."""
    config = model.config
    architectures = getattr(config, "architectures", None) or [type(model).__name__]
    where = getattr(tokenizer, "name_or_path", "") or ""
    return {
        "name": getattr(config, "_name_or_path", "") or type(model).__name__,
        "model": {
            "architecture": architectures[0],
            "model_type": getattr(config, "model_type", "") or "",
            "vocab_size": int(getattr(config, "vocab_size", 0) or model.get_input_embeddings().weight.shape[0]),
            "tokenizer": f"{type(tokenizer).__name__} ({where})" if where else type(tokenizer).__name__,
            "parameters": int(sum(p.numel() for p in model.parameters())),
        },
    }


def token_text(t):
    """src/model/tokenizer.ts tokenText: specials by name, then characters."""
    first = len(rewards.SPECIALS)
    return rewards.SPECIALS[t] if t < first else (rewards.CHARS[t - first] if t - first < len(rewards.CHARS) else "?")


def component_name(func_name):
    """correctness_reward -> correctness: the playground's reward component of each reward function."""
    return func_name[: -len("_reward")] if func_name.endswith("_reward") else func_name


class RecordingGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that records every training generation batch to `record_path` (None: records nothing)."""

    def __init__(self, *args, record_path=None, run_config=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.record_path = record_path
        self._record_step = 0
        self._record_rewards = None
        self._record_logs = {}
        self._record_writer = None
        self._record_pending = {}  # step -> its rollouts, until its logs are in
        if record_path is None:
            return
        base = base_of(self.model)
        # A model with its own tokenizer: the record's text and token texts are that tokenizer's.
        self._record_own_tokenizer = base is None
        if base is None:
            base = model_base_of(self.model, self.processing_class)
        if self.accelerator.is_main_process:
            argv = [os.path.basename(sys.argv[0])] + sys.argv[1:]
            self._record_writer = RunRecordWriter(
                run_config,
                {
                    "writer": "trl train_grpo.py",
                    "command": " ".join(shlex.quote(a) for a in argv),
                    "created": datetime.datetime.now(datetime.timezone.utc)
                    .isoformat(timespec="milliseconds")
                    .replace("+00:00", "Z"),
                    "base": base,
                    "note": (
                        f"trained by TRL {trl.__version__} (GRPOTrainer); per token: the sampling policy's log-probs "
                        "(TRL's update numbers are not recorded)"
                    ),
                },
            )
        self.add_callback(_RecordCallback(self))

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        # Every process's rewards per function, as TRL computed them (gathered inside).
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._record_rewards = rewards_per_func
        return rewards_per_func

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        if self.record_path is not None and self.model.training:
            self._capture(inputs, out)
        return out

    def _completion_lengths(self, completion_ids):
        """Tokens up to and including the first EOS (all of them when cut off at max_completion_length)."""
        eos = self.processing_class.eos_token_id
        lengths = []
        for row in completion_ids.tolist():
            lengths.append(row.index(eos) + 1 if eos in row else len(row))
        return lengths

    def _sampling_logps(self, prompt_ids, prompt_mask, completion_ids, lengths):
        """Each completion token's log-prob under the policy that sampled it, as generate() saw it.

        Positions come from the attention mask, as generate() gives them: TRL's own scoring forward
        passes none, so a model with absolute positions (GPT-2) scores a left-padded prompt's tokens
        at shifted positions there, and its numbers differ from the sampling policy's."""
        width = completion_ids.size(1)
        device = completion_ids.device
        within = torch.arange(width, device=device)[None, :] < torch.tensor(lengths, device=device)[:, None]
        mask = within.to(prompt_mask.dtype)
        input_ids = torch.cat([prompt_ids, completion_ids], dim=1)
        attention = torch.cat([prompt_mask, mask], dim=1)
        positions = (attention.long().cumsum(-1) - 1).clamp(min=0)
        chunk = max(1, self.args.per_device_train_batch_size)
        out = []
        with torch.no_grad():
            for a in range(0, input_ids.size(0), chunk):
                logits = self.model(
                    input_ids=input_ids[a : a + chunk],
                    attention_mask=attention[a : a + chunk],
                    position_ids=positions[a : a + chunk],
                    use_cache=False,
                ).logits
                logits = logits[:, -width - 1 : -1, :].float() / self.temperature
                logp = torch.log_softmax(logits, dim=-1)
                out.append(logp.gather(-1, completion_ids[a : a + chunk, :, None]).squeeze(-1))
        return torch.cat(out, dim=0)

    def _capture(self, inputs, out):
        completion_ids = out["completion_ids"]
        lengths = self._completion_lengths(completion_ids)
        logps = self._sampling_logps(out["prompt_ids"], out["prompt_mask"], completion_ids, lengths)
        ids = completion_ids.tolist()
        lp = logps.float().tolist()
        local = [
            {
                "prompt": x["prompt"] if isinstance(x["prompt"], str) else json.dumps(x["prompt"]),
                "data": x.get("data"),
                "tokens": ids[i][: lengths[i]],
                "oldLogp": lp[i][: lengths[i]],
                "advantage": float(out["advantages"][i]),
                "truncated": lengths[i] == len(ids[i]) and self.processing_class.eos_token_id not in ids[i],
            }
            for i, x in enumerate(inputs)
        ]
        rows = gather_object(local)  # every process, in process order (TRL's order of rewards and groups)
        rewards_per_func = self._record_rewards
        self._record_rewards = None
        self._record_step += 1
        if self._record_writer is None:
            return
        weights = self.reward_weights.to(rewards_per_func.device)
        weighted = rewards_per_func * weights.unsqueeze(0)
        totals = weighted.nansum(dim=1).tolist()  # TRL's total reward (float32, as it logs it)
        names = [component_name(n) for n in self.reward_func_names]
        G = self.num_generations
        records = []
        for r, row in enumerate(rows):
            text = (
                self.processing_class.decode(row["tokens"], skip_special_tokens=True)
                if self._record_own_tokenizer
                else rewards.decode_ids(row["tokens"])
            )
            data = row["data"] if isinstance(row["data"], dict) else json.loads(row["data"])
            strict = rewards.verify(data, text, False)
            records.append(
                {
                    "group": r // G,
                    "index": r % G,
                    "prompt": row["prompt"],
                    "hint": "",
                    "completion": text,
                    "tokens": row["tokens"],
                    "tokenText": (
                        self.processing_class.batch_decode([[t] for t in row["tokens"]])
                        if self._record_own_tokenizer
                        else [token_text(t) for t in row["tokens"]]
                    ),
                    "oldLogp": row["oldLogp"],
                    "refLogp": None,
                    **{
                        k: []
                        for k in (
                            "newLogp", "ratio", "clipped", "entropy", "kl", "objective", "tokenLoss", "weight",
                            "lossContribution", "trained",
                        )
                    },
                    "advantage": row["advantage"],
                    "reward": totals[r],
                    "components": {name: weighted[r, j].item() for j, name in enumerate(names)},
                    "correct": bool(strict["correct"]),
                    "reason": "",
                    "truncated": row["truncated"],
                    "hinted": False,
                    "flipped": None,
                }
            )
        self._record_pending[self._record_step] = records

    def _record_finish_step(self, step, logs):
        """The step's metrics: TRL's where they mean the same as the playground's, plus accuracy from the verifier."""
        records = self._record_pending.pop(step, [])
        n = len(records)
        metrics = {}
        for key in SAME_METRICS:
            vals = [l[key] for l in logs if isinstance(l.get(key), (int, float)) and not math.isnan(l[key])]
            if vals:
                metrics[key] = sum(vals) / len(vals)
        # TRL's standard deviations are sample ones (n − 1); the playground's are over the batch (n).
        bessel = math.sqrt((n - 1) / n) if n > 1 else 0.0
        vals = [l["reward_std"] for l in logs if isinstance(l.get("reward_std"), (int, float))]
        if vals:
            metrics["reward_std"] = sum(vals) / len(vals) * bessel
        if self.args.scale_rewards != "batch":  # then TRL's zero-std is per group, as the playground's
            vals = [l["frac_reward_zero_std"] for l in logs if isinstance(l.get("frac_reward_zero_std"), (int, float))]
            if vals:
                metrics["frac_reward_zero_std"] = sum(vals) / len(vals)
        # TRL logs each reward function unweighted; the playground's components are weighted.
        for j, func in enumerate(self.reward_func_names):
            w = float(self.reward_weights[j])
            name = component_name(func)
            for stat, scale in (("mean", w), ("std", abs(w) * bessel)):
                key = f"rewards/{func}/{stat}"
                vals = [l[key] for l in logs if isinstance(l.get(key), (int, float))]
                if vals:
                    metrics[f"rewards/{name}/{stat}"] = sum(vals) / len(vals) * scale
        if records:
            metrics["accuracy"] = sum(1 for r in records if r["correct"]) / n
        histogram = advantage_histogram([r["advantage"] for r in records]) if records else None
        self._record_writer.add_step(step, metrics, records, histogram)


class _RecordCallback(TrainerCallback):
    """Collects the logs of each recorded step and writes the record when training ends (main process)."""

    def __init__(self, trainer):
        self.trainer = trainer
        self.logs = []
        self.logs_step = None

    def _flush(self):
        t = self.trainer
        if t._record_writer is not None and self.logs_step is not None:
            # steps no log reached (logging_steps > 1)
            for step in sorted(s for s in t._record_pending if s < self.logs_step):
                t._record_finish_step(step, [])
            t._record_finish_step(self.logs_step, self.logs)
        self.logs = []
        self.logs_step = None

    def on_log(self, args, state, control, logs=None, **kwargs):
        t = self.trainer
        if t._record_writer is None or not logs or "train_runtime" in logs:
            return
        # A log belongs to the latest generation batch: the next one is generated after it.
        if self.logs_step is not None and self.logs_step != t._record_step:
            self._flush()
        self.logs_step = t._record_step
        self.logs.append(dict(logs))

    def on_train_end(self, args, state, control, **kwargs):
        t = self.trainer
        if t._record_writer is None:
            return
        self._flush()
        for step in sorted(t._record_pending):  # steps no log reached (logging_steps > 1)
            t._record_finish_step(step, [])
        path = t._record_writer.write(t.record_path)
        print(f"run record: {path} ({len(t._record_writer.steps)} steps)", flush=True)
