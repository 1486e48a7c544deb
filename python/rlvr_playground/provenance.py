"""What a record says of a TRL run's setup: its config (the GRPOConfig fields the playground shares by
name) and its base model (a playground export's manifest, or the model as Hugging Face describes it)."""
import math

from .record_settings import TRL_CONFIG_FIELDS


def _fits(decl, v):
    """Whether a TRL argument's value is one the playground's config field accepts (src/rl/config-fields.ts)."""
    kind = decl["kind"]
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "enum":
        return v in decl["values"]
    if kind == "nullable-num":
        number = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        return v is None or (number and v >= decl["min"])
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return False
    if kind == "int" and int(v) != v:
        return False
    low_ok = v > decl["min"] if decl["exclusive_min"] else v >= decl["min"]
    return low_ok and v <= decl["max"]


def run_config(args, num_generations):
    """The playground config of a TRL run: the GRPOConfig fields the two share by name, where the value fits."""
    config = {"task": "trl"}
    for name, decl in TRL_CONFIG_FIELDS.items():
        v = getattr(args, name, None)
        if v is not None and _fits(decl, v):
            config[name] = int(v) if decl["kind"] == "int" else v
    per_step = args.generation_batch_size // num_generations
    if 1 <= per_step <= 256:
        config["prompts_per_step"] = per_step
    if 0 <= args.seed < 2**31:
        config["seed"] = int(args.seed)
    return config


def base_of(model, tokenizer):
    """The record's base: a playground export's manifest (config.json's rlvr_playground), else the model as HF says."""
    config = model.config
    meta = getattr(config, "rlvr_playground", None)
    if isinstance(meta, dict) and isinstance(meta.get("manifest"), dict):
        return {"name": meta["manifest"].get("name", meta.get("checkpoint", "")), "manifest": meta["manifest"]}
    architectures = getattr(config, "architectures", None) or [type(model).__name__]
    name = getattr(config, "_name_or_path", "") or type(model).__name__
    vocab = int(getattr(config, "vocab_size", 0) or model.get_input_embeddings().weight.shape[0])
    where = getattr(tokenizer, "name_or_path", "") or ""
    return {
        "name": name,
        "model": {
            "architecture": architectures[0],
            "model_type": getattr(config, "model_type", "") or "",
            "vocab_size": vocab,
            "tokenizer": f"{type(tokenizer).__name__} ({where})" if where else type(tokenizer).__name__,
            "parameters": int(sum(p.numel() for p in model.parameters())),
        },
    }
