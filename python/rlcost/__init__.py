"""rlcost: what an RL post-training run will cost, where the money goes, and
which lever cuts it most.

    import rlcost
    est = rlcost.estimate("run.yaml")            # a path, YAML/JSON text or a dict
    est["cost"]["usd_per_step"]
    rlcost.simulate({"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}}, steps=3, seed=7)
    rlcost.waterfall("run.yaml")["levers"]
    rlcost.price("run.yaml", gpus=["h100", "b200"])
    rlcost.catalog()["gpus"].keys()
    sw = rlcost.sweep("run.yaml", vary={"hardware.gpu": ["h100-sxm", "b200"], "algorithm.group_size": "4..16:4"})
    sw["rows"][0]["run.usd"]                    # the rows of `rlcost sweep --jsonl`

Every result is a dict with the keys `rlcost <command> --json` prints
(SCENARIO.md). Bad input raises ScenarioError, whose `problems` lists each
problem as {"path": field path, "message": ..., "line"/"file" when known}.
"""

import json as _json
import os as _os

from . import _rlcost

__all__ = ["estimate", "simulate", "waterfall", "price", "validate", "catalog", "sensitivity", "sweep",
           "ScenarioError", "DoesNotFitError", "NotYetError"]


class ScenarioError(ValueError):
    """The scenario (or an argument) is wrong. `problems` holds one dict per
    problem with its field `path` and `message`; `code` is rlcost's error code."""

    def __init__(self, code, problems):
        self.code = code
        self.problems = problems
        lines = []
        for p in problems:
            where = ":".join(str(x) for x in (p.get("file"), p.get("line")) if x)
            head = ": ".join(x for x in (where, p.get("path", "")) if x)
            lines.append(f"{head}: {p.get('message', '')}" if head else p.get("message", ""))
        super().__init__("\n".join(lines) or code)


class DoesNotFitError(ScenarioError):
    """The scenario is valid but cannot run as given (memory, GPU counts)."""


class NotYetError(NotImplementedError):
    """A feature rlcost does not have yet."""


def _scenario(scenario):
    """(file, text) for the engine: a path, YAML/JSON text, a dict or None (the built-in default)."""
    if scenario is None:
        return "", ""
    if isinstance(scenario, dict):
        return "", _json.dumps(scenario, allow_nan=False)
    if isinstance(scenario, _os.PathLike):
        return _os.fspath(scenario), ""
    if isinstance(scenario, str):
        # One line naming an existing file, or ending like a scenario file name, is a path.
        if "\n" not in scenario and (_os.path.isfile(scenario) or
                                     scenario.lower().endswith((".yaml", ".yml", ".json"))):
            return scenario, ""
        return "", scenario
    raise TypeError(f"scenario must be a path, YAML/JSON text or a dict, not {type(scenario).__name__}")


def _sets(overrides):
    """{"model": "qwen3-32b"} -> ["model=qwen3-32b"] (values as YAML, like --set)."""
    if not overrides:
        return []
    return [f"{k}={_json.dumps(v) if not isinstance(v, str) else v}" for k, v in overrides.items()]


_INT_MAX = 2**31 - 1
_U64_MAX = 2**64 - 1


def _int(name, value, low, high):
    """`value` as an int in [low, high], or ValueError naming the argument
    (instead of the engine's opaque "incompatible function arguments")."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) and not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}") from None
    if isinstance(value, float) and number != value:
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if not low <= number <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {number}")
    return number


def _number(name, value):
    """`value` as a finite float, or ValueError naming the argument."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return number


def _opt_number(name, value):
    return None if value is None else _number(name, value)


def _result(pair):
    code, text = pair
    data = _json.loads(text)
    if code is None:
        return data
    problems = data.get("error", {}).get("problems", [])
    if code == "does_not_fit":
        raise DoesNotFitError(code, problems)
    if code == "not_implemented":
        raise NotYetError("; ".join(p.get("message", "") for p in problems))
    if code == "too_slow":
        raise TimeoutError("; ".join(p.get("message", "") for p in problems))
    if code == "internal":
        raise RuntimeError("rlcost internal error: " + "; ".join(p.get("message", "") for p in problems))
    raise ScenarioError(code, problems)


