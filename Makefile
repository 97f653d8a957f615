# reluopt: two commands on a fresh Debian 12 machine.
#   make demo        install what is missing, build the command line (Release), solve an example to a proven optimum
#   make test        install what is missing, build, run every test through ctest, then the Python package's
#                    pytest suite in .venv (make test-python)
#   make python      the Python package (pip install into .venv, against the C++ build's library)
#   make test-asan   the whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan)
#   make test-tsan   the threaded tests under ThreadSanitizer (build-tsan)
#   make fuzz        a short libFuzzer run of every reader (clang from Debian, build-fuzz)
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
# Seconds of fuzzing per target in `make fuzz`.
FUZZ_SECONDS ?= 15

# Debian 12 packages the build, the tests and the benchmarks need.
DEBIAN_PACKAGES := cmake make g++ pkg-config \
  coinor-libclp-dev coinor-libcbc-dev coinor-libcgl-dev coinor-libosi-dev \
  libonnx-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev libeigen3-dev libgtest-dev \
  python3 python3-numpy python3-onnx python3-scipy
DEBIAN_PACKAGES += libboost-dev libnlopt-cxx-dev gnuplot-nox
# The Python package's virtual environment and its headers for Debian's python3 (the same names on 12 and 13).
DEBIAN_PACKAGES += python3-venv python3-dev
DEBIAN_PACKAGES += libopenmpi-dev openmpi-bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The suites ThreadSanitizer runs: the ones whose code runs on several threads (sampling, bab, enhanced, the
# stop rule, bound tightening, the checkpoint gate, gradient, walk, verify's concurrent search and prover).
TSAN_TESTS := ^([A-Za-z]+/)?(WorkerThreads|Sampling|SamplingValues|Bab|Enhanced|EnhancedOnTinyNetworks|StopRuleMethods|LpBounds|CheckpointGate|Gradient|GradientSmall|Walk|WalkSmall|Verify|Portfolio|PortfolioSmall|Backstop)\.
FUZZ_TARGETS := fuzz_onnx fuzz_nnet fuzz_domain_json fuzz_objective_json fuzz_vnnlib fuzz_problem_json

.PHONY: all deps fuzz-deps build build-fuzz test test-asan test-tsan fuzz demo bench bench-venv clean venv python test-python

all: build

# Installs the packages of $(1) that are missing, so a ready machine never touches apt.
define install_missing
missing=""; \
for p in $(1); do \
  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
  echo "Installing missing Debian packages:$$missing"; \
  $(SUDO) apt-get update -qq && \
  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
fi
endef

deps:
	@$(call install_missing,$(DEBIAN_PACKAGES))

# The unversioned clang package is the release's default compiler (14 on Debian 12, 19 on Debian 13); its
# libFuzzer and sanitizer runtimes are in libclang-rt-N-dev of the same major version N.
fuzz-deps: deps
	@$(call install_missing,clang)
	@major=$$(clang --version | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1); \
	$(call install_missing,libclang-rt-$$major-dev)

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DRELUOPT_UNITY=ON
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build python
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)
	$(PYTEST)

# The Python package lives in .venv, made from the first python3 on PATH (a CPython 3.11 where there is one, so
# that torch==2.13.0 installs; else Debian's). torch and scikit-learn are optional: without them their tests are
# skipped. `pip install .` alone also works: it compiles the library a second time.
VENV ?= .venv
VENV_PYTHON := $(VENV)/bin/python
TEST_EXTRAS := test,sklearn,progress,plot
TORCH_PIN ?= torch==2.13.0
comma := ,

# --no-compile: pip byte-compiles every module it installs, torch's thousands among them (torch alone: 24 CPU s
# and 177 s on a loaded machine with, 7 CPU s and 45 s without); Python compiles the few the tests import.
$(VENV)/.deps: pyproject.toml scripts/pyproject_pins.py
	python3 -m venv $(VENV)
	$(VENV_PYTHON) scripts/pyproject_pins.py pyproject.toml $(subst $(comma), ,$(TEST_EXTRAS)) > $(VENV)/pins.txt
	$(VENV_PYTHON) -m pip install -q --no-compile -r $(VENV)/pins.txt
	$(VENV_PYTHON) -m pip install -q --no-compile $(TORCH_PIN) || { test -z "$$RELUOPT_REQUIRE_TORCH" && \
	  echo "note: $(TORCH_PIN) did not install; the torch tests are skipped"; }
	touch $@

