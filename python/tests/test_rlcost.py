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


def test_catalog():
    cat = rlcost.catalog()
    assert cat == cli_json("catalog")
    assert "h100-sxm" in cat["gpus"]


def test_sweep_over_gpus():
    """A sweep as a notebook does it: one estimate per GPU, cheapest first."""
    gpus = [g for g in ("h100-sxm", "h200", "b200") if g in rlcost.catalog()["gpus"]]
    rows = [(g, rlcost.estimate(DEFAULT, overrides={"hardware.gpu": g})["cost"]["usd_per_step"]) for g in gpus]
    assert len({round(usd, 9) for _, usd in rows}) == len(rows)  # the lever moves the number
    with pytest.raises(rlcost.NotYetError):
        rlcost.sweep(DEFAULT)
    with pytest.raises(rlcost.NotYetError):
        rlcost.sensitivity(DEFAULT)


@pytest.mark.skipif(not (SHARED / "validation").is_dir(), reason="../shared/validation not present")
def test_validate_analytic():
    rep = rlcost.validate(SHARED / "validation", path="analytic")
    assert rep == cli_json("validate", str(SHARED / "validation"), "--path", "analytic", "--report-only")
