# oclconv — image convolution on any OpenCL device.
#   make            build/liboclconv.a, build/liboclconv.so and the oclconv command
#   make check      build and run the tests (PoCL is enough)
#   make demo       filter the bundled sample photo, results in build/demo/
#   make install    PREFIX=/usr/local DESTDIR= : headers, libraries, oclconv.pc, command, man page

VERSION_MAJOR := $(shell sed -n 's/^\#define OCLCONV_VERSION_MAJOR \([0-9]*\)/\1/p' include/oclconv.h)
VERSION_MINOR := $(shell sed -n 's/^\#define OCLCONV_VERSION_MINOR \([0-9]*\)/\1/p' include/oclconv.h)
VERSION_PATCH := $(shell sed -n 's/^\#define OCLCONV_VERSION_PATCH \([0-9]*\)/\1/p' include/oclconv.h)
# The public contract: oclconv.h and the header it includes.
PUBLIC_HEADERS := include/oclconv.h include/oclconv_cl.h
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

BUILD ?= build
CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
            -Wformat=2 -Wpointer-arith -Wcast-qual -Wundef
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(WARNINGS) $(CFLAGS) $(EXTRA_CFLAGS)
# VkFFT (header only): Debian's libvkfft-dev, or VKFFT_CFLAGS=-isystem DIR.
VKFFT_CFLAGS ?=
CPPFLAGS_LIB := -Iinclude -Isrc -I$(BUILD) $(VKFFT_CFLAGS)
LDLIBS_CL := -lOpenCL -lm -lpthread

SONAME := liboclconv.so.$(VERSION_MAJOR)
LIB_A := $(BUILD)/liboclconv.a
LIB_SO := $(BUILD)/liboclconv.so

