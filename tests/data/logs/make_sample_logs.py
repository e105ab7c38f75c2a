#!/usr/bin/env python3
"""Writes the SYNTHETIC sample logs for the calibration tests.

Nothing here is a measurement. Each log is generated from a scenario in this
folder by rlcost's own analytic model, run with KNOWN efficiency factors that
differ from the catalog defaults (the truth the fit should recover), with
per-step mean lengths that drift like a reasoning run, plus small multiplicative
Gaussian noise (2%, fixed seed) on every logged phase time.

    python3 tests/data/logs/make_sample_logs.py build-release/rlcost

Re-run it when the model changes; the tests do not depend on the exact numbers
(they fit whatever the file says and check the fit, not the truth).
"""
import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOISE = 0.02


def estimate(binary, scenario, truth_file, prompt_mean, response_mean, resp_cv, resp_max):
    out = subprocess.run(
        [binary, "estimate", str(scenario), "--json", "--calibration", str(truth_file),
         "--set", f"environment.prompt_tokens={{mean: {prompt_mean:.1f}, cv: 0.5, max: 1024}}",
         "--set", f"environment.response_tokens={{mean: {response_mean:.1f}, cv: {resp_cv}, max: {resp_max}}}"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)["step"]


def write_truth(path, gpu, factors, comment):
    lines = [f"# {comment}", "calibration:", f'  gpu: "{gpu}"', '  source: "truth used to generate the sample log"',
             "  efficiency:"]
    lines += [f"    {k}: {v}" for k, v in factors.items()]
    path.write_text("\n".join(lines) + "\n")


def phases(rng, st):
    n = lambda: 1 + rng.gauss(0, NOISE)
    gen = st["rollout_s"] * n()
    old = st["logprob_s"] * n()
    ref = st["reference_s"] * n()
    upd = st["train_s"] * n()
    sync = st["weight_sync_s"] * n()
    rest = (st["time_s"] - st["rollout_s"] - st["logprob_s"] - st["reference_s"] - st["train_s"]
            - st["weight_sync_s"]) * n()
    return gen, old, ref, upd, sync, gen + old + ref + upd + sync + rest


def verl(binary):
    scen = HERE / "verl_qwen25_7b_8xh100.scenario.yaml"
    truth = HERE / "verl_qwen25_7b_8xh100.truth.yaml"
    factors = {"decode_bw": 0.55, "train_mfu": 0.33, "logprob_mfu": 0.38, "weight_sync_eff": 0.5,
               "step_overhead_s": 6.0}
    write_truth(truth, "h100-sxm", factors, "TRUTH for the synthetic veRL sample log (make_sample_logs.py)")
    rng = random.Random(7)
    out = [f"# SYNTHETIC veRL-style console log written by make_sample_logs.py, not a real run.",
           f"# Generated from {scen.name} by rlcost's analytic model with efficiency factors",
           f"# {factors} (file {truth.name}), per-step mean lengths drifting upward,",
           f"# and {NOISE:.0%} Gaussian noise (seed 7) on every phase time.",
           "(TaskRunner pid=4242) Training from scratch",
           "(TaskRunner pid=4242) Using LocalLogger is deprecated."]
    for step in range(1, 21):
        resp = 700 + 25 * step + rng.gauss(0, 20)
        prompt = 300 + rng.gauss(0, 8)
        st = estimate(binary, scen, truth, prompt, resp, 0.8, 4096)
        gen, old, ref, upd, sync, total = phases(rng, st)
        out.append(
            f"(TaskRunner pid=4242) step:{step} - actor/pg_loss:np.float64({rng.gauss(0, 0.01):.5f}) - "
            f"critic/score/mean:{0.3 + 0.01 * step:.3f} - response_length/mean:{resp:.1f} - "
            f"prompt_length/mean:{prompt:.1f} - timing_s/gen:{gen:.3f} - timing_s/old_log_prob:{old:.3f} - "
            f"timing_s/ref:{ref:.3f} - timing_s/update_actor:{upd:.3f} - timing_s/update_weights:{sync:.3f} - "
            f"timing_s/step:{total:.3f} - perf/throughput:{rng.uniform(900, 1100):.1f}")
    (HERE / "verl_qwen25_7b_8xh100.log").write_text("\n".join(out) + "\n")


def nemo(binary):
    scen = HERE / "nemo_llama8b_16xh100.scenario.yaml"
    truth = HERE / "nemo_llama8b_16xh100.truth.yaml"
    factors = {"decode_bw": 0.62, "train_mfu": 0.45, "logprob_mfu": 0.5, "step_overhead_s": 3.0}
    write_truth(truth, "h100-sxm", factors, "TRUTH for the synthetic NeMo RL sample log (make_sample_logs.py)")
    rng = random.Random(11)
    lines = []
    for step in range(1, 13):
        resp = 850 + 15 * step + rng.gauss(0, 15)
        prompt = 120 + rng.gauss(0, 4)
        st = estimate(binary, scen, truth, prompt, resp, 0.7, 3976)
        gen, old, ref, upd, sync, total = phases(rng, st)
        lines.append(json.dumps({
            "step": step,
            "timing/train/total_step_time": round(total, 3),
            "timing/train/generation": round(gen, 3),
            "timing/train/policy_and_reference_logprobs": round(old + ref, 3),
            "timing/train/policy_training": round(upd, 3),
            "train/mean_prompt_length": round(prompt, 1),
            "train/mean_gen_tokens_per_sample": round(resp, 1),
            "train/reward": round(0.4 + 0.01 * step, 3),
        }))
    # JSONL has no comments: the provenance is in nemo_llama8b_16xh100.README.
    (HERE / "nemo_llama8b_16xh100.jsonl").write_text("\n".join(lines) + "\n")
    (HERE / "nemo_llama8b_16xh100.README").write_text(
        "nemo_llama8b_16xh100.jsonl is a SYNTHETIC NeMo RL-style metrics JSONL written by\n"
        "make_sample_logs.py, not a real run: rlcost's analytic model on\n"
        f"{scen.name} with efficiency factors {factors} ({truth.name}),\n"
        f"drifting mean lengths, and {NOISE:.0%} Gaussian noise (seed 11) on every phase time.\n"
        "Keys as NeMo RL logs them (nemo_rl/algorithms/grpo.py: prefix timing/train and train).\n")


if __name__ == "__main__":
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/release/rlcost"
    verl(binary)
    nemo(binary)
