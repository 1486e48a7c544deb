"""Rollout dumps of five RL frameworks, written as each framework's own writer writes them, and read back
with Python's json and sqlite3 alone, for src/runs/framework-readers.test.ts. Standard library only
(none of the frameworks installs here). Each writer below names the file and the commit it follows.

    python3 scripts/framework_dumps.py write OUT_DIR   # the dumps
    python3 scripts/framework_dumps.py read OUT_DIR    # prints {format: {step: [row, ...]}} as JSON
"""

import json
import os
import random
import sqlite3
import sys
import uuid


def write_nemo_rl(out, plant=None):
    """NVIDIA-NeMo/RL@7ea279abfbeb698b092856d0dab61e7cf39bc909 nemo_rl/algorithms/grpo.py builds log_data
    (content, rewards, input_lengths, token_ids, token_loss_mask, sample_loss_mask, advantages,
    generation_logprobs, prev_logprobs) and nemo_rl/utils/logger.py log_batched_dict_as_jsonl writes it:
    open(filepath, "w"), one microbatch of 1 per line (every value a list of one),
    f.write(json.dumps({**sample, "idx": i}, default=str) + "\\n").
    plant = (step, idx, k): the trainer's log-prob (prev_logprobs) of that sample's k-th completion token is
    2 nats above the sampler's, a sampler mismatch for src/runs/findings (logprob_mismatch)."""
    rng = random.Random(1)
    os.makedirs(out, exist_ok=True)
    for step in (1, 2):
        samples = []
        for p in range(2):
            prompt_ids = [rng.randrange(3, 50) for _ in range(3 + p)]
            for g in range(3):
                completion_ids = [rng.randrange(3, 50) for _ in range(2 + g)]
                reward = float(g == step - 1)
                samples.append((f"What is {p}+{step}?", f"answer {g}", prompt_ids, completion_ids, reward))
        width = max(len(s[2]) + len(s[3]) for s in samples) + 2
        log_data = {k: [] for k in ("content", "rewards", "input_lengths", "token_ids", "token_loss_mask",
                                    "sample_loss_mask", "advantages", "generation_logprobs", "prev_logprobs")}
        at = 0
        for i in range(0, len(samples), 3):
            group = samples[i:i + 3]
            mean = sum(s[4] for s in group) / 3
            for user, assistant, pids, cids, reward in group:
                n = len(pids) + len(cids)
                pad = width - n
                adv = reward - mean
                gen = [0.0] * len(pids) + [round(-rng.random(), 6) for _ in cids] + [0.0] * pad
                prev = [x + (0.01 if x else 0.0) for x in gen]
                if plant and plant[:2] == (step, at):
                    prev[len(pids) + plant[2]] = gen[len(pids) + plant[2]] + 2.0
                at += 1
                log_data["content"].append([user, assistant])
                log_data["rewards"].append(reward)
                log_data["input_lengths"].append(n)
                log_data["token_ids"].append(pids + cids + [0] * pad)
                log_data["token_loss_mask"].append([0] * len(pids) + [1] * len(cids) + [0] * pad)
                log_data["sample_loss_mask"].append(1.0)
                log_data["advantages"].append([adv] * width)
                log_data["generation_logprobs"].append(gen)
                log_data["prev_logprobs"].append(prev)
        with open(os.path.join(out, f"train_data_step{step}.jsonl"), "w") as f:
            for i in range(len(samples)):
                sample = {k: v[i:i + 1] for k, v in log_data.items()}
                f.write(json.dumps({**sample, "idx": i}, default=str) + "\n")


