# Two entry points (see README): `make run` and `make test`.
# Each installs missing Debian packages, configures with the CMake preset and builds.
PRESET ?= release
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)
# Unity builds (CMakeLists.txt): about 3x less compiling for a fresh build
# (src/decide: 63 -> 20 CPU-seconds); UNITY=OFF builds file by file.
UNITY ?= ON

.PHONY: deps build run test test-asan bench docs clean fuzz

deps:
	@scripts/install-deps.sh --with-browser

build: deps
	@cmake --preset $(PRESET) -DCMAKE_UNITY_BUILD=$(UNITY) >/dev/null
	@cmake --build --preset $(PRESET) -j $(JOBS)

run: build
	@$(BUILD_DIR)/rlcost estimate

test: build
	@ctest --preset $(PRESET) -j $(JOBS)

# The unit tests under AddressSanitizer + UndefinedBehaviorSanitizer (preset
# asan-ubsan, clang-14; CI runs it after `make test`). The same build holds the
# libFuzzer targets (`make fuzz` runs them without building again), so CI
# compiles the library twice, not three times. Left out there: web.e2e and
# web.report_geometry, the browser tests (they check the pages in Chromium; the
# server and report code they drive run under the sanitizers in serve_test and
# html_test), the benchmarks and the Python module (python3 cannot load a
# sanitized module).
test-asan:
	@scripts/install-deps.sh --with-fuzz
	@cmake --preset asan-ubsan -DCMAKE_UNITY_BUILD=$(UNITY) >/dev/null
	@cmake --build --preset asan-ubsan -j $(JOBS)
	@echo "asan-ubsan: web.e2e, web.report_geometry and python.pytest are not run under the sanitizers (browser JavaScript; python3 cannot load a sanitized module), nor the four checks that committed generated files match the code (docs/validation*.md, catalog/intervals.yaml, the forecast back-test: the release suite runs them; under the sanitizers they were 330 of 620 test-seconds); two tests check a stated sample there (FastOverrides.EveryField...: every sixth shared scenario and default.yaml; KvLimitSweep: 112-160 prompts), the release suite all of it"
	@ctest --preset asan-ubsan -j $(JOBS)

bench: build
	@$(BUILD_DIR)/bench/rlcost_bench

docs: build
	@$(BUILD_DIR)/rlcost validate ../shared/validation --learning validation/learning --markdown docs/validation.md --report-only >/dev/null
	@$(BUILD_DIR)/rlcost validate ../shared/validation --facts ../shared/validation/facts/source-facts.yaml --markdown docs/validation-source-facts.md --report-only >/dev/null
	@$(BUILD_DIR)/rlcost validate ../shared/validation/logs --markdown docs/validation-logs.md --report-only >/dev/null
	@scripts/forecast-validation.sh $(BUILD_DIR)/rlcost > docs/forecast-validation.md
	@echo "wrote docs/validation.md, docs/validation-source-facts.md, docs/validation-logs.md and docs/forecast-validation.md"

# libFuzzer targets (clang-14): built in the sanitizer build (preset
# asan-ubsan; nothing to do when `make test-asan` built them), then each run
# FUZZ_SECONDS (default 60) on the seed corpus; see fuzz/run.sh. Each libFuzzer
# process uses one core: the six targets run as two groups side by side (each
# group's output printed when it ends), the two that reach the time cap first
# (overrides, catalog) in different groups. Every target still gets its own
# core for its FUZZ_SECONDS and the same seeded inputs as one after another.
FUZZ_SECONDS ?= 60
FUZZ_GROUP_1 ?= overrides scenario log
FUZZ_GROUP_2 ?= catalog import request
fuzz:
	@scripts/install-deps.sh --with-fuzz
	@cmake --preset asan-ubsan -DCMAKE_UNITY_BUILD=$(UNITY) >/dev/null
	@cmake --build --preset fuzz -j $(JOBS)
	@s=0; fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_GROUP_1) > build/asan-ubsan/fuzz-group-1.log 2>&1 & p=$$!; \
	 fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_GROUP_2) > build/asan-ubsan/fuzz-group-2.log 2>&1 || s=1; \
	 wait $$p || s=1; cat build/asan-ubsan/fuzz-group-1.log build/asan-ubsan/fuzz-group-2.log; exit $$s

clean:
	rm -rf build
