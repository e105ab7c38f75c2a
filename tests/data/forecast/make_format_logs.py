#!/usr/bin/env python3
"""Writes ONE SYNTHETIC run in each log format `rlcost forecast` reads.

Not a measurement: the public veRL example logs (../shared/curves) carry no
license, so their values are not copied here. The run is shaped like the
veRL GSM8K PPO example of ../shared/curves/verl_ppo_gemma-2-2b-it-sft_gsm8k.csv
(512 prompts a step, a validation pass of the 1,319 GSM8K test problems every
10 steps, ~135 s a step on 2 GPUs), drawn from a KNOWN ScaleRL sigmoid
R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B), R0 = 0.42, A = 0.70, B = 1.5,
C_mid = 30 steps (C = steps done), with binomial noise of the batch (train
reward, 512 samples) and of the test set (validation, 1,319 problems),
seed 28. Each tool's layout and key names:
  - veRL console lines (verl/utils/tracking.py, console logger): step numbered from 1,
    "(main_task pid=..) step:N - key:value - ..." with veRL's key names;
  - veRL's file logger JSONL: {"step": N, "data": {...}};
  - a wandb run-page CSV export: "Step", "<run> - <metric>" and its __MIN/__MAX columns;
  - NeMo RL's TensorBoard dump {metric: {step: value}} (tests/json_dump_tb_logs.py) with
    NeMo RL's key names (train/reward, validation/accuracy, timing/train/total_step_time);
  - NeMo RL's JSONL metrics, one flat object per step;
  - a CSV with '#' comment lines and a "step" column numbered from 0 (../shared/curves' layout).

    python3 tests/data/forecast/make_format_logs.py
"""
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


STEPS = 120
R0, A, B, C_MID = 0.42, 0.70, 1.5, 30.0


def truth(c):
    return R0 + (A - R0) / (1 + (C_MID / c) ** B)


def binomial_mean(rng, p, n):
    return sum(rng.random() < p for _ in range(n)) / n


def main():
    rng = random.Random(28)
    rows = []
    for i in range(STEPS):
        c = i + 1
        p = truth(c)
        val = binomial_mean(rng, p, 1319) if i % 10 == 9 else None
        rows.append({"step": str(i), "train_reward_mean": f"{binomial_mean(rng, p, 512):.4f}",
                     "val_acc": "" if val is None else f"{val:.4f}",
                     "step_time_s": f"{135 * (1 + rng.gauss(0, 0.02)):.3f}",
                     "response_length_mean": f"{140 + 0.2 * i + rng.gauss(0, 3):.1f}"})
    head = ["# SYNTHETIC run written by make_format_logs.py (not a measurement): a known ScaleRL sigmoid",
            f"# R0 = {R0}, A = {A}, B = {B}, C_mid = {C_MID} steps, with binomial noise (512 samples; 1319 test problems)",
            "# columns as ../shared/curves: step from 0, train_reward_mean, val_acc every 10 steps, step_time_s",
            "step,train_reward_mean,val_acc,step_time_s,response_length_mean"]
    (HERE / "synthetic_gsm8k.csv").write_text(
        "\n".join(head + [",".join(r[k] for k in ["step", "train_reward_mean", "val_acc", "step_time_s",
                                                    "response_length_mean"]) for r in rows]) + "\n")
    console, filelog, nemo = [], [], []
    wandb = [",".join(['"Step"', '"gemma-ppo - critic/score/mean"', '"gemma-ppo - critic/score/mean__MIN"',
                       '"gemma-ppo - critic/score/mean__MAX"'])]
    tb = {"train/reward": {}, "validation/accuracy": {}, "timing/train/total_step_time": {}}
    for r in rows:
        step = int(r["step"]) + 1  # veRL and NeMo RL number steps from 1
        m = {"critic/score/mean": float(r["train_reward_mean"]),
             "response_length/mean": float(r["response_length_mean"]),
             "timing_s/step": float(r["step_time_s"])}
        if r["val_acc"]:
            m["val/test_score/openai/gsm8k"] = float(r["val_acc"])
        console.append(f"(main_task pid=2741) step:{step} - " + " - ".join(f"{k}:{v}" for k, v in m.items()))
        filelog.append(json.dumps({"step": step, "data": m}))
        v = m["critic/score/mean"]
        wandb.append(f"{step},{v},{v},{v}")
        n = {"step": step, "train/reward": v, "timing/train/total_step_time": m["timing_s/step"]}
        tb["train/reward"][str(step)] = v
        tb["timing/train/total_step_time"][str(step)] = m["timing_s/step"]
        if r["val_acc"]:
            n["validation/accuracy"] = m["val/test_score/openai/gsm8k"]
            tb["validation/accuracy"][str(step)] = m["val/test_score/openai/gsm8k"]
        nemo.append(json.dumps(n))
    (HERE / "synthetic_gsm8k.verl_console.log").write_text(
        "(main_task pid=2741) Using LocalLogger is deprecated.\n" + "\n".join(console) + "\n")
    (HERE / "synthetic_gsm8k.verl_file_logger.jsonl").write_text("\n".join(filelog) + "\n")
    (HERE / "synthetic_gsm8k.wandb_export.csv").write_text("\n".join(wandb) + "\n")
    (HERE / "synthetic_gsm8k.nemo_rl_tb.json").write_text(json.dumps(tb) + "\n")
    (HERE / "synthetic_gsm8k.nemo_rl.jsonl").write_text("\n".join(nemo) + "\n")


if __name__ == "__main__":
    main()