def dumps_orjson(value):
    """orjson.dumps(..., option=OPT_APPEND_NEWLINE): compact JSON, UTF-8, then a newline."""
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def episode_record(step, group_id, prompt, answer, reward, advantage, stop, ids, logprobs):
    """PrimeIntellect-ai/verifiers@a60a606ecc4d309247edf9ff92c3eabca362781f verifiers/v1/episode.py
    Episode.to_record: model_dump(mode="json", exclude={"traces": {"__all__": EXCLUDE_FIELDS}},
    exclude_none=True), fields in model order (episode.py, trace.py Trace, graph.py MessageNode)."""
    task = {"type": "Task", "data": {"question": prompt}, "key": prompt, "hash": uuid.uuid4().hex}
    nodes = [
        {"message": {"role": "user", "content": prompt}, "sampled": False, "timestamp": 1.0,
         "token_ids": [1, 2, 3], "mask": [False, False, False], "is_content": [], "logprobs": []},
        {"parent": 0, "message": {"role": "assistant", "content": answer}, "sampled": True, "timestamp": 2.0,
         "token_ids": [9] + ids, "mask": [False] + [True] * len(ids), "is_content": [], "logprobs": logprobs,
         "advantages": [advantage] * len(ids)},
    ]
    trace = {
        "version": 1, "id": uuid.uuid4().hex, "verifiers": {"version": "0.2.0"}, "task": task,
        "agent": {"config": {}, "name": "agent", "trainable": True}, "tools": [], "nodes": nodes,
        "calls": [{"node": 1, "model": "m", "finish_reason": "length" if stop == "length" else "stop",
                   "usage": {"prompt_tokens": 3, "completion_tokens": len(ids)},
                   "time": {"start": 1.0, "end": 2.0}}],
        "request_rewrites": [], "response_rewrites": [],
        "rewards": {"correct": {"score": reward, "weight": 1.0}, "format": {"score": 0.5, "weight": 0.2}},
        "metrics": {}, "info": {}, "extra_usage": [], "is_completed": True, "ok": True,
        "stop_condition": "max_output_tokens" if stop == "length" else "completed", "errors": [],
        "timing": {"start": 1.0},
    }
    return {
        "id": uuid.uuid4().hex, "env": {"id": "gsm8k", "name": "gsm8k"}, "task": task, "group": {"id": group_id},
        "run": {"type": "train", "id": "r", "work": {"type": "train", "step": step}}, "ok": True, "errors": [],
        "traces": [trace],
    }


def write_prime_rl(out):
    """PrimeIntellect-ai/prime-rl@559b44772e471d1538537b8805cc77f3824a5e64 src/prime_rl/monitors/file.py
    FileMonitor.log_episodes: rollouts/step_{step}/{kind}/{subset}/traces.jsonl opened "ab", each episode
    orjson.dumps(episode.to_record(), default=str, option=OPT_APPEND_NEWLINE | OPT_SERIALIZE_NUMPY);
    log_metrics appends json.dumps({"step", "time", **metrics}) lines to metrics.jsonl."""
    rng = random.Random(2)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metrics.jsonl"), "a", buffering=1) as m:
        for step in (0, 1):
            m.write(json.dumps({"step": step, "time": 1000.0 + step, "reward/mean": 0.25 * (step + 1)}) + "\n")
    for step in (0, 1):
        for subset in ("all", "effective"):
            path = os.path.join(out, "rollouts", f"step_{step}", "train", subset, "traces.jsonl")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            r = random.Random(step)
            with open(path, "ab") as f:
                for g in range(2):
                    for k in range(2):
                        ids = [r.randrange(10, 90) for _ in range(2 + k)]
                        lps = [round(-r.random(), 5) for _ in ids]
                        reward = float(k == g)
                        rec = episode_record(step, f"g{step}-{g}", f"Q{g} at {step}", f"A{k}", reward,
                                             reward - 0.5, "length" if k == 1 and g == 1 else "stop", ids, lps)
                        f.write(dumps_orjson(rec))
            rng.random()


def write_roll(out):
    """alibaba/ROLL@8eb27cc2dc34c4d1310b169d9b86d339004d811a roll/pipeline/rlvr/utils.py
    dump_rollout_to_specific_path builds write_data (non_tensor_batch, responses, scores, sampling_params,
    global_step) and write_to_json_process keeps COLUMMNS_CONFIG's keys and writes ONE line:
    open(..., f"rollout_dump_data.step_{global_step}.jsonl", "w"), json.dumps(data, ensure_ascii=False)."""
    columns = {"global_step", "id", "source", "difficulty", "prompt", "messages", "ground_truth", "case_type",
               "test_case_function", "test_cases", "tag", "domain", "responses", "scores", "sampling_params"}
    for step in (0, 1):
        n = 4
        write_data = {
            "id": [f"id{i // 2}" for i in range(n)],
            "prompt": [f"Solve {i // 2} × {step}" for i in range(n)],
            "messages": [json.dumps([{"role": "user", "content": f"Solve {i // 2}"}]) for i in range(n)],
            "ground_truth": [str(i // 2) for i in range(n)],
            "tag": ["math"] * n,
            "domain": ["math_rule"] * n,
            "input_ids_unused": [0] * n,
        }
        write_data["responses"] = [f"réponse {i}" for i in range(n)]
        write_data["scores"] = [float(i % 2) for i in range(n)]
        write_data["sampling_params"] = [json.dumps({"temperature": 1.0})] * n
        write_data["global_step"] = [step] * n
        data = {k: v for k, v in write_data.items() if k in columns}
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f"rollout_dump_data.step_{data.get('global_step', [0])[0]}.jsonl"), "w",
                  encoding="utf-8") as f:
            f.write(json.dumps(data, ensure_ascii=False) + "\n")


