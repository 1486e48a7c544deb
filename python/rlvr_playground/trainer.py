"""RecordingGRPOTrainer: TRL's GRPOTrainer that writes the rlvr playground's run record (*.rlvr.gz).

It works for any causal LM TRL trains: the record holds the model's own token ids (u32 when the
vocabulary needs it) and its tokenizer's text of each token. Nothing TRL computes is changed; the
trainer adds three observations:

- at each training generation batch (_generate_and_score_completions): the prompts and completions as
  TRL decoded them, the completion token ids, each reward function's value and the advantage TRL
  trains on, and the sampling policy's per-token log-probs (vLLM's own where TRL has them, else one
  extra no-grad forward pass of the generating model, with the positions generate() used);
- in TRL's loss (_compute_loss): the trained policy's per-token log-probs and entropies, captured from
  TRL's own _get_per_token_logps_and_entropies call, and from them the importance ratio, the clipped
  side, the per-token objective and loss and their aggregation weight, by TRL's formulas;
- TRL's logged metrics (on_log), averaged over the logs each generation batch spans.

A recorded step is one generation batch, numbered by TRL's global step when its updates are done (so
step k's rollouts are those of TRL's completions_0000k.parquet in the usual setup; where batches are
generated more often than the optimizer steps, by the batch's number). Under
`accelerate launch` every process keeps its own rows; they are gathered (in TRL's process order) to
the main process, which alone writes the one file when training ends.
"""
import datetime
import math
import os
import shlex
import sys
import warnings

import torch
import trl
from accelerate.utils import gather_object
from transformers import TrainerCallback
from trl import GRPOTrainer

from .provenance import base_of, run_config
from .record_settings import LOSS_AGGREGATIONS, LOSS_FORMS
from .rlvr_record import RunRecordWriter, advantage_histogram

WRITER = "trl RecordingGRPOTrainer"
# The losses whose per-token objective is min(ratio·A, clip(ratio)·A), whose clipped side TRL's
# clip_ratio metrics count (grpo_trainer.py _compute_loss): the "clip" form in src/rl/loss-types.ts.
CLIP_LOSSES = tuple(name for name, form in LOSS_FORMS.items() if form == "clip")
NAN = float("nan")
SCORED = (
    "newLogp", "ratio", "entropy", "kl", "objective", "tokenLoss", "weight", "lossContribution", "clipped", "trained"
)


class RecordingGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that records every training generation batch to `record_path`.

    record_path: the file to write (default: OUTPUT_DIR/run.rlvr.gz); None with record=False records nothing.
    correct_reward: the reward function (its name in TRL's logs) whose value > 0 marks a completion
      correct in the record (the playground's accuracy); default: the first reward function.
    record_rollouts_every: keep the rollouts of every N-th generation batch (and the first); every
      step's metrics are kept. The writer holds the kept rollouts until training ends (about 45 bytes
      per completion token), so a long run of long completions keeps fewer.
    """

    def __init__(self, *args, record_path=None, record=True, correct_reward=None, record_rollouts_every=1, **kwargs):
        super().__init__(*args, **kwargs)
        self.record_path = None
        if record and self.loss_type not in LOSS_AGGREGATIONS:
            warnings.warn(
                f"rlvr_playground: loss_type {self.loss_type!r} is not in the playground's table of TRL's loss types "
                f"({', '.join(LOSS_AGGREGATIONS)}); the record's per-token weights and loss contributions are NaN",
                stacklevel=2,
            )
        if not record:
            return
        self.record_path = record_path or os.path.join(self.args.output_dir, "run.rlvr.gz")
        names = list(self.reward_func_names)
        if correct_reward is not None and correct_reward not in names:
            raise ValueError(
                f"RecordingGRPOTrainer: correct_reward={correct_reward!r} is not a reward function (they are {names})"
            )
        self._record_correct = names.index(correct_reward) if correct_reward is not None else 0
        if not isinstance(record_rollouts_every, int) or record_rollouts_every < 1:
            raise ValueError(
                f"RecordingGRPOTrainer: record_rollouts_every must be a whole number >= 1: {record_rollouts_every!r}"
            )
        self._record_every = record_rollouts_every
        # Steps are TRL's global step after a batch's updates, unless several batches share an optimizer
        # step (generation more often than the optimizer steps): then the batch's number.
        generate_every = self.args.steps_per_generation * self.num_iterations
        self._record_by_batch = generate_every < self.args.gradient_accumulation_steps
        self._record_batch = None  # the open generation batch: this process's rows
        self._record_batches = 0
        self._record_rewards = None
        self._record_logs = []  # (generation batch, logs) on the main process
        self._record_writer = None
        if self.accelerator.is_main_process:
            argv = [os.path.basename(sys.argv[0])] + sys.argv[1:]
            procs = self.accelerator.num_processes
            now = datetime.datetime.now(datetime.timezone.utc)
            self._record_writer = RunRecordWriter(
                run_config(self.args, self.num_generations),
                {
                    "writer": WRITER,
                    "command": " ".join(shlex.quote(a) for a in argv),
                    "created": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                    "base": base_of(self.model, self.processing_class),
                    "note": (
                        f"trained by TRL {trl.__version__} (GRPOTrainer, loss_type {self.loss_type}) on {procs} process"
                        f"{'es' if procs > 1 else ''}; reward components are TRL's unweighted reward functions; "
                        "per token: the sampling and trained policies' log-probs, ratio, clipping, objective and loss "
                        "as TRL's loss computed them (the last time the loss saw each completion)"
                    ),
                },
            )
        self.add_callback(_RecordCallback(self))

    # ---- generation ------------------------------------------------------------------------------

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._record_rewards = rewards_per_func  # every process's rows (TRL gathers them inside)
        return rewards_per_func

    def _generate_and_score_completions(self, inputs):
        recording = self.record_path is not None and self.model.training
        if recording:
            self._record_close()  # the previous batch's updates are done: collect it (every process)
        out = super()._generate_and_score_completions(inputs)
        if recording:
            if self._record_batches % self._record_every == 0:
                self._record_open(out)
            else:  # metrics only
                self._record_batch = {"start": 0, "rows": None, "rewards": None}
                self._record_batches += 1
                self._record_rewards = None
        return out

    def _sampling_logps(self, out, lengths):
        """Each completion token's log-prob under the policy that sampled it (temperature-scaled, as TRL scores)."""
        if out.get("sampling_per_token_logps") is not None:  # vLLM's own
            return out["sampling_per_token_logps"]
        prompt_ids, prompt_mask, completion_ids = out["prompt_ids"], out["prompt_mask"], out["completion_ids"]
        width = completion_ids.size(1)
        mask = (torch.arange(width, device=completion_ids.device)[None, :] < lengths[:, None]).to(prompt_mask.dtype)
        input_ids = torch.cat([prompt_ids, completion_ids], dim=1)
        attention = torch.cat([prompt_mask, mask], dim=1)
        # generate() places tokens by the attention mask; TRL's scoring forward passes no positions.
        positions = (attention.long().cumsum(-1) - 1).clamp(min=0)
        chunk = max(1, self.args.per_device_train_batch_size)
        logps = []
        with torch.no_grad():
            for a in range(0, input_ids.size(0), chunk):
                logits = self.model(
                    input_ids=input_ids[a : a + chunk],
                    attention_mask=attention[a : a + chunk],
                    position_ids=positions[a : a + chunk],
                    use_cache=False,
                ).logits
                logits = logits[:, -width - 1 : -1, :].float() / self.temperature
                picked = torch.log_softmax(logits, dim=-1).gather(-1, completion_ids[a : a + chunk, :, None])
                logps.append(picked.squeeze(-1))
        return torch.cat(logps, dim=0)

    def _record_open(self, out):
        completion_ids = out["completion_ids"]
        # Tokens up to and including the first EOS, as TRL's completion mask (before masking truncated ones).
        is_eos = completion_ids == self._tokenizer.eos_token_id
        width = completion_ids.size(1)
        first_eos = torch.full((is_eos.size(0),), width - 1, dtype=torch.long, device=completion_ids.device)
        first_eos[is_eos.any(dim=1)] = is_eos.int().argmax(dim=1)[is_eos.any(dim=1)]
        lengths = first_eos + 1
        sampling = self._sampling_logps(out, lengths).float().tolist()
        local = completion_ids.size(0)
        start = self.accelerator.process_index * local
        tok = self.processing_class
        prompts = tok.batch_decode(out["prompt_ids"], skip_special_tokens=True)
        completions = tok.batch_decode(completion_ids, skip_special_tokens=True)
        ids = completion_ids.tolist()
        ref = out.get("ref_per_token_logps")
        ref = ref.float().tolist() if ref is not None else None
        rows = []
        for i in range(local):
            n = int(lengths[i])
            row_ids = ids[i][:n]
            rows.append(
                {
                    "prompt": prompts[i],
                    "completion": completions[i],
                    "tokens": row_ids,
                    "tokenText": self._tokenizer.batch_decode([[t] for t in row_ids]),
                    "oldLogp": sampling[i][:n],
                    "refLogp": ref[i][:n] if ref is not None else None,
                    "advantage": float(out["advantages"][i]),
                    "truncated": not bool(is_eos[i].any()),
                    "trained": None,  # filled by the loss
                }
            )
        self._record_batch = {"start": start, "rows": rows, "rewards": self._record_rewards}
        self._record_rewards = None
        self._record_batches += 1
        # Each row's place in the batch travels with TRL's shuffle and split (one randperm, as before).
        out["rlvr_row"] = torch.arange(start, start + local, device=completion_ids.device)

    # ---- the loss --------------------------------------------------------------------------------

    def _compute_loss(self, model, inputs):
        rows = inputs.get("rlvr_row")
        if rows is None or self._record_batch is None or not self.model.training:
            return super()._compute_loss(model, inputs)
        captured = []
        inner = self._get_per_token_logps_and_entropies

        def capture(*a, **k):
            result = inner(*a, **k)
            captured.append(result)
            return result

        self._get_per_token_logps_and_entropies = capture  # shadows the method for this call only
        try:
            loss = super()._compute_loss(model, inputs)
        finally:
            del self._get_per_token_logps_and_entropies
        if captured:
            self._record_trained(inputs, rows, captured[0][0].detach(), captured[0][1])
        return loss

    def _record_trained(self, inputs, rows, logps, entropies):
        """The per-token numbers of TRL's loss for these rows (grpo_trainer.py _compute_loss's formulas)."""
        mask = inputs["completion_mask"]
        if "tool_mask" in inputs:
            mask = mask * inputs["tool_mask"]
        mask = mask.float()
        adv = inputs["advantages"]
        adv = adv.unsqueeze(1) if adv.dim() == 1 else adv
        old = inputs.get("old_per_token_logps")
        old = logps if old is None else old
        log_ratio = logps - old
        if self.importance_sampling_level == "sequence":
            log_ratio = ((log_ratio * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)).unsqueeze(-1)
        coef_1 = torch.exp(log_ratio).expand_as(logps)
        adv_t = adv.expand_as(logps)
        low = (coef_1 < 1 - self.epsilon_low) & (adv_t < 0)
        high = (coef_1 > 1 + self.epsilon_high) & (adv_t > 0)
        ref = inputs.get("ref_per_token_logps")
        with_kl = self.beta != 0.0 and ref is not None
        kl = torch.exp(ref - logps) - (ref - logps) - 1 if with_kl else torch.zeros_like(logps)
        if with_kl and self.args.use_bias_correction_kl:
            kl = kl * coef_1
        if self.loss_type in CLIP_LOSSES:
            clipped_coef = torch.clamp(coef_1, 1 - self.epsilon_low, 1 + self.epsilon_high)
            ratio = torch.clamp(coef_1, max=self.args.delta) if self.args.delta is not None else coef_1
            objective = torch.min(ratio * adv_t, clipped_coef * adv_t)
            token_loss = -objective + self.beta * kl
        else:  # sapo, cispo, vespo: a surrogate this recorder does not restate
            objective = torch.full_like(logps, NAN)
            token_loss = torch.full_like(logps, NAN)
        weight = self._loss_weights(inputs, mask)
        contribution = torch.where(mask > 0, weight * token_loss, torch.zeros_like(token_loss))
        batch = self._record_batch
        values = {
            "newLogp": logps,
            "ratio": coef_1,
            "entropy": entropies if entropies is not None else torch.full_like(logps, NAN),
            "kl": kl,
            "objective": objective,
            "tokenLoss": token_loss,
            "weight": weight,
            "lossContribution": contribution,
        }
        values = {k: v.detach().float().tolist() for k, v in values.items()}
        low, high, trained = low.tolist(), high.tolist(), (mask > 0).tolist()
        for j, r in enumerate(rows.tolist()):
            row = batch["rows"][r - batch["start"]]
            n = len(row["tokens"])
            for k, v in values.items():
                row[k] = v[j][:n]
            row["clipped"] = ["low" if low[j][t] else "high" if high[j][t] else None for t in range(n)]
            row["trained"] = trained[j][:n]

    def _loss_weights(self, inputs, mask):
        """Each token's weight in the loss TRL backpropagates for this micro-batch (per loss_type), 0 off the mask."""
        accum = self.current_gradient_accumulation_steps
        lengths = mask.sum(-1, keepdim=True).clamp(min=1.0)
        batch = mask.size(0)
        # one branch per aggregation of src/rl/loss-types.ts (TRL 1.13's GRPOTrainer._compute_loss)
        aggregation = LOSS_AGGREGATIONS.get(self.loss_type)
        if aggregation == "sequence-mean":
            w = 1.0 / lengths / batch / accum
        elif aggregation == "minibatch-token-mean":
            w = torch.ones_like(lengths) / mask.sum().clamp(min=1.0) / accum
        elif aggregation == "constant":
            w = torch.full_like(lengths, 1.0 / (batch * self.max_completion_length * accum))
        elif aggregation == "batch-token-mean":
            normalizer = inputs["num_items_in_batch"].clamp(min=1.0) / self.accelerator.num_processes
            normalizer = normalizer * accum / self.args.steps_per_generation
            w = torch.ones_like(lengths) / normalizer
        elif aggregation == "sequence-sum":
            w = torch.full_like(lengths, 1.0 / (batch * accum))
        else:  # said once in __init__
            w = torch.full_like(lengths, NAN)
        return w.expand_as(mask) * mask

    # ---- gathering and writing -------------------------------------------------------------------

    def _record_close(self):
        """Gathers the open batch's rows to the main process, which adds the step (every process calls it)."""
        batch, self._record_batch = self._record_batch, None
        if batch is None:
            return
        # process order = TRL's row order; a batch whose rollouts are not kept has none on any process
        rows = gather_object(batch["rows"]) if batch["rows"] is not None else []
        if self._record_writer is None:
            return
        rewards_per_func = batch["rewards"]
        if rewards_per_func is None:
            rewards_per_func = torch.zeros((0, len(self.reward_func_names)))
        weights = self.reward_weights.to(rewards_per_func.device)
        totals = (rewards_per_func * weights.unsqueeze(0)).nansum(dim=1).tolist()
        per_func = rewards_per_func.tolist()
        names = list(self.reward_func_names)
        G = self.num_generations
        records = []
        for r, row in enumerate(rows):
            if row["trained"] is None:  # a row TRL's loss never saw (an interrupted batch): no trained-policy numbers
                row = {**row, **{k: [] for k in SCORED}, "refLogp": None}
            correct = per_func[r][self._record_correct]
            records.append(
                {
                    **row,
                    "group": r // G,
                    "index": r % G,
                    "hint": "",
                    "reward": totals[r],
                    "components": {name: per_func[r][j] for j, name in enumerate(names)},
                    "correct": isinstance(correct, float) and not math.isnan(correct) and correct > 0,
                    "reason": "",
                    "hinted": False,
                    "flipped": None,
                }
            )
        step = self._record_batches if self._record_by_batch else int(self.state.global_step)
        logs = [l for b, l in self._record_logs if b == self._record_batches]
        self._record_logs = [(b, l) for b, l in self._record_logs if b != self._record_batches]
        histogram = advantage_histogram([r["advantage"] for r in records]) if records else None
        self._record_writer.add_step(step, self._step_metrics(logs), records, histogram)

    @staticmethod
    def _step_metrics(logs):
        """TRL's logged metrics under TRL's names, each averaged over the logs of the step."""
        sums = {}
        for l in logs:
            for k, v in l.items():
                number = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                if number and k not in ("epoch", "step"):
                    sums.setdefault(k, []).append(float(v))
        return {k: sum(v) / len(v) for k, v in sums.items()}


class _RecordCallback(TrainerCallback):
    """Collects TRL's logs per generation batch and writes the record when training ends."""

    def __init__(self, trainer):
        self.trainer = trainer

    def on_log(self, args, state, control, logs=None, **kwargs):
        t = self.trainer
        if t._record_writer is None or not logs or "train_runtime" in logs:
            return
        t._record_logs.append((t._record_batches, dict(logs)))  # a log belongs to the latest generation batch

    def on_train_end(self, args, state, control, **kwargs):
        t = self.trainer
        t._record_close()  # every process: the last batch is gathered
        if t._record_writer is None:
            return
        path = t._record_writer.write(t.record_path)
        print(f"run record: {path} ({len(t._record_writer.steps)} steps)", flush=True)
