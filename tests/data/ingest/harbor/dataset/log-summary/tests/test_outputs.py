import json
import subprocess


def run(path):
    out = subprocess.run(["python3", "/app/summarize.py", path], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_counts():
    summary = run("/tests/fixtures/small.log")
    assert summary["requests"] == 12
    assert summary["malformed"] == 2
    assert summary["status"]["200"] == 9