def write_areal(out):
    """inclusionAI/AReaL@4aef98d8d818af55b43621aaadba047ae10f4e77 areal/infra/workflow_executor.py
    _dump_trajectory: {log_path}/rollout/{tail_version}/{task_id}.jsonl opened "a", a line per sample
    json.dumps({"task_id", "sample_idx", "seqlen", "prompt_len", "head_version", "tail_version", "reward",
    "prompt", "completion"})."""
    for version in (1, 2):
        for task_id in (7, 12):
            d = os.path.join(out, "rollout", str(version))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"{task_id}.jsonl"), "a") as f:
                for i in range(3):
                    record = {
                        "task_id": task_id, "sample_idx": i, "seqlen": 20 + i, "prompt_len": 12,
                        "head_version": version - 1, "tail_version": version, "reward": float(i == version),
                        "prompt": f"<|user|>task {task_id}<|assistant|>", "completion": f"step {version} try {i}",
                    }
                    f.write(json.dumps(record) + "\n")


TRACKIO_SCHEMA = [
    # GradIO trackio@2a027522c487b16755d1cdf12e1ae45a9b6eb15a trackio/sqlite_storage.py SQLiteStorage.init_db
    """
                    CREATE TABLE IF NOT EXISTS metrics (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        run_id TEXT NOT NULL,
                        timestamp TEXT NOT NULL,
                        run_name TEXT NOT NULL,
                        step INTEGER NOT NULL,
                        metrics TEXT NOT NULL
                    )
                    """,
    """
                    CREATE TABLE IF NOT EXISTS traces (
                        id TEXT PRIMARY KEY,
                        run_id TEXT NOT NULL,
                        timestamp TEXT NOT NULL,
                        run_name TEXT NOT NULL,
                        step INTEGER NOT NULL,
                        key TEXT NOT NULL,
                        trace_index INTEGER,
                        messages TEXT NOT NULL,
                        metadata TEXT NOT NULL,
                        search_text TEXT NOT NULL,
                        log_id TEXT,
                        space_id TEXT
                    )
                    """,
    "CREATE INDEX IF NOT EXISTS idx_traces_run_step ON traces(run_id, step)",
    "CREATE INDEX IF NOT EXISTS idx_traces_search ON traces(search_text)",
    "ALTER TABLE metrics ADD COLUMN log_id TEXT",
    "ALTER TABLE metrics ADD COLUMN space_id TEXT",
]


