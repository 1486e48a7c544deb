"""TRL 1.13's own GRPO loss on a fixed batch, for src/export/trl/loss-parity.test.ts.

    python loss_parity.py BATCH.json OUT.json

BATCH.json holds per-token log-probs, old and reference log-probs, a completion mask, one advantage per
completion, and a list of cases (loss_type, importance_sampling_level and the knobs). For each case this
runs GRPOTrainer._compute_loss itself -- TRL's code, not a copy -- on a GRPOTrainer built without a model:
only the attributes _compute_loss reads are set, and _get_per_token_logps_and_entropies is replaced by
one that returns the batch's log-probs as a leaf tensor, so torch autograd gives d loss / d log-probs.
The per-token terms are TRL's `per_token_loss` (before masking and aggregation), read from
_compute_loss's own frame as it returns. Everything runs in float32 and again in float64.
"""
import inspect
import json
import sys
import textwrap
import types
from collections import defaultdict

import torch
from accelerate import Accelerator
from trl import GRPOConfig, GRPOTrainer
from trl.trainer.utils import nanstd
import trl

# The knobs a case may set, all GRPOConfig fields of the same name.
KNOBS = (
    "loss_type", "importance_sampling_level", "epsilon", "epsilon_high", "delta", "beta", "use_bias_correction_kl",
    "entropy_coef",
    "sapo_temperature_pos", "sapo_temperature_neg",
    "vespo_k_pos", "vespo_lambda_pos", "vespo_k_neg", "vespo_lambda_neg",
    "max_completion_length", "off_policy_mask_threshold",
    "use_adaptive_entropy", "entropy_coef_min", "entropy_coef_max", "entropy_coef_delta", "entropy_target",
)


def trainer_for(case, out_dir):
    args = GRPOConfig(output_dir=out_dir, report_to="none", use_cpu=True, steps_per_generation=1,
                      **{k: case[k] for k in KNOBS if k in case})
    # After the config: building TrainingArguments resets accelerate's shared state.
    accelerator = Accelerator(cpu=True)
    t = object.__new__(GRPOTrainer)
    # What GRPOTrainer.__init__ copies from args and _compute_loss reads.
    t.args = args
    t.accelerator = accelerator
    t.model = torch.nn.Linear(1, 1)  # only .training is read (train mode)
    t.loss_type = args.loss_type
    t.importance_sampling_level = args.importance_sampling_level
    t.beta = args.beta
    t.epsilon_low = args.epsilon
    t.epsilon_high = args.epsilon_high if args.epsilon_high is not None else args.epsilon
    t.max_completion_length = args.max_completion_length
    t.top_entropy_quantile = args.top_entropy_quantile
    t.off_policy_mask_threshold = args.off_policy_mask_threshold
    t.use_vllm = False
    t.vllm_importance_sampling_correction = False
    t.use_liger_kernel = False
    t.aux_loss_enabled = False
    t.entropy_coef = args.entropy_coef
    t.use_adaptive_entropy = args.use_adaptive_entropy
    t._entropy_bonus_enabled = t.entropy_coef != 0.0 or t.use_adaptive_entropy
    t._last_world_entropy = float("inf")
    t._entropy_window_stats = None
    t.current_gradient_accumulation_steps = 1
    t._metrics = {"train": defaultdict(list), "eval": defaultdict(list)}
    return t


def advantage_code():
    """TRL's own advantage computation, as it stands in the installed GRPOTrainer._generate_and_score_completions:
    the lines from its multi_objective_aggregation branches to the nan_to_num of the advantages, run as they are."""
    source = inspect.getsource(GRPOTrainer._generate_and_score_completions)
    first = 'if self.multi_objective_aggregation == "sum_then_normalize":'
    last = "advantages = torch.nan_to_num(advantages, nan=0.0)"
    start = source.rindex("\n", 0, source.index(first)) + 1
    end = source.index("\n", source.index(last, start)) + 1
    return compile(textwrap.dedent(source[start:end]), "GRPOTrainer._generate_and_score_completions", "exec")


def trl_advantages(case, dtype):
    """The advantages TRL computes from per-function rewards (a case's rewards_per_func and function_weights)."""
    rewards_per_func = torch.tensor(case["rewards_per_func"], dtype=dtype)
    me = types.SimpleNamespace(
        multi_objective_aggregation=case["multi_objective_aggregation"],
        scale_rewards=case["scale_rewards"],
        reward_weights=torch.tensor(case["function_weights"], dtype=dtype),
        reward_funcs=[None] * rewards_per_func.shape[1],
    )
    scope = {"self": me, "torch": torch, "nanstd": nanstd, "rewards_per_func": rewards_per_func,
             "num_generations": case["num_generations"], "device": "cpu",
             "unscorable_mask": torch.isnan(rewards_per_func).all(dim=1)}
    exec(advantage_code(), scope)
    return scope["advantages"]


