# make bench: throughput of every path on 4K images, beside OpenCV when its
# development package is installed.  Included by the top Makefile, which
# defines BUILD, CC, ALL_CFLAGS, LIB_A and LDLIBS_CL.

BENCH := $(BUILD)/bench/bench
BENCH_SRC := $(filter-out bench/npp_peer.c,$(sort $(wildcard bench/*.c)))
BENCH_DEPS := $(BENCH_SRC) bench/bench.h bench/opencv_peer.h $(PUBLIC_HEADERS) $(LIB_A)
BENCH_CFLAGS = $(ALL_CFLAGS) -Iinclude -Ibench
BENCH_OBJ :=
BENCH_LIBS :=

# The OpenCV peer: C++, built only when pkg-config knows opencv4.  Only the
# two libraries it uses are linked, so the cold start loads no more than that.
BENCH_OPENCV := $(shell pkg-config --exists opencv4 2>/dev/null && echo yes)
ifeq ($(BENCH_OPENCV),yes)
BENCH_CXXFLAGS := -std=c++17 -O2 -g -Wall -Wextra -Wshadow -Iinclude -Ibench \
    $(patsubst -I%,-isystem %,$(shell pkg-config --cflags opencv4))
BENCH_CFLAGS += -DOCLCONV_BENCH_OPENCV
BENCH_OBJ += $(BUILD)/bench/opencv_peer.o
BENCH_LIBS += $(shell pkg-config --libs-only-L opencv4) -lopencv_imgproc -lopencv_core -lstdc++
endif

# The NPP peer (bench/npp_peer.c): built when the CUDA toolkit's NPP headers
# and libraries are found, under CUDA_HOME or a versioned /usr/local/cuda-*.
CUDA_HOME ?= /usr/local/cuda
NPP_ROOT ?= $(firstword $(wildcard $(CUDA_HOME)/targets/x86_64-linux \
    /usr/local/cuda-*/targets/x86_64-linux))
BENCH_NPP := $(if $(and $(wildcard $(NPP_ROOT)/include/nppi_filtering_functions.h),\
    $(wildcard $(NPP_ROOT)/lib/libnppif.so)),yes)
ifeq ($(BENCH_NPP),yes)
BENCH_CFLAGS += -DOCLCONV_BENCH_NPP
BENCH_OBJ += $(BUILD)/bench/npp_peer.o
BENCH_LIBS += -L$(NPP_ROOT)/lib -Wl,-rpath,$(NPP_ROOT)/lib -lnppif -lnppc -lcudart
endif

$(BUILD)/bench/npp_peer.o: bench/npp_peer.c bench/bench.h $(PUBLIC_HEADERS) | $(BUILD)/bench
	$(CC) $(BENCH_CFLAGS) -isystem $(NPP_ROOT)/include -c $< -o $@

# The commit the numbers belong to; "-modified" when the tree differs from it.
BENCH_COMMIT = $(or $(shell git rev-parse --short HEAD 2>/dev/null),unknown)$(shell \
    git rev-parse --short HEAD >/dev/null 2>&1 && ! git diff --quiet HEAD -- 2>/dev/null && \
    echo -modified)
# QUICK=1 (anything but empty, 0 or no) runs the short version.
BENCH_ARGS = --commit "$(BENCH_COMMIT)" $(if $(filter-out 0 no,$(QUICK)),--quick)

$(BUILD)/bench:
	mkdir -p $@

$(BUILD)/bench/opencv_peer.o: bench/opencv_peer.cpp bench/opencv_peer.h $(PUBLIC_HEADERS) \
        | $(BUILD)/bench
	$(CXX) $(BENCH_CXXFLAGS) -c $< -o $@

$(BENCH): $(BENCH_DEPS) $(BENCH_OBJ) | $(BUILD)/bench
	$(CC) $(BENCH_CFLAGS) $(LDFLAGS) -o $@ $(BENCH_SRC) $(BENCH_OBJ) $(LIB_A) $(BENCH_LIBS) \
	    $(LDLIBS_CL)

.PHONY: bench bench-quick
## bench: build bench/ and print MP/s of every path on 4K images, beside OpenCV (QUICK=1: short)
bench: $(BENCH)
	$(BENCH) $(BENCH_ARGS)

## bench-quick: the bench in under a minute (1920x1080, 6 cases a format, 3 runs a cell)
bench-quick: $(BENCH)
	$(BENCH) --commit "$(BENCH_COMMIT)" --quick
