"""Builds every exported TRL project under the real TRL, in one process (src/export/trl/export-settings.test.ts).

python build_exports.py MODEL_DIR PROJECT_DIR...

For each project folder: every .py file must compile (as py_compile does), then train_grpo.py's main() runs with
the trainer's train() and save_model() replaced, so the GRPOConfig and the RecordingGRPOTrainer (with its
reward functions, dataset and, where lora_r > 0, PEFT's LoraConfig) are built by TRL itself and nothing is
trained. One JSON line per project: {"project", "ok", "error", "loss_type", "peft"}.
"""
import contextlib
import importlib
import io
import json
import os
import sys
import traceback

PROJECT_MODULES = ("train_grpo", "rewards", "trl_record", "rlvr_record")


def build(model_dir, project):
    for name in sorted(os.listdir(project)):
        if name.endswith(".py"):
            path = os.path.join(project, name)
            with open(path, encoding="utf-8") as f:
                compile(f.read(), path, "exec")
    for m in PROJECT_MODULES:
        sys.modules.pop(m, None)
    sys.path.insert(0, project)
    try:
        train_grpo = importlib.import_module("train_grpo")
        built = {}

        def no_train(self, *args, **kwargs):
            built["loss_type"] = self.args.loss_type
            built["peft"] = type(self.model).__name__.startswith("Peft")

        trainer_class = train_grpo.RecordingGRPOTrainer
        trainer_class.train = no_train
        trainer_class.save_model = lambda self, *a, **k: None
        out = os.path.join(project, "grpo-out")
        sys.argv = ["train_grpo.py", "--model", model_dir, "--steps", "1", "--output_dir", out, "--no_record"]
        with contextlib.redirect_stdout(io.StringIO()):
            train_grpo.main()
        if "loss_type" not in built:
            raise RuntimeError("main() returned without building the trainer")
        return built
    finally:
        sys.path.remove(project)


def main():
    model_dir, projects = sys.argv[1], sys.argv[2:]
    for project in projects:
        try:
            built = build(model_dir, project)
            print(json.dumps({"project": project, "ok": True, **built}), flush=True)
        except BaseException as e:  # SyntaxError, SystemExit from argparse or the script: all are a failed build
            tail = traceback.format_exception(type(e), e, e.__traceback__)[-3:]
            print(json.dumps({"project": project, "ok": False, "error": "".join(tail)}), flush=True)


if __name__ == "__main__":
    main()
