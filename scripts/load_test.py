#!/usr/bin/env python3
"""The abuse of issue #40 run against rlcost-serve, as a stranger would send it.

    python3 scripts/load_test.py [--rlcost build/release/rlcost] [--quick]

Starts `rlcost serve --port 0`, then, one scene after another:
  alias      the 405-byte YAML alias request (10^8 leaves) and the invalid
             UTF-8 YAML body whose aliases copy a bad leaf
  slowloris  64 idle keep-alive connections and a client trickling header
             lines; /v1/health on new connections meanwhile
  estimate   a burst of estimates (32 clients) and the 350-byte re-split
             estimate of #40 (64 phases, growing lengths, speculation,
             partial rollouts)
  forecast   64 concurrent /v1/forecast requests on a 1 MiB log
and prints, per endpoint: requests, answers per second, p50/p99 latency,
refusals (503, 504, 4xx), and the server's resident memory (peak while the
scene ran, and idle after it). Standard library only.
"""
import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def alias_bomb(levels, leaf="x"):
    out = "{a0: &a0 [" + ",".join([leaf] * 10) + "]"
    for lvl in range(1, levels):
        prev = "*a%d" % (lvl - 1)
        out += ", a%d: &a%d [" % (lvl, lvl) + ",".join([prev] * 10) + "]"
    return out + "}"


