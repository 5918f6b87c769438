# libFuzzer targets for the input the command takes from strangers: PNG, JPEG
# and TIFF files, kernel text (--kernel, --kernel-file) and device specs (OCLCONV_DEVICE).
# Included by the top Makefile, which defines BUILD, CC, ALL_CFLAGS, LIB_A,
# LDLIBS_CL, CL_SRC and the rule for $(BUILD)/cl_sources.c.
#
# Everything is built with clang into $(BUILD)/fuzz/, apart from the normal
# build: the library objects there carry the sanitizers and the coverage
# instrumentation, and never end up in $(LIB_A).
#   make fuzz                     build the five targets and run each FUZZ_SECONDS
#   make fuzz-png                 one of them (also fuzz-jpeg, fuzz-tiff, fuzz-kernel_text,
#                                 fuzz-device_spec)
#   make fuzz-build               only build them
# A target runs on a working copy of its seeds in $(BUILD)/fuzz/corpus/<name>/,
# which keeps what it learns from one run to the next; what it finds lands in
# $(BUILD)/fuzz/artifacts/<name>/.  The seeds in tests/fuzz/corpus/ are made
# by tests/fuzz/make_seeds.py; tests/fuzz/<name>.dict, where there is one, is
# passed as -dict.  FUZZ_FLAGS adds libFuzzer options, e.g. FUZZ_FLAGS=-runs=0
# to replay the corpus only.  To replay one input: $(BUILD)/fuzz/fuzz_png FILE

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS ?=
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = $(ALL_CFLAGS) -O1 -g $(FUZZ_SAN)
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_NAMES := png jpeg tiff kernel_text device_spec
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_LIB := $(FUZZ_DIR)/liboclconv.a
FUZZ_LIB_OBJ := $(LIB_SRC:src/%.c=$(FUZZ_DIR)/obj/%.o) $(FUZZ_DIR)/obj/cl_sources.o
FUZZ_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
    POCL_CACHE_DIR=$(abspath $(BUILD)/pocl-cache)

.PHONY: fuzz fuzz-build $(FUZZ_NAMES:%=fuzz-%)

## fuzz: build the libFuzzer targets (PNG, JPEG and TIFF readers, kernel text, device spec) with clang and run each FUZZ_SECONDS (60)
fuzz: fuzz-build
	@for t in $(FUZZ_NAMES); do $(MAKE) --no-print-directory fuzz-$$t || exit 1; done

fuzz-build: $(FUZZ_BINS)

$(FUZZ_NAMES:%=fuzz-%): fuzz-%: $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_DIR)/corpus/$* $(FUZZ_DIR)/artifacts/$* $(BUILD)/pocl-cache
	@cp tests/fuzz/corpus/$*/* $(FUZZ_DIR)/corpus/$*/
	@echo "fuzz_$*: $(FUZZ_SECONDS) s, working corpus $(FUZZ_DIR)/corpus/$*"
	$(FUZZ_ENV) $(FUZZ_DIR)/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/$*/ \
	    $(if $(wildcard tests/fuzz/$*.dict),-dict=tests/fuzz/$*.dict) $(FUZZ_FLAGS) \
	    $(FUZZ_DIR)/corpus/$*

$(FUZZ_DIR) $(FUZZ_DIR)/obj:
	mkdir -p $@

# The library, with coverage instrumentation but without libFuzzer's main().
$(FUZZ_DIR)/obj/%.o: src/%.c $(PUBLIC_HEADERS) $(wildcard src/*.h) | $(FUZZ_DIR)/obj
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -fvisibility=hidden $(CPPFLAGS_LIB) \
	    -c $< -o $@

$(FUZZ_DIR)/obj/cl_sources.o: $(BUILD)/cl_sources.c | $(FUZZ_DIR)/obj
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -fvisibility=hidden $(CPPFLAGS_LIB) \
	    -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_png: tests/fuzz/fuzz_png.c samples/png_io.c samples/png_io.h \
        $(PUBLIC_HEADERS) | $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Iinclude -Isamples -o $@ $< samples/png_io.c \
	    -lpng -lz

# The JPEG and TIFF readers through the command's dispatcher, which also
# takes PNG: all four image files go in.
FUZZ_IMAGE_SRC := samples/image_io.c samples/png_io.c samples/jpeg_io.c samples/tiff_io.c
$(FUZZ_DIR)/fuzz_jpeg $(FUZZ_DIR)/fuzz_tiff: $(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c \
        tests/fuzz/fuzz_image.h $(FUZZ_IMAGE_SRC) $(FUZZ_IMAGE_SRC:.c=.h) $(PUBLIC_HEADERS) \
        | $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Iinclude -Isamples -Itests/fuzz -o $@ $< \
	    $(FUZZ_IMAGE_SRC) -lpng -ljpeg -ltiff -lz -lm -lpthread

$(FUZZ_DIR)/fuzz_kernel_text: tests/fuzz/fuzz_kernel_text.c samples/kernel_text.c \
        samples/kernel_text.h | $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Isamples -o $@ $< samples/kernel_text.c -lm

# Includes src/device_spec.c for its static matcher; the rest of the library
# (error.c) comes from the instrumented archive.
$(FUZZ_DIR)/fuzz_device_spec: tests/fuzz/fuzz_device_spec.c src/device_spec.c src/internal.h \
        $(PUBLIC_HEADERS) $(FUZZ_LIB) | $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(CPPFLAGS_LIB) -o $@ $< $(FUZZ_LIB) $(LDLIBS_CL)
