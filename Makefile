# mla-bench. `make` builds build/mla-bench; `make test` runs the host tests (no GPU); `make test-gpu`
# runs the GPU tests; `make kernels-amd` compiles every kernel for an AMD target (device code only).
#   GPU=nvidia|amd   which toolchain (default: nvidia if nvcc is found, else amd if hipcc is found)
#   ARCH=gfx942      AMD target for GPU=amd and kernels-amd
#   WERROR=1         warnings are errors (CI)
#   TRACE=1          the sm90 walkers stamp their tiles (kernels/sm90_trace.h; MB_TRACE=file)

VERSION  := 0.1.0
BUILD    := build
CC       ?= gcc
NVCC     ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
HIPCC    ?= $(shell command -v hipcc 2>/dev/null)
GPU      ?= $(if $(NVCC),nvidia,$(if $(HIPCC),amd,none))
ARCH     ?= gfx942
# gfx942 (MI300) reads and writes fp8 e4m3fnuz; every other target the OCP e4m3fn.
FNUZ      = $(if $(filter gfx940 gfx941 gfx942,$(ARCH)),1,0)

CJSON_CFLAGS ?= $(shell pkg-config --cflags libcjson 2>/dev/null)
CJSON_LIBS   ?= $(shell pkg-config --libs libcjson 2>/dev/null)

WARN     := -Wall -Wextra $(if $(WERROR),-Werror)
CFLAGS   := -std=c11 -O2 -g $(WARN) -D_GNU_SOURCE
# fp32 denormals must be kept: the kernels decode fp8 subnormals through float denormals.
NVFLAGS  := -x cu -std=c++17 -O3 -Xcompiler "$(WARN)" -Xptxas -warn-spills -gencode=arch=compute_90a,code=sm_90a $(if $(TRACE),-DMB_TRACE)
# Portable kernels also carry PTX that any later NVIDIA GPU can compile at load; *_sm90 kernels are
# Hopper code only and are never launched elsewhere.
PTX_FALLBACK := -gencode=arch=compute_80,code=compute_80

HOST_SRC := src/config.c src/config_filter.c src/config_set.c src/plan.c src/stats.c src/metrics.c src/report.c src/report_json.c \
            src/report_text.c src/npy.c src/tuning.c src/sweep.c src/compare.c src/mwu.c src/svg.c src/plot.c src/jsonio.c src/stop.c \
            src/floor.c
GPU_SRC  := src/main.c src/cli_opts.c src/cmd_run.c src/cmd_sweep.c src/cmd_compare.c src/cmd_plot.c src/cmd_check.c src/cmd_info.c src/gpuenv.c src/path.c src/check.c src/runner.c \
            src/timing.c src/dump.c src/cmd_floor.c src/floor_measure.c
