#!/bin/bash
cat > /app/summarize.py <<'PY'
import collections, json, re, sys
LINE = re.compile(r'^\S+ \S+ \S+ \[[^\]]+\] "(?:GET|POST|PUT|DELETE|HEAD) (\S+) [^"]*" (\d{3}) ')
status, paths, ok, bad = collections.Counter(), collections.Counter(), 0, 0
with open(sys.argv[1], "rb") as f:
    for raw in f:
        m = LINE.match(raw.decode("utf-8", "replace"))
        if not m:
            bad += 1
            continue
        ok += 1
        paths[m.group(1)] += 1
        status[m.group(2)] += 1
top = sorted(paths.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
print(json.dumps({"requests": ok, "status": dict(status), "top_paths": [p for p, _ in top], "malformed": bad}))
PY