def estimate(scenario=None, overrides=None):
    """Closed-form estimate of one scenario (like `rlcost estimate --json`).
    `overrides` maps dotted field paths to values, like `--set`."""
    return _result(_rlcost.estimate(*_scenario(scenario), _sets(overrides)))


def simulate(scenario=None, steps=0, seed=1, overrides=None):
    """Discrete-event simulation (like `rlcost simulate --json`); steps=0 runs the scenario's algorithm.steps."""
    return _result(_rlcost.simulate(*_scenario(scenario), _sets(overrides), _int("seed", seed, 0, _U64_MAX),
                                    _int("steps", steps, 0, _INT_MAX)))


def waterfall(scenario=None, order="async,fp8,hardware,fp4,grpo2,batch,lora,moe", gpu="b200", tenants=0, rank=0,
              moe_model="", dense_model="", overrides=None, moe_pass_rate=None, dense_pass_rate=None,
              staleness_discount=None, fp8_discount=None, fp4_discount=None, baseline="run"):
    """The cost levers applied one at a time to your run (like `rlcost waterfall --json`).

    baseline="run" starts them from the scenario's run as estimate() prices it; "naive" from the
    essay's naive H100 + synchronous baseline (the other is the result's "reference" row).

    moe_model="" takes the catalog MoE paired with the scenario's model by quality; the *_pass_rate
    arguments give each model its own mean pass rate; the *_discount arguments (fractions in [0, 1))
    replace the labelled default quality discounts; None keeps the defaults.
    """
    if not isinstance(order, str):
        order = ",".join(order)
    return _result(_rlcost.waterfall(*_scenario(scenario), _sets(overrides), order, str(gpu),
                                     _int("tenants", tenants, 0, _INT_MAX), _int("rank", rank, 0, _INT_MAX),
                                     str(moe_model), str(dense_model),
                                     _opt_number("moe_pass_rate", moe_pass_rate),
                                     _opt_number("dense_pass_rate", dense_pass_rate),
                                     _opt_number("staleness_discount", staleness_discount),
                                     _opt_number("fp8_discount", fp8_discount),
                                     _opt_number("fp4_discount", fp4_discount), str(baseline)))


def price(scenario=None, models=(), gpus=(), stack="", tenants=0, overrides=None,
          staleness_discount=None, fp8_discount=None, fp4_discount=None):
    """Price card per model x GPU (like `rlcost price --json`); the *_discount arguments as waterfall's."""
    if not isinstance(stack, str):
        stack = ",".join(stack)
    if isinstance(models, str):
        models = [models]
    if isinstance(gpus, str):
        gpus = [gpus]
    return _result(_rlcost.price(*_scenario(scenario), _sets(overrides), [str(m) for m in models],
                                 [str(g) for g in gpus], stack, _int("tenants", tenants, 0, _INT_MAX),
                                 _opt_number("staleness_discount", staleness_discount),
                                 _opt_number("fp8_discount", fp8_discount), _opt_number("fp4_discount", fp4_discount)))


def validate(directory, path="both", seed=1, sim_steps=0):
    """Predicted vs measured for a folder of scenarios with `expect` blocks (like `rlcost validate --json`)."""
    return _result(_rlcost.validate(_os.fspath(directory), str(path), _int("seed", seed, 0, _U64_MAX),
                                    _int("sim_steps", sim_steps, 0, _INT_MAX)))


def catalog():
    """The built-in GPUs and models (like `rlcost catalog --json`)."""
    return _result(_rlcost.catalog())


def sensitivity(scenario=None, metric=None, span=0.5, ranges=None, path="analytic", seed=1, steps=0,
                overrides=None):
    """Which input a figure hangs on (like `rlcost sensitivity --json`): each input
    moved over its value x (1 - span) .. x (1 + span), or over your own
    `ranges` ({"environment.response_tokens.mean": (6000, 16000)}, absolute
    values), the rows sorted by how far `metric` swings (default: goal.usd when
    the scenario has a goal, else run.usd). path="simulated" simulates each
    point with the same seed."""
    pairs = {}
    for key, value in (ranges or {}).items():
        try:
            low, high = value
            pairs[str(key)] = (float(low), float(high))
        except (TypeError, ValueError):
            raise ScenarioError("invalid_input", [{"path": f"ranges.{key}",
                                                   "message": f"{value!r}; expected (low, high)"}]) from None
    return _result(_rlcost.sensitivity(*_scenario(scenario), _sets(overrides), metric or "", _number("span", span),
                                       pairs, str(path), _int("seed", seed, 0, _U64_MAX),
                                       _int("steps", steps, 0, _INT_MAX)))


