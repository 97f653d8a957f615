# reluopt: two commands on a fresh Debian 12 machine.
#   make demo   install what is missing, build (Release), solve the example network
#   make test   install what is missing, build, run every test through ctest
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

# Debian 12 packages the build, the tests and the benchmarks need.
DEBIAN_PACKAGES := cmake make g++ pkg-config \
  coinor-libclp-dev coinor-libcbc-dev coinor-libcgl-dev coinor-libosi-dev \
  libonnx-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev libeigen3-dev libgtest-dev \
  python3 python3-numpy python3-onnx python3-scipy
DEBIAN_PACKAGES += libboost-dev libnlopt-cxx-dev gnuplot-nox
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build test demo bench clean

all: build

# Installs only the packages that are missing, so a ready machine never touches apt.
deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

demo: build
	$(BUILD_DIR)/reluopt solve examples/xavier_10_50_50.onnx --domain examples/budget_domain.json \
	  --samples 1000 --seed 1 --json $(BUILD_DIR)/demo_result.json
	@echo "JSON result written to $(BUILD_DIR)/demo_result.json"

bench: build
	/usr/bin/python3 bench/bench_sampling.py --reluopt $(BUILD_DIR)/reluopt

clean:
	rm -rf $(BUILD_DIR)