venv: deps $(VENV)/.deps

# The extension alone, linked to the library the C++ build installs into $(BUILD_DIR)/prefix.
python: build venv
	cmake --install $(BUILD_DIR) --prefix $(CURDIR)/$(BUILD_DIR)/prefix > /dev/null
	$(VENV_PYTHON) -m pip install -q --no-build-isolation --no-deps -C build-dir=$(BUILD_DIR)/pip \
	  -C cmake.define.RELUOPT_INSTALLED=$(CURDIR)/$(BUILD_DIR)/prefix .

# The Python tests compare with the command line of the same build.
PYTEST = RELUOPT_CLI=$(CURDIR)/$(BUILD_DIR)/reluopt $(VENV_PYTHON) -m pytest -q -p no:cacheprovider tests/python

test-python: python
	$(PYTEST)

# The sanitizer builds use g++, whose runtimes come with it; a report fails the test (docs/FUZZING.md).
# -O1 keeps their builds short; the sanitizers' own checks cost more than the optimization saves.
SANITIZE_FLAGS := -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DRELUOPT_UNITY=ON

# Without the MPI coordinator: cli_mpi runs serially and takes 255 s under AddressSanitizer (Open MPI's own
# libraries are not instrumented); `make test` runs it, and nothing else of the suite reaches src/distributed/.
test-asan: deps
	cmake -S . -B build-asan $(SANITIZE_FLAGS) -DRELUOPT_SANITIZE=address,undefined -DRELUOPT_WITH_MPI=OFF
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/cmake/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir build-asan --output-on-failure -j $(JOBS)

test-tsan: deps
	cmake -S . -B build-tsan $(SANITIZE_FLAGS) -DRELUOPT_SANITIZE=thread -DRELUOPT_THREADED_TESTS_ONLY=ON
	cmake --build build-tsan -j $(JOBS) --target reluopt_tests
	TSAN_OPTIONS=suppressions=$(CURDIR)/cmake/tsan.supp:halt_on_error=1:second_deadlock_stack=1 \
	ctest --test-dir build-tsan --output-on-failure -j $(JOBS) -R '$(TSAN_TESTS)'

# The fuzz targets link only the reader objects they need from an archive: no unity batches there.
build-fuzz: fuzz-deps
	CXX=clang++ cmake -S . -B build-fuzz $(SANITIZE_FLAGS) -DRELUOPT_FUZZ=ON -DRELUOPT_UNITY=OFF \
	  -DRELUOPT_BUILD_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS) --target $(FUZZ_TARGETS)

fuzz: build-fuzz
	fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The command line alone (no test target), then the largest prediction of a trained regressor over [0,1]^4: the
# default method searches, its prover closes the gap, and the summary shows the value with its proven bound.
demo: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DRELUOPT_UNITY=ON
	cmake --build $(BUILD_DIR) -j $(JOBS) --target reluopt_cli
	$(BUILD_DIR)/reluopt solve bench/models/reg4.onnx --time-limit 10 --seed 1 --json $(BUILD_DIR)/demo_result.json
	@echo "JSON result written to $(BUILD_DIR)/demo_result.json"

bench: build
	/usr/bin/python3 bench/bench_sampling.py --reluopt $(BUILD_DIR)/reluopt

# The peer MIP tools of bench/models_peers.py (Gurobi + gurobi-ml, SCIP + PySCIPOpt-ML, OMLT + Pyomo + HiGHS)
# in their own virtual environment, never in pyproject.toml; a CPython 3.11 where there is one (torch==2.13.0).
BENCH_VENV ?= bench/.venv-peers
BENCH_PYTHON ?= $(shell command -v python3.11 || command -v python3)

$(BENCH_VENV)/.deps: bench/requirements-peers.txt
	$(BENCH_PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install -q -r bench/requirements-peers.txt
	touch $@

bench-venv: $(BENCH_VENV)/.deps

clean:
	rm -rf $(BUILD_DIR) build-asan build-tsan build-fuzz $(VENV)