class Server:
    def __init__(self, rlcost, extra):
        self.proc = subprocess.Popen([rlcost, "serve", "--port", "0"] + extra, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        self.port = int(line.rsplit(":", 1)[1])
        self.peak = 0
        self._stop = False
        self._t = threading.Thread(target=self._watch, daemon=True)
        self._t.start()

    def rss_mb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def _watch(self):
        while not self._stop:
            try:
                self.peak = max(self.peak, self.rss_mb())
            except OSError:
                return
            time.sleep(0.02)

    def reset_peak(self):
        self.peak = self.rss_mb()

    def stop(self):
        self._stop = True
        self.proc.terminate()
        self.proc.wait()


def request(port, method, path, body=None, ctype="application/json", timeout=60):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    t0 = time.monotonic()
    try:
        c.request(method, path, body=body, headers={"Content-Type": ctype} if body is not None else {})
        r = c.getresponse()
        data = r.read()
        return r.status, data, time.monotonic() - t0
    except (OSError, http.client.HTTPException):
        return 0, b"", time.monotonic() - t0
    finally:
        c.close()


class Tally:
    def __init__(self):
        self.rows = {}

    def add(self, name, results, wall_s, peak_mb, idle_mb):
        lat = sorted(r[2] for r in results)
        def pct(p):
            return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else 0.0
        refused = sum(1 for r in results if r[0] in (503, 504) or r[0] == 0)
        bad = sum(1 for r in results if 400 <= r[0] < 500)
        ok = sum(1 for r in results if r[0] == 200)
        self.rows[name] = dict(n=len(results), ok=ok, per_s=len(results) / wall_s if wall_s > 0 else 0, p50=pct(0.5),
                               p99=pct(0.99), refused=refused, bad=bad, peak=peak_mb, idle=idle_mb,
                               max_bytes=max((len(r[1]) for r in results), default=0))

    def show(self):
        head = "%-22s %6s %6s %9s %9s %9s %8s %6s %9s %9s %10s" % (
            "scene/endpoint", "reqs", "200", "req/s", "p50 ms", "p99 ms", "503/504", "4xx", "peak MB", "idle MB",
            "max body")
        print(head)
        print("-" * len(head))
        for k, r in self.rows.items():
            print("%-22s %6d %6d %9.1f %9.1f %9.1f %8d %6d %9.0f %9.0f %10d" % (
                k, r["n"], r["ok"], r["per_s"], r["p50"], r["p99"], r["refused"], r["bad"], r["peak"], r["idle"],
                r["max_bytes"]))


def burst(port, n, clients, make):
    results = []
    lock = threading.Lock()
    idx = [0]

    def worker():
        while True:
            with lock:
                i = idx[0]
                idx[0] += 1
            if i >= n:
                return
            r = make(i)
            with lock:
                results.append(r)

    t0 = time.monotonic()
    ts = [threading.Thread(target=worker) for _ in range(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return results, time.monotonic() - t0


def scene_alias(srv, tally):
    srv.reset_peak()
    body = json.dumps({"set": ["run=" + alias_bomb(8)]})
    res, wall = burst(srv.port, 20, 4, lambda i: request(srv.port, "POST", "/v1/estimate", body))
    tally.add("alias /v1/estimate", res, wall, srv.peak, srv.rss_mb())
    print("alias request: %d bytes; status %d; slowest %.1f ms" % (len(body), res[0][0], max(r[2] for r in res) * 1000))
    y = ("model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nrun: " + alias_bomb(4, "\xe9") + "\n").encode("latin-1")
    res, wall = burst(srv.port, 20, 4, lambda i: request(srv.port, "POST", "/v1/estimate", y, "application/yaml"))
    tally.add("utf8 /v1/estimate", res, wall, srv.peak, srv.rss_mb())
    print("invalid UTF-8 YAML body: %d bytes; status %d; answer %d bytes" % (len(y), res[0][0], len(res[0][1])))


def scene_slowloris(srv, tally, header_timeout_s):
    srv.reset_peak()
    idle = []
    for _ in range(64):
        s = socket.create_connection(("127.0.0.1", srv.port))
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        s.recv(4096)
        idle.append(s)
    slow = socket.create_connection(("127.0.0.1", srv.port))
    slow.sendall(b"GET /v1/health HTTP/1.1\r\n")
    t0 = time.monotonic()
    closed_after = None
    results = []
    i = 0
    slow.settimeout(0.2)
    while time.monotonic() - t0 < header_timeout_s + 3:
        results.append(request(srv.port, "GET", "/v1/health", timeout=5))
        try:
            slow.sendall(("X-Slow-%d: 1\r\n" % i).encode())
            i += 1
        except OSError:
            pass
        try:
            data = slow.recv(4096)
            while data:
                data = slow.recv(4096)
            closed_after = time.monotonic() - t0
            break
        except socket.timeout:
            pass
        except OSError:
            closed_after = time.monotonic() - t0
            break
    wall = time.monotonic() - t0
    tally.add("slowloris /v1/health", results, wall, srv.peak, srv.rss_mb())
    print("64 idle keep-alive + slowloris: /v1/health slowest %.1f ms over %d requests; slowloris closed after %s" % (
        max(r[2] for r in results) * 1000, len(results),
        "%.2f s" % closed_after if closed_after is not None else "NOT CLOSED"))
    for s in idle + [slow]:
        s.close()


def scene_estimate(srv, tally, quick):
    srv.reset_peak()
    res, wall = burst(srv.port, 100 if quick else 400, 32,
                      lambda i: request(srv.port, "POST", "/v1/estimate",
                                        json.dumps({"set": ["algorithm.group_size=%d" % (2 + i % 60)]})))
    tally.add("burst /v1/estimate", res, wall, srv.peak, srv.rss_mb())
    # 64 one-GPU nodes: 64 phases x 33 candidate splits of analytic steps.
    slow = json.dumps({"set": ["placement.resplit={phases: 64, restart_s: 0}", "hardware.gpus=64",
                               "hardware.gpus_per_node=1", "placement.mode=disaggregated", "placement.rollout_gpus=24",
                               "placement.train_gpus=40", "environment.response_tokens={mean: 8000, cv: 0.8, max: 32768}",
                               "environment.response_tokens_schedule={start_mean: 500, end_mean: 16000}",
                               "engine.speculative={method: eagle, draft_tokens: 3, acceptance: 0.6}",
                               "pipeline.partial_rollouts=true"]})
    r = request(srv.port, "POST", "/v1/estimate", slow)
    tally.add("resplit /v1/estimate", [r], r[2], srv.peak, srv.rss_mb())
    print("re-split estimate (%d bytes): status %d in %.2f s" % (len(slow), r[0], r[2]))


def scene_forecast(srv, tally):
    lines = ["step,val_acc,step_time_s"]
    step = 1
    size = len(lines[0]) + 1
    # The log's text is 1 MiB less what JSON's escapes ("\\n") and the
    # request's other fields add: the body stays under the 1 MiB limit.
    while size < (1 << 20) - (step + 1024):
        line = "%d,%.6f,%.3f" % (step, 0.2 + 0.5 * (1 - 1.0 / (1 + step / 5000.0)), 60.0 + (step % 7))
        lines.append(line)
        size += len(line) + 1
        step += 1
    body = json.dumps({"log": "\n".join(lines) + "\n", "target": 0.6})
    before = srv.rss_mb()
    srv.reset_peak()
    res, wall = burst(srv.port, 64, 64, lambda i: request(srv.port, "POST", "/v1/forecast", body, timeout=120))
    # Idle memory once the computations past their 504 have ended too.
    end = time.monotonic() + 120
    while time.monotonic() < end:
        st, data, _ = request(srv.port, "GET", "/v1/health")
        if st == 200 and json.loads(data).get("computations_running", 0) == 0:
            break
        time.sleep(0.5)
    time.sleep(0.5)
    tally.add("burst /v1/forecast", res, wall, srv.peak, srv.rss_mb())
    print("64 forecasts of a %d-byte log: peak %.0f MB, idle %.0f MB after (%.0f MB before)" % (
        len(body), srv.peak, srv.rss_mb(), before))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rlcost", default=os.path.join(REPO, "build", "release", "rlcost"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--header-timeout-ms", type=int, default=2000)
    a = ap.parse_args()
    srv = Server(a.rlcost, ["--header-timeout-ms", str(a.header_timeout_ms)])
    start_mb = srv.rss_mb()
    tally = Tally()
    try:
        scene_alias(srv, tally)
        scene_slowloris(srv, tally, a.header_timeout_ms / 1000.0)
        scene_estimate(srv, tally, a.quick)
        scene_forecast(srv, tally)
        print("server memory at start %.0f MB, at the end %.0f MB" % (start_mb, srv.rss_mb()))
        print()
        tally.show()
    finally:
        srv.stop()


if __name__ == "__main__":
    sys.exit(main())