LIB_SRC := $(wildcard src/*.c)
LIB_OBJ := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/cl_sources.o
CL_SRC := $(sort $(wildcard cl/*.cl))

# What the build needs, asked for by name rather than met by a compiler error.
APT_HINT := sudo apt-get install build-essential pkg-config ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd libpng-dev libjpeg62-turbo-dev libtiff-dev libvkfft-dev
ifeq ($(filter clean uninstall,$(MAKECMDGOALS)),)
ifneq ($(shell printf '\043include <CL/cl.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes),yes)
$(error the OpenCL headers (CL/cl.h) are missing; on Debian or Ubuntu: $(APT_HINT))
endif
ifneq ($(shell printf '\043include <vkFFT.h>\n' | $(CC) $(VKFFT_CFLAGS) -DVKFFT_BACKEND=3 -E -x c - >/dev/null 2>&1 && echo yes),yes)
$(error VkFFT's header (vkFFT.h, the FFT path's transforms) is missing; on Debian: $(APT_HINT))
endif
endif

# Test programs append themselves to TESTS; `make check` runs each.
TESTS :=

.PHONY: all lib check demo bench install uninstall clean asan ubsan sanitize valgrind
## all: the libraries and the command
all: lib

lib: $(LIB_A) $(LIB_SO)

# ---- kernels embedded as C strings ----------------------------------------
$(BUILD)/cl_sources.c: $(CL_SRC) src/embed_cl.sh | $(BUILD)
	sh src/embed_cl.sh $(CL_SRC) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/cl_sources.o: $(BUILD)/cl_sources.c | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(CPPFLAGS_LIB) -c $< -o $@

$(BUILD)/obj/%.o: src/%.c $(PUBLIC_HEADERS) $(wildcard src/*.h) | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(CPPFLAGS_LIB) -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) -o $@.$(VERSION) $^ $(LDLIBS_CL)
	ln -sf liboclconv.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sf liboclconv.so.$(VERSION) $@

$(BUILD) $(BUILD)/obj $(BUILD)/tests:
	mkdir -p $@

# ---- tests -----------------------------------------------------------------
TEST_COMMON := tests/reference.c tests/util.c
TEST_HDR := tests/test.h tests/reference.h tests/util.h
TEST_PROGS := $(patsubst tests/test_%.c,$(BUILD)/tests/test_%,$(wildcard tests/test_*.c))
TESTS += $(TEST_PROGS) tests/test_install.sh

$(BUILD)/tests/test_%: tests/test_%.c $(TEST_COMMON) $(TEST_HDR) $(LIB_A) | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) -Werror -Iinclude -Itests -o $@ $< $(TEST_EXTRA) $(TEST_COMMON) $(LIB_A) \
	    $(LDLIBS_CL)

# The path tests share their cases' checks and the sets' child processes.
PATH_TESTS := $(BUILD)/tests/test_paths $(BUILD)/tests/test_mixed $(BUILD)/tests/test_runs \
    $(BUILD)/tests/test_fft
$(PATH_TESTS): TEST_EXTRA := tests/path_check.c
$(PATH_TESTS): tests/path_check.c tests/path_check.h

include samples/samples.mk
include bench/bench.mk
include tests/fuzz/fuzz.mk
include python/python.mk

# Tests run hermetically: PoCL's kernel cache lives in the build folder.
# The sanitizer builds share the plain build's: their kernels are the same
# programs, and only the host code is instrumented.
POCL_CACHE ?= $(BUILD)/pocl-cache
## check: build everything and run every test program (exit 77 = skipped)
# The programs build side by side unless make was given its own -j.
# Most of a cold run is PoCL's compiler, which hands the memory of each
# build back to the system and faults it in again for the next: the test
# processes keep glibc's heap instead (docs/performance.md).
NPROC := $(shell nproc 2>/dev/null || echo 1)
TEST_HEAP := glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=67108864:glibc.malloc.mmap_threshold=1073741824
check:
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC)) all $(TESTS)
	@mkdir -p $(POCL_CACHE)
	@POCL_CACHE_DIR=$(abspath $(POCL_CACHE)) OCLCONV_BUILD=$(BUILD) CC="$(CC)" \
	    GLIBC_TUNABLES=$(TEST_HEAP) \
	    OCLCONV_CALIBRATE=off TEST_LDFLAGS="$(LDFLAGS)" sh tests/run_tests.sh $(TESTS)

# use_sigaltstack=0: with eight threads each driving PoCL, ASan's own
# teardown of a thread's signal stack fails to unmap it and aborts.
# intercept_tls_get_addr=0: GCC 12's sanitizer runtime takes a dynamic TLS
# block (the OpenCL runtime's libraries have them) that lands at one page
# offset for a pre-2.25 glibc header and reads a bogus range from it, and
# the leak check at exit then dies now and then ("Tracer caught signal 11").
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:use_sigaltstack=0:intercept_tls_get_addr=0 \
    LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0:intercept_tls_get_addr=0
SANITIZER_FLAGS := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all
SANITIZER_CACHE := POCL_CACHE=$(abspath build/pocl-cache)

## asan: rebuild in build-asan with AddressSanitizer and run the tests
asan:
	$(SANITIZER_ENV) $(MAKE) BUILD=build-asan $(SANITIZER_CACHE) CFLAGS="$(SANITIZER_FLAGS) -fsanitize=address" \
	    LDFLAGS="-fsanitize=address" check

## ubsan: rebuild in build-ubsan with UndefinedBehaviorSanitizer and run the tests
ubsan:
	$(SANITIZER_ENV) $(MAKE) BUILD=build-ubsan $(SANITIZER_CACHE) CFLAGS="$(SANITIZER_FLAGS) -fsanitize=undefined" \
	    LDFLAGS="-fsanitize=undefined" check

## sanitize: both sanitizers in one build (build-sanitize), as CI runs them
sanitize:
	$(SANITIZER_ENV) $(MAKE) BUILD=build-sanitize $(SANITIZER_CACHE) \
	    CFLAGS="$(SANITIZER_FLAGS) -fsanitize=address,undefined" \
	    LDFLAGS="-fsanitize=address,undefined" check

## valgrind: the API tests under valgrind, leaks inside the OpenCL runtime suppressed (tests/valgrind.supp)
valgrind: $(BUILD)/tests/test_api
	@mkdir -p $(POCL_CACHE)
	POCL_CACHE_DIR=$(abspath $(POCL_CACHE)) valgrind --error-exitcode=9 --leak-check=full \
	    --errors-for-leak-kinds=definite --suppressions=tests/valgrind.supp $(BUILD)/tests/test_api

# ---- install ---------------------------------------------------------------
# oclconv.pc names its folders from ${prefix} where they lie under it, so
# that `pkg-config --define-prefix` and staged installs (DESTDIR with
# PKG_CONFIG_SYSROOT_DIR) find them.
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

## install: headers, libraries, pkg-config file, command and man page under $(DESTDIR)$(PREFIX)
install: all
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO).$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf liboclconv.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf liboclconv.so.$(VERSION) $(DESTDIR)$(LIBDIR)/liboclconv.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' oclconv.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/oclconv.pc
	$(INSTALL_EXTRA)

## uninstall: remove what install put there
uninstall:
	rm -f $(PUBLIC_HEADERS:include/%=$(DESTDIR)$(INCLUDEDIR)/%) $(DESTDIR)$(LIBDIR)/liboclconv.a \
	    $(DESTDIR)$(LIBDIR)/liboclconv.so* $(DESTDIR)$(PKGCONFIGDIR)/oclconv.pc
	$(UNINSTALL_EXTRA)

## clean: remove the build folders
clean:
	rm -rf build build-asan build-ubsan build-sanitize