def orjson_bytes(value):
    """orjson.dumps(serialize_values(value)): compact UTF-8 bytes, bound by sqlite3 as a BLOB."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def write_trackio(out, rows=200, long_text=6000):
    """trackio@2a027522c487b16755d1cdf12e1ae45a9b6eb15a trackio/sqlite_storage.py: the connection in WAL mode
    (_configure_sqlite_pragmas), _split_trace_metrics makes a trace row per trackio.Trace logged (a list
    under one key: trace_index 0, 1, ...), _insert_trace_rows inserts them with messages and metadata as
    orjson bytes; the clean metrics go to `metrics` as orjson bytes (bulk_log's INSERT INTO metrics)."""
    path = os.path.join(out, "my-project.db")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    cur = conn.cursor()
    for sql in TRACKIO_SCHEMA:
        cur.execute(sql)
    per_step = rows // 2
    for step in (0, 1):
        ts = f"2026-01-01T00:00:0{step}+00:00"
        cur.execute("INSERT INTO metrics (timestamp, run_id, run_name, step, metrics) VALUES (?, ?, ?, ?, ?)",
                    (ts, "run-1", "run-1", step, orjson_bytes({"train/reward": 0.5 + step})))
        trace_rows = []
        for i in range(per_step):
            prompt = f"What is {i // 4} + {step}?"
            # Every 7th answer is long: its row spills onto overflow pages.
            answer = f"It is {i % 4}." + ("x" * long_text if i % 7 == 0 else "")
            correct = float(i % 4 == i // 4 + step)
            messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": prompt},
                        {"role": "assistant", "content": answer}]
            metadata = {"correct": correct, "format": 0.5, "advantage": correct - 0.25}
            key = f"rollouts/{i // 4}"
            trace_rows.append({
                "id": ":".join(["run-1", uuid.uuid4().hex, key, str(i % 4)]), "run_id": "run-1", "timestamp": ts,
                "run_name": "run-1", "step": step, "key": key, "trace_index": i % 4, "messages": messages,
                "metadata": metadata, "log_id": None, "space_id": None,
                "search_text": f"{key} {prompt} {answer}".lower(),
            })
        cur.executemany(
            """
            INSERT OR IGNORE INTO traces
            (id, run_id, timestamp, run_name, step, key, trace_index, messages, metadata, search_text, log_id, space_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [(r["id"], r["run_id"], r["timestamp"], r["run_name"], r["step"], r["key"], r["trace_index"],
              orjson_bytes(r["messages"]), orjson_bytes(r["metadata"]), r["search_text"], r["log_id"],
              r["space_id"]) for r in trace_rows],
        )
    conn.commit()
    conn.close()


def read_all(out):
    """Each dump read back with json and sqlite3 alone: the rows a viewer should show."""
    got = {"nemo-rl": {}, "prime-rl": {}, "roll": {}, "areal": {}, "trackio": {}}
    d = os.path.join(out, "nemo")
    for name in sorted(os.listdir(d)):
        if not name.startswith("train_data_step"):
            continue
        step = name[len("train_data_step"):-len(".jsonl")]
        rows = []
        for line in open(os.path.join(d, name)):
            v = json.loads(line)
            n = v["input_lengths"][0]
            at = [i for i in range(n) if v["token_loss_mask"][0][i] == 1]
            rows.append({"prompt": "\n".join(v["content"][0][:-1]), "completion": v["content"][0][-1],
                         "reward": v["rewards"][0], "advantage": v["advantages"][0][at[0]],
                         "ids": [v["token_ids"][0][i] for i in at],
                         "logprobs": [v["generation_logprobs"][0][i] for i in at],
                         "newLogprobs": [v["prev_logprobs"][0][i] for i in at]})
        got["nemo-rl"][step] = rows
    d = os.path.join(out, "prime", "rollouts")
    for name in sorted(os.listdir(d)):
        step = name[len("step_"):]
        rows = []
        for line in open(os.path.join(d, name, "train", "effective", "traces.jsonl"), encoding="utf-8"):
            ep = json.loads(line)
            for t in ep["traces"]:
                rewards = {k: r["score"] * r["weight"] for k, r in t["rewards"].items()}
                sampled = [nd for nd in t["nodes"] if nd["sampled"]]
                ids = [i for nd in sampled for i, m in zip(nd["token_ids"], nd["mask"]) if m]
                rows.append({"prompt": "\n".join(f"{nd['message']['role']}: {nd['message']['content']}"
                                                 for nd in t["nodes"] if not nd["sampled"]),
                             "completion": "\n".join(nd["message"]["content"] for nd in sampled),
                             "rewards": rewards, "reward": sum(rewards.values()),
                             "advantage": sampled[0]["advantages"][0], "ids": ids,
                             "logprobs": [x for nd in sampled for x in nd["logprobs"]],
                             "truncated": t["stop_condition"] == "max_output_tokens"})
        got["prime-rl"][step] = rows
    d = os.path.join(out, "roll")
    for name in sorted(os.listdir(d)):
        step = name[len("rollout_dump_data.step_"):-len(".jsonl")]
        v = json.loads(open(os.path.join(d, name), encoding="utf-8").readline())
        got["roll"][step] = [{"prompt": p, "completion": r, "reward": s}
                             for p, r, s in zip(v["prompt"], v["responses"], v["scores"])]
    d = os.path.join(out, "areal", "rollout")
    for version in sorted(os.listdir(d), key=int):
        rows = []
        for task in sorted(os.listdir(os.path.join(d, version)), key=lambda s: int(s.split(".")[0])):
            for line in open(os.path.join(d, version, task)):
                v = json.loads(line)
                rows.append({"prompt": v["prompt"], "completion": v["completion"], "reward": v["reward"],
                             "length": v["seqlen"] - v["prompt_len"]})
        got["areal"][version] = rows
    conn = sqlite3.connect(f"file:{os.path.join(out, 'trackio', 'my-project.db')}?mode=ro", uri=True)
    for step, messages, metadata in conn.execute(
            "SELECT step, messages, metadata FROM traces ORDER BY step, run_name, key, trace_index, rowid"):
        m, meta = json.loads(messages), json.loads(metadata)
        got["trackio"].setdefault(str(step), []).append({
            "prompt": "\n".join(f"{x['role']}: {x['content']}" for x in m[:-1]), "completion": m[-1]["content"],
            "rewards": {"correct": meta["correct"], "format": meta["format"]},
            "reward": meta["correct"] + meta["format"], "advantage": meta["advantage"]})
    return got


if __name__ == "__main__":
    what, out = sys.argv[1], sys.argv[2]
    if what == "write-nemo-mismatch":
        write_nemo_rl(out, plant=tuple(int(x) for x in sys.argv[3:6]))
    elif what == "write":
        write_nemo_rl(os.path.join(out, "nemo"))
        write_prime_rl(os.path.join(out, "prime"))
        write_roll(os.path.join(out, "roll"))
        write_areal(os.path.join(out, "areal"))
        os.makedirs(os.path.join(out, "trackio"), exist_ok=True)
        write_trackio(os.path.join(out, "trackio"))
    else:
        json.dump(read_all(out), sys.stdout)
