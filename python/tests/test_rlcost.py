"""The Python module as a notebook user would call it. Figures are compared
with what `rlcost ... --json` prints for the same input, so the module and the
command line cannot drift apart."""
import json
import os
import pathlib
import subprocess

import pytest

import rlcost

SRC = pathlib.Path(os.environ.get("RLCOST_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BINARY = pathlib.Path(rlcost.__file__).resolve().parents[2] / "rlcost"
DEFAULT = SRC / "scenarios" / "default.yaml"
SHARED = SRC.parent / "shared"


def cli_json(*args):
    out = subprocess.run([str(BINARY), *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_estimate_path_equals_cli():
    est = rlcost.estimate(str(DEFAULT))
    assert est == cli_json("estimate", str(DEFAULT))
    assert est["cost"]["usd_per_step"] > 0


def test_estimate_pathlike_text_dict_and_default_agree(tmp_path):
    by_path = rlcost.estimate(DEFAULT)
    by_text = rlcost.estimate(DEFAULT.read_text())
    assert by_text["cost"]["usd_per_step"] == pytest.approx(by_path["cost"]["usd_per_step"])
    assert rlcost.estimate()["cost"]["usd_per_step"] == pytest.approx(by_path["cost"]["usd_per_step"])
    d = {"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}}
    assert rlcost.estimate(d) == rlcost.estimate(json.dumps(d))
    f = tmp_path / "d.json"
    f.write_text(json.dumps(d))
    assert rlcost.estimate(d)["cost"] == cli_json("estimate", str(f))["cost"]

def test_overrides_match_cli_set():
    est = rlcost.estimate(DEFAULT, overrides={"hardware.gpu": "b200"})
    assert est == cli_json("estimate", str(DEFAULT), "--set", "hardware.gpu=b200")
    assert est["cost"]["usd_per_step"] != rlcost.estimate(DEFAULT)["cost"]["usd_per_step"]


def test_scenario_error_lists_field_paths():
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.estimate({"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": -3}})
    paths = [p["path"] for p in e.value.problems]
    assert "hardware.gpus" in paths, e.value.problems
    assert e.value.code == "invalid_input"
    assert "hardware.gpus" in str(e.value)


def test_unknown_model_and_missing_file():
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.estimate({"model": "no-such-model", "hardware": {"gpu": "h100-sxm", "gpus": 8}})
    assert any(p["path"] == "model" for p in e.value.problems)
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.estimate("does/not/exist.yaml")
    assert e.value.code == "not_found"


def test_malformed_yaml_names_the_line():
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.estimate("model: qwen3-8b\nhardware: [h100,\n")
    assert e.value.problems[0].get("line", 0) >= 1


def test_nan_in_dict_is_refused_before_the_engine():
    with pytest.raises(ValueError):
        rlcost.estimate({"model": "qwen3-8b", "hardware": {"gpu": "h100", "gpus": float("nan")}})


def test_wrong_type():
    with pytest.raises(TypeError):
        rlcost.estimate(42)


def test_simulate_seed_and_steps():
    a = rlcost.simulate(DEFAULT, steps=2, seed=7)
    b = rlcost.simulate(DEFAULT, steps=2, seed=7)
    assert a == b
    assert a == cli_json("simulate", str(DEFAULT), "--steps", "2", "--seed", "7")
    with pytest.raises(ValueError):
        rlcost.simulate(DEFAULT, steps=-1)


def test_waterfall_and_price_match_cli():
    assert rlcost.waterfall(DEFAULT) == cli_json("waterfall", str(DEFAULT))
    card = rlcost.price(DEFAULT, gpus=["h100-sxm", "b200"])
    assert card == cli_json("price", str(DEFAULT), "--gpus", "h100-sxm,b200")
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.waterfall(DEFAULT, order="async,warp-drive")
    assert e.value.problems[0]["path"] == "order"
    # A quality discount given in Python is the command line's flag, and out of [0, 1) it names the field.
    assert rlcost.waterfall(DEFAULT, order="async", staleness_discount=0.1) == cli_json(
        "waterfall", str(DEFAULT), "--order", "async", "--staleness-discount", "0.1")
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.waterfall(DEFAULT, fp4_discount=-0.5)
    assert e.value.problems[0]["path"] == "fp4_discount"
    # The price card takes the same discounts, as `rlcost price` does.
    assert rlcost.price(DEFAULT, stack="async", staleness_discount=0.5) == cli_json(
        "price", str(DEFAULT), "--stack", "async", "--staleness-discount", "0.5")
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.price(DEFAULT, stack="fp8", fp8_discount=1)
    assert e.value.problems[0]["path"] == "fp8_discount"


def test_catalog():
    cat = rlcost.catalog()
    assert cat == cli_json("catalog")
    assert "h100-sxm" in cat["gpus"]


def cli_jsonl(tmp_path, *args):
    out = tmp_path / "rows.jsonl"
    subprocess.run([str(BINARY), "sweep", *args, "--jsonl", str(out)], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_sweep_grid_equals_cli(tmp_path):
    sw = rlcost.sweep(DEFAULT, vary={"hardware.gpu": ["h100-sxm", "b200"], "algorithm.group_size": "4..8:4"})
    assert sw["engine"] == "analytic"
    assert sw["keys"] == ["hardware.gpu", "algorithm.group_size"]
    assert sw["points"] == len(sw["rows"]) == 4
    assert sw["rows"] == cli_jsonl(tmp_path, str(DEFAULT), "--vary", "hardware.gpu=h100-sxm,b200",
                                   "--vary", "algorithm.group_size=4..8:4")
    assert [r["point"] for r in sw["rows"]] == [0, 1, 2, 3]
    usd = {(r["hardware.gpu"], r["algorithm.group_size"]): r["run.usd"] for r in sw["rows"]}
    assert usd[("h100-sxm", 4)] != usd[("b200", 4)]  # the lever moves the number
    assert {m["key"] for m in sw["metrics"]} >= {"run.usd", "step.time_s"}
    # The default columns hold the goal's figures: each row says what they rest on, the answer once.
    assert {r["goal_curve"] for r in sw["rows"]} == {"illustrative"}
    assert sw["goal_curve_is_illustrative"] is True
    assert len(sw["notes"]) == 1 and "ILLUSTRATIVE learning curve" in sw["notes"][0]
    published = rlcost.sweep(DEFAULT, vary={"hardware.gpus": [8, 16]}, metrics=["goal.usd"],
                             overrides={"goal.curve": "scalerl-8b-math-14k"})
    assert {r["goal_curve"] for r in published["rows"]} == {"published:scalerl-8b-math-14k"}
    assert published["goal_curve_is_illustrative"] is False


def test_sweep_sample_metrics_and_overrides_equal_cli(tmp_path):
    sw = rlcost.sweep(DEFAULT, vary=["algorithm.group_size=2..64", "hardware.gpu=h100-sxm,b200"], sample=6, seed=3,
                      metrics=["step.time_s", "run.usd"], overrides={"hardware.gpus": 16})
    assert len(sw["rows"]) == 6
    assert sw["rows"] == cli_jsonl(tmp_path, str(DEFAULT), "--vary", "algorithm.group_size=2..64",
                                   "--vary", "hardware.gpu=h100-sxm,b200", "--sample", "6", "--seed", "3",
                                   "--metric", "step.time_s", "--metric", "run.usd", "--set", "hardware.gpus=16")
    assert set(sw["rows"][0]) == {"point", "algorithm.group_size", "hardware.gpu", "status", "reason",
                                  "step.time_s", "run.usd", "note"}
    assert sw["goal_curve_is_illustrative"] is False and sw["notes"] == []  # no goal column
    # Same seed, same points; the dict scenario route gives the same rows.
    assert rlcost.sweep(DEFAULT.read_text(), vary=["algorithm.group_size=2..64", "hardware.gpu=h100-sxm,b200"],
                        sample=6, seed=3, metrics=["step.time_s", "run.usd"],
                        overrides={"hardware.gpus": 16})["rows"] == sw["rows"]


def test_sweep_point_that_does_not_fit_is_a_row():
    sw = rlcost.sweep({"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}},
                      vary={"model": ["qwen3-8b", "deepseek-v3"], "hardware.gpus": [1]})
    status = {r["model"]: r["status"] for r in sw["rows"]}
    assert status["qwen3-8b"] == "ok"
    assert status["deepseek-v3"] == "does not fit"
    bad = [r for r in sw["rows"] if r["model"] == "deepseek-v3"][0]
    assert bad["reason"] and bad["run.usd"] is None


def test_sweep_errors_name_the_field():
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.sweep(DEFAULT, vary={"hardware.gpux": ["b200"]})
    assert [p["path"] for p in e.value.problems] == ["hardware.gpux"]
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.sweep(DEFAULT, vary={"hardware.gpu": ["b200"]}, metrics=["run.dollars"])
    assert e.value.problems[0]["path"] == "run.dollars"
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.sweep(DEFAULT)
    assert e.value.problems[0]["path"] == "vary"
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.sweep(DEFAULT, vary={"hardware.gpu": [None]})
    assert e.value.problems[0]["path"] == "vary.hardware.gpu[0]"


def test_sweep_is_bounded():
    # More points than max_points: refused before any runs.
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.sweep(DEFAULT, vary={"algorithm.group_size": "1..1000"}, max_points=100)
    assert e.value.problems[0]["path"] == "vary"
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.sweep(DEFAULT, vary={"algorithm.group_size": "1..1000"}, sample=101, max_points=100)
    assert e.value.problems[0]["path"] == "sample"
    # Past the time limit: TimeoutError after the point under way (each point
    # simulates 2 steps of 4,096 prompts x 64 rollouts, well over 0.1 s).
    big = {"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8},
           "algorithm": {"prompts_per_step": 4096, "group_size": 64}}
    with pytest.raises(TimeoutError):
        rlcost.sweep(big, vary={"algorithm.group_size": [64, 65, 66, 67]},
                     simulate=True, steps=2, timeout=0.1, jobs=1)
    with pytest.raises(ValueError):
        rlcost.sweep(DEFAULT, vary={"hardware.gpu": ["b200"]}, timeout=0)


def test_sweep_frame():
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            rlcost.sweep(DEFAULT, vary={"hardware.gpu": ["b200"]}, frame=True)
        return
    df = rlcost.sweep(DEFAULT, vary={"hardware.gpu": ["h100-sxm", "b200"]}, frame=True)
    assert list(df["hardware.gpu"]) == ["h100-sxm", "b200"]
    assert list(df["goal_curve"]) == ["illustrative", "illustrative"]
    assert df.attrs["goal_curve_is_illustrative"] is True and len(df.attrs["notes"]) == 1


def test_sensitivity_equals_cli():
    t = rlcost.sensitivity(DEFAULT)
    assert t == cli_json("sensitivity", str(DEFAULT))
    assert len(t) >= 4 and all("swing" in row for row in t)
    mine = rlcost.sensitivity(DEFAULT, metric="run.usd", span=0.25,
                              ranges={"environment.response_tokens.mean": (1000, 3000)})
    assert mine == cli_json("sensitivity", str(DEFAULT), "--metric", "run.usd", "--span", "0.25",
                            "--range", "environment.response_tokens.mean=1000:3000")


def test_sensitivity_bad_arguments_name_the_field():
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.sensitivity(DEFAULT, span=2, path="sideways")
    paths = {p["path"] for p in e.value.problems}
    assert {"span", "path"} <= paths
    with pytest.raises(rlcost.ScenarioError) as e:
        rlcost.sensitivity(DEFAULT, ranges={"environment.response_tokens.mean": 5})
    assert e.value.problems[0]["path"] == "ranges.environment.response_tokens.mean"


@pytest.mark.skipif(not (SHARED / "validation").is_dir(), reason="../shared/validation not present")
def test_validate_analytic():
    rep = rlcost.validate(SHARED / "validation", path="analytic")
    assert rep == cli_json("validate", str(SHARED / "validation"), "--path", "analytic", "--report-only")


@pytest.mark.parametrize("call, name", [
    (lambda: rlcost.simulate(DEFAULT, seed=-1), "seed"),
    (lambda: rlcost.simulate(DEFAULT, seed=2**64), "seed"),
    (lambda: rlcost.simulate(DEFAULT, steps=2**31), "steps"),
    (lambda: rlcost.simulate(DEFAULT, steps=-1), "steps"),
    (lambda: rlcost.waterfall(DEFAULT, tenants=-2), "tenants"),
    (lambda: rlcost.waterfall(DEFAULT, rank=2**40), "rank"),
    (lambda: rlcost.price(DEFAULT, tenants=2**31), "tenants"),
    (lambda: rlcost.sweep(DEFAULT, vary={"hardware.gpu": ["b200"]}, seed=-1), "seed"),
    (lambda: rlcost.sweep(DEFAULT, vary={"hardware.gpu": ["b200"]}, jobs=-1), "jobs"),
    (lambda: rlcost.sweep(DEFAULT, vary={"hardware.gpu": ["b200"]}, sample=-3), "sample"),
    (lambda: rlcost.sensitivity(DEFAULT, seed=-5), "seed"),
    (lambda: rlcost.validate(SRC, seed=-1), "seed"),
    (lambda: rlcost.simulate(DEFAULT, steps=1.5), "steps"),
])
def test_argument_out_of_range_names_the_argument(call, name):
    # Before: pybind11's "incompatible function arguments" listing C++ types.
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value).startswith(name + " must be"), str(e.value)
    assert "incompatible function arguments" not in str(e.value)


def test_sweep_with_more_jobs_than_the_machine_allows_runs():
    # jobs=200 used to end the interpreter (std::terminate, or glibc's abort
    # when a thread's TLS cannot be allocated) where the threads could not all
    # start. Here the address space is capped at what the interpreter uses
    # plus 256 MiB, and a 200-point grid asks for 200 threads: the sweep runs
    # at most one thread per core, on those of them that start.
    import sys
    code = (
        "import resource, rlcost\n"
        "vm = [int(l.split()[1]) * 1024 for l in open('/proc/self/status') if l.startswith('VmSize')][0]\n"
        "cap = vm + (256 << 20)\n"
        "resource.setrlimit(resource.RLIMIT_AS, (cap, cap))\n"
        "r = rlcost.sweep(None, vary={'algorithm.group_size': '1..200'}, jobs=200, metrics=['run.usd'])\n"
        "print(r['points'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(pathlib.Path(rlcost.__file__).resolve().parents[1])})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "200"


def test_goal_answers_say_what_curve_they_rest_on():
    # The default scenario sets goal.target_pass_rate without goal.curve: the
    # illustrative curve, flagged on the price card and on each goal.usd row of
    # the tornado, as the command line prints them.
    card = rlcost.price(DEFAULT)
    assert card["goal_curve_is_illustrative"] is True and card["goal_curve"] == "illustrative"
    assert any("ILLUSTRATIVE" in n for n in card["notes"])
    rows = rlcost.sensitivity(DEFAULT, metric="goal.usd")
    assert rows and all(r["goal_curve_is_illustrative"] is True for r in rows)
    # A published curve (catalog/curves.yaml) measured on another model says it is borrowed.
    named = {"goal.curve": "scalerl-8b-math-14k"}
    card = rlcost.price(DEFAULT, overrides=named)
    assert card["goal_curve_is_illustrative"] is False
    assert card["goal_curve"] == "published:scalerl-8b-math-14k"
    assert any("BORROWED" in n for n in card["notes"])
    assert card == cli_json("price", str(DEFAULT), "--set", "goal.curve=scalerl-8b-math-14k")
    est = rlcost.estimate(DEFAULT, overrides={**named, "goal.b_noise": 256})
    assert est["goal"]["steps_view"] == "noise_scale"
    assert est["goal"]["steps"] == est["goal"]["steps_noise_scale"]


# One answer per question (#38): for every shared scenario, Python's estimate,
# the command line's estimate and compare (a file against itself), and the
# first row of the waterfall (Python and command line) are the same run.
@pytest.mark.parametrize("name", sorted(p.name for p in (SHARED / "scenarios").glob("*.yaml"))
                         if (SHARED / "scenarios").is_dir() else [])
def test_one_run_everywhere(name):
    path = str(SHARED / "scenarios" / name)
    est = rlcost.estimate(path)
    want = (est["step"]["time_s"], est["cost"]["usd_per_step"])
    cli = cli_json("estimate", path)
    assert (cli["step"]["time_s"], cli["cost"]["usd_per_step"]) == pytest.approx(want, rel=1e-9)
    cmp = cli_json("compare", path, path)
    for e in cmp["entries"]:
        assert (e["estimate"]["step"]["time_s"], e["estimate"]["cost"]["usd_per_step"]) == pytest.approx(want, rel=1e-9)
    wf = rlcost.waterfall(path, order="async")
    first = wf["baseline"]["estimate"]
    assert (first["step"]["time_s"], first["cost"]["usd_per_step"]) == pytest.approx(want, rel=1e-9)
    assert wf == cli_json("waterfall", path, "--order", "async")