def run_case(case, batch, dtype, out_dir):
    """One _compute_loss call, or with "entropy_scales" one per scale on the same trainer (one optimizer
    step each: the adaptive entropy controller carries over), the batch's entropies times the scale."""
    t = trainer_for(case, out_dir)
    t.case = case
    # steps_per_generation micro-batches, gradient_accumulation_steps of them per optimizer step
    t.args.steps_per_generation = case.get("steps_per_generation", 1)
    t.current_gradient_accumulation_steps = case.get("gradient_accumulation_steps", 1)
    if "entropy_scales" not in case:
        return run_call(t, batch, dtype, 1.0)
    steps = []
    for scale in case["entropy_scales"]:
        step = run_call(t, batch, dtype, scale)
        step["entropy_coef_after"] = float(t.entropy_coef)
        steps.append(step)
    return {"steps": steps}


def run_call(t, batch, dtype, entropy_scale):
    logp = torch.tensor(batch["logp"], dtype=dtype).requires_grad_(True)
    mask = torch.tensor(batch["mask"], dtype=dtype)
    inputs = {
        "prompt_ids": torch.zeros((mask.shape[0], 1), dtype=torch.long),
        "prompt_mask": torch.ones((mask.shape[0], 1), dtype=torch.long),
        "completion_ids": torch.zeros(mask.shape, dtype=torch.long),
        "completion_mask": mask,
        "advantages": (
            trl_advantages(t.case, dtype)
            if "rewards_per_func" in t.case
            else torch.tensor(batch["advantages"], dtype=dtype)
        ),
        "old_per_token_logps": torch.tensor(batch["old_logp"], dtype=dtype),
        "ref_per_token_logps": torch.tensor(batch["ref_logp"], dtype=dtype),
        # dapo, cispo, vespo divide by the generation batch's completion tokens
        "num_items_in_batch": mask.sum(),
    }

    entropy = torch.tensor(batch["entropy"], dtype=dtype) * entropy_scale
    # The batch in steps_per_generation micro-batches of consecutive rows, as TRL splits a generation
    # batch; each one _compute_loss call (num_items_in_batch stays the whole batch's), losses summed and
    # gradients accumulated on the one leaf.
    parts = t.args.steps_per_generation
    size = mask.shape[0] // parts
    loss = 0.0
    per_token = []
    for j in range(parts):
        rows = slice(j * size, (j + 1) * size)
        micro = {k: (v[rows] if k != "num_items_in_batch" else v) for k, v in inputs.items()}
        part_loss, part_per_token = call_loss(t, micro, logp[rows], entropy[rows])
        part_loss.backward()
        loss = loss + part_loss.item()
        per_token.append(part_per_token.expand_as(micro["completion_mask"]))
    return {
        "advantages": inputs["advantages"].tolist(),
        "loss": loss,
        "per_token_loss": torch.cat(per_token).tolist(),
        "grad": logp.grad.tolist(),
    }


def call_loss(t, inputs, logp, entropy):
    """One GRPOTrainer._compute_loss call on these rows: its loss and its per_token_loss."""

    def fixed_logps(self, model, *a, **kw):
        return logp, entropy, None

    t._get_per_token_logps_and_entropies = types.MethodType(fixed_logps, t)

    # per_token_loss is a local variable of _compute_loss: read it from the frame as the function
    # returns (sys.settrace), so nothing of TRL's code is altered or re-typed.
    captured = {}
    target = GRPOTrainer._compute_loss.__code__

    def local_tracer(frame, event, arg):
        if event == "return":
            captured["per_token_loss"] = frame.f_locals["per_token_loss"].detach().clone()
        return local_tracer

    def global_tracer(frame, event, arg):
        return local_tracer if frame.f_code is target else None

    sys.settrace(global_tracer)
    try:
        loss = t._compute_loss(t.model, inputs)
    finally:
        sys.settrace(None)
    return loss, captured["per_token_loss"]


def main():
    batch_path, out_path = sys.argv[1], sys.argv[2]
    with open(batch_path) as f:
        batch = json.load(f)
    results = []
    for case in batch["cases"]:
        results.append({
            "case": case,
            "float32": run_case(case, batch, torch.float32, batch["tmp"]),
            "float64": run_case(case, batch, torch.float64, batch["tmp"]),
        })
    with open(out_path, "w") as f:
        json.dump({"trl": trl.__version__, "torch": torch.__version__, "results": results}, f)


if __name__ == "__main__":
    main()
