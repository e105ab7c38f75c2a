#!/usr/bin/env bash
# Whole-process start-up: median wall time of 20 runs (after 3 unmeasured
# ones) of /bin/true (what any process costs here), `rlcost --version` (start-up
# alone) and `rlcost estimate SCENARIO --json` (start-up plus one estimate),
# and the median CPU time (user + system) of the same runs. Each run is
# started with posix_spawn and timed with a monotonic clock around it, its
# output sent to /dev/null.
# Usage: bench/startup.sh [BUILD_DIR] [SCENARIO] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
scenario=${2:-$root/../shared/scenarios/default.yaml}
runs=${3:-20}
[[ -x $build/rlcost ]] || { echo "$build/rlcost is not built"; exit 1; }
[[ -r $scenario ]] || { echo "cannot read the scenario $scenario"; exit 1; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
python3 - "$runs" "$build/rlcost" "$scenario" <<'PY'
import os, statistics, sys, time
runs, rlcost, scenario = int(sys.argv[1]), sys.argv[2], sys.argv[3]
null = os.open(os.devnull, os.O_WRONLY)
fa = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
def once(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=fa)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - t0) / 1e6
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)} failed with status {os.waitstatus_to_exitcode(status)}")
    return wall, (ru.ru_utime + ru.ru_stime) * 1e3
for name, argv in [("/bin/true", ["/bin/true"]),
                   ("rlcost --version", [rlcost, "--version"]),
                   ("rlcost estimate SCENARIO --json", [rlcost, "estimate", scenario, "--json"])]:
    for _ in range(3): once(argv)
    w, c = zip(*(once(argv) for _ in range(runs)))
    print(f"{name:34s} median wall {statistics.median(w):6.2f} ms  (min {min(w):6.2f})  "
          f"median CPU {statistics.median(c):6.2f} ms  ({runs} runs)")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