KERNELS  := $(wildcard kernels/*.hip)
UNIT_SRC := $(wildcard tests/unit/*.c)

HOST_OBJ   := $(HOST_SRC:%.c=$(BUILD)/%.o)
GPU_OBJ    := $(GPU_SRC:%.c=$(BUILD)/%.o)
KERNEL_OBJ := $(KERNELS:%.hip=$(BUILD)/%.o)
UNIT_OBJ   := $(UNIT_SRC:%.c=$(BUILD)/%.o)

ifeq ($(GPU),nvidia)
  CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
  GPU_CFLAGS := -I$(CUDA_HOME)/include
  KCOMPILE    = $(NVCC) $(NVFLAGS) $(if $(filter %_sm90.hip,$<),,$(PTX_FALLBACK)) -c $< -o $@
  # nvcc links the CUDA runtime statically by default: the binary needs only the driver.
  LINK        = $(NVCC) -o $@ $^ $(CJSON_LIBS) -lm
else ifeq ($(GPU),amd)
  GPU_CFLAGS := -DMB_GPU_AMD -D__HIP_PLATFORM_AMD__ -I/opt/rocm/include
  KCOMPILE    = $(HIPCC) -x hip -std=c++17 -O3 $(WARN) --offload-arch=$(ARCH) -DMB_FP8_FNUZ=$(FNUZ) -c $< -o $@
  LINK        = $(HIPCC) -o $@ $^ $(CJSON_LIBS) -lm
endif

.PHONY: all test test-san test-gpu kernels-amd clean deps-check
all: deps-check $(BUILD)/mla-bench $(if $(filter nvidia,$(GPU)),$(BUILD)/sm90-layout-test $(BUILD)/sm90-wgmma-rate $(BUILD)/sm90-walker-model $(BUILD)/sm90-stream-probe $(BUILD)/sm90-store-probe $(BUILD)/mla-bench-stall)

deps-check:
	@test "$(GPU)" != none || { echo "mla-bench: no GPU compiler found: install the CUDA toolkit (nvcc) or ROCm (hipcc)"; exit 1; }
	@test -n "$(CJSON_LIBS)" || { echo "mla-bench: cJSON not found: install it (Debian/Ubuntu: apt-get install libcjson-dev pkg-config)"; exit 1; }

$(BUILD)/mla-bench: $(HOST_OBJ) $(GPU_OBJ) $(KERNEL_OBJ)
	$(LINK)

# The version header changes only when the commit (or dirtiness) does, so the binary always names
# the commit it was built from without rebuilding everything every time.
GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- src kernels Makefile 2>/dev/null || echo -dirty)
$(BUILD)/version.h: FORCE
	@mkdir -p $(@D)
	@printf '#define MB_VERSION "%s"\n#define MB_GIT_COMMIT "%s"\n' "$(VERSION)" "$(GIT_COMMIT)" > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
FORCE:

$(BUILD)/src/gpuenv.o: $(BUILD)/version.h
$(BUILD)/src/gpuenv.o: CFLAGS += -include $(BUILD)/version.h

$(HOST_OBJ) $(UNIT_OBJ): $(BUILD)/%.o: %.c $(wildcard src/*.h kernels/*.h tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CJSON_CFLAGS) -Isrc -Ikernels -Itests/unit $(GPU_CFLAGS) -c $< -o $@

$(GPU_OBJ): $(BUILD)/%.o: %.c $(wildcard src/*.h kernels/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CJSON_CFLAGS) $(GPU_CFLAGS) -c $< -o $@

$(KERNEL_OBJ): $(BUILD)/%.o: %.hip $(wildcard kernels/*.h src/numeric.h src/gpu.h)
	@mkdir -p $(@D)
	$(KCOMPILE)

$(BUILD)/unit-tests: $(UNIT_OBJ) $(HOST_OBJ)
	$(CC) -o $@ $^ $(CJSON_LIBS) -lm

# Host tests (no GPU): unit suites plus the CLI's exit codes, one summary line at the end.
test: $(BUILD)/unit-tests $(BUILD)/mla-bench
	MLA_BENCH=$(BUILD)/mla-bench $(BUILD)/unit-tests

# The host code and its unit suites under AddressSanitizer and UndefinedBehaviorSanitizer, the
# readers' malformed-input suite (tests/unit/test_robust.c) with ten times its mutants: a read past a
# buffer that happens not to crash in `make test` stops here. CI runs it before `make test`.
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_OBJ := $(HOST_SRC:%.c=$(BUILD)/san/%.o) $(UNIT_SRC:%.c=$(BUILD)/san/%.o)
$(SAN_OBJ): $(BUILD)/san/%.o: %.c $(wildcard src/*.h kernels/*.h tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -O1 $(SAN) $(CJSON_CFLAGS) -Isrc -Ikernels -Itests/unit $(GPU_CFLAGS) -c $< -o $@
$(BUILD)/unit-tests-san: $(SAN_OBJ)
	$(CC) $(SAN) -o $@ $^ $(CJSON_LIBS) -lm
test-san: $(BUILD)/unit-tests-san $(BUILD)/mla-bench
	MLA_BENCH=$(BUILD)/mla-bench MB_ROBUST_MUTANTS=4000 $(BUILD)/unit-tests-san

test-gpu: $(BUILD)/mla-bench $(if $(filter nvidia,$(GPU)),$(BUILD)/sm90-layout-test $(BUILD)/mla-bench-stall)
	bash tests/gpu/run.sh $(BUILD)/mla-bench

# The sm90 kernel's wgmma layouts and descriptors checked against host GEMMs (run by test-gpu on Hopper).
$(BUILD)/sm90-layout-test: tests/gpu/sm90_layout_test.hip $(wildcard kernels/*.h src/numeric.h src/gpu.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -o $@ $<

# mla-bench with each role of the sm90 walkers stalled 50 us at one tile (MB_DIAG_STALL_TILE,
# kernels/sm90_unit.h), so that the others run ahead as far as the barriers allow: test-gpu runs it,
# and a barrier generation that two tiles can share deadlocks it instead of hanging a user's run once
# in a rare timing.
STALL_OBJ := $(filter-out $(BUILD)/kernels/decode_sm90.o,$(KERNEL_OBJ)) $(BUILD)/stall/kernels/decode_sm90.o
$(BUILD)/stall/kernels/decode_sm90.o: kernels/decode_sm90.hip $(wildcard kernels/*.h src/numeric.h src/gpu.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -DMB_DIAG_STALL_TILE=5 -c $< -o $@
$(BUILD)/mla-bench-stall: $(HOST_OBJ) $(GPU_OBJ) $(STALL_OBJ)
	$(LINK)

# A probe (not a test): the tensor cores' rate for the wgmma shapes the walkers issue and others.
$(BUILD)/sm90-wgmma-rate: tests/gpu/sm90_wgmma_rate.hip kernels/sm90_wgmma.h kernels/common.h
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -o $@ $<

# A probe (not a test): the long 64-row units' walker without its data, to try another arrangement of
# it first (tests/gpu/sm90_walker_model.hip).
$(BUILD)/sm90-walker-model: tests/gpu/sm90_walker_model.hip $(wildcard kernels/*.h src/numeric.h src/gpu.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -o $@ $<

# A probe (not a test): how fast 128 CTAs stream a 604 MB cache from a cold L2, the 16-row walker's
# way (the TMA box) against plain loads and 1-D bulk copies (tests/gpu/sm90_stream_probe.hip).
$(BUILD)/sm90-stream-probe: tests/gpu/sm90_stream_probe.hip $(wildcard kernels/*.h src/numeric.h src/gpu.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -o $@ $<

# A probe (not a test): how fast a CTA writes a 32-row unit's rows, by the 32-row walker's store
# pattern and by others (tests/gpu/sm90_store_probe.hip).
$(BUILD)/sm90-store-probe: tests/gpu/sm90_store_probe.hip $(wildcard kernels/*.h src/numeric.h src/gpu.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -o $@ $<

# Device-only compile of every kernel for an AMD target, with clang (e.g. from
# scripts/hip-clang-gfx942.sh, prefix HIP_PREFIX). Proves the kernels build; runs nothing.
HIP_PREFIX ?= /opt/trixie-hip
HIP_CLANG  ?= $(HIP_PREFIX)/usr/lib/llvm-19/bin/clang++
kernels-amd: $(filter-out %_sm90.co,$(KERNELS:%.hip=$(BUILD)/amd-$(ARCH)/%.co))
$(BUILD)/amd-$(ARCH)/%.co: %.hip $(wildcard kernels/*.h src/numeric.h src/gpu.h)
	@mkdir -p $(@D)
	$(HIP_CLANG) -x hip -std=c++17 -O3 $(WARN) -isystem $(HIP_PREFIX)/usr/include --rocm-path=$(HIP_PREFIX)/usr \
	  --rocm-device-lib-path=$(HIP_PREFIX)/usr/lib/llvm-17/lib/clang/17/amdgcn/bitcode --offload-arch=$(ARCH) \
	  -DMB_GPU_AMD -DMB_FP8_FNUZ=$(FNUZ) --cuda-device-only --no-gpu-bundle-output -c $< -o $@

clean:
	rm -rf $(BUILD)
