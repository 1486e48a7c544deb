"""Records TRL GRPO runs of any causal LM in the rlvr playground's run-record format (*.rlvr.gz).

    from rlvr_playground import RecordingGRPOTrainer
    trainer = RecordingGRPOTrainer(model=..., reward_funcs=..., args=GRPOConfig(...), train_dataset=...,
                                   record_path="run.rlvr.gz")

The writer alone (standard library only) is rlvr_playground.rlvr_record.RunRecordWriter.
"""
from .rlvr_record import RunRecordWriter

__all__ = ["RecordingGRPOTrainer", "RunRecordWriter"]


def __getattr__(name):
    # The trainer needs torch and TRL; the writer alone does not.
    if name == "RecordingGRPOTrainer":
        from .trainer import RecordingGRPOTrainer

        return RecordingGRPOTrainer
    raise AttributeError(name)