def sweep(scenario=None, vary=None, sample=0, seed=1, metrics=None, simulate=False, steps=0, overrides=None,
          max_points=100_000, timeout=None, jobs=0, frame=False):
    """A full estimate at every point of a grid of scenario fields, or of a
    Latin-hypercube sample of it (`sample` points): `rlcost sweep` from Python.

    vary maps a field path to its values, a list or a range text:
        {"hardware.gpu": ["h100-sxm", "b200"], "algorithm.group_size": "4..16:4"}
    (a list of "KEY=V1,V2,..." strings, as for --vary, works too). `overrides`
    fixes fields at every point, like --set; `metrics` picks the columns (JSON
    keys such as "run.usd"; default: the main ones); `simulate` runs the
    simulator at every point (`steps` each; 0 = the scenario's).

    Returns {"engine", "keys", "metrics", "points", "goal_curve_is_illustrative",
    "notes", "rows"}: the rows are those of `rlcost sweep --jsonl`, in point
    order (a point that does not fit is a row with its status and reason).
    When the columns hold a goal figure (goal.steps, goal.usd, ...), each row
    ends with "goal_curve", what that figure rests on ("illustrative": rlcost's
    default learning curve, not measured; "published:NAME"; "given"), and
    "notes" says it once. frame=True returns the rows as a pandas DataFrame
    instead (pandas is then needed), with that column, and the flag and notes
    in its `attrs`.

    Bounded: a design of more than `max_points` points is refused before it
    runs; one still running after `timeout` seconds (None: no limit) raises
    TimeoutError; Ctrl-C stops it (KeyboardInterrupt).
    """
    if vary is None:
        raise ScenarioError("invalid_input", [{"path": "vary", "message": "nothing to vary; expected e.g. "
                                               "vary={\"hardware.gpu\": [\"h100-sxm\", \"b200\"]}"}])
    if isinstance(vary, str):
        vary = [vary]
    # A dict's order is the sweep's (the first key varies slowest): sent as pairs.
    vary = [[k, v] for k, v in vary.items()] if isinstance(vary, dict) else list(vary)
    sample = _int("sample", sample, 0, _U64_MAX)
    max_points = _int("max_points", max_points, 1, _U64_MAX)
    if timeout is not None and not _number("timeout", timeout) > 0:
        raise ValueError(f"timeout must be a number of seconds > 0 or None, got {timeout}")
    if isinstance(metrics, str):
        metrics = [metrics]
    # jobs: threads (0 = every core; at most one per core), on those that
    # start where the machine limits threads.
    result = _result(_rlcost.sweep(*_scenario(scenario), _sets(overrides), _json.dumps(vary, allow_nan=False),
                                   sample, _int("seed", seed, 0, _U64_MAX), list(metrics or ()), bool(simulate),
                                   _int("steps", steps, 0, _INT_MAX), _int("jobs", jobs, 0, 4096), max_points,
                                   float(timeout or 0)))
    if not frame:
        return result
    try:
        import pandas
    except ImportError as e:
        raise ImportError("frame=True needs pandas (Debian: python3-pandas); without it, use the "
                          "result's \"rows\"") from e
    columns = ["point", *result["keys"], "status", "reason", *(m["key"] for m in result["metrics"])]
    if any(m["key"].startswith("goal.") for m in result["metrics"]):
        columns.append("goal_curve")
    columns.append("note")
    df = pandas.DataFrame(result["rows"], columns=columns)
    df.attrs["goal_curve_is_illustrative"] = result["goal_curve_is_illustrative"]
    df.attrs["notes"] = result["notes"]
    return df
