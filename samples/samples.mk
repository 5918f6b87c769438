# The oclconv command, its demo, its man page and its end-to-end test.
# Included by the top Makefile, which defines BUILD, CC, ALL_CFLAGS, LIB_A,
# LDLIBS_CL, TESTS, BINDIR, MANDIR and DESTDIR.

SAMPLES_CFLAGS = $(ALL_CFLAGS) -Iinclude -Isamples
IMAGE_IO_SRC := samples/image_io.c samples/png_io.c samples/jpeg_io.c samples/tiff_io.c
IMAGE_IO_HDR := samples/image_io.h samples/png_io.h samples/jpeg_io.h samples/tiff_io.h
CLI_SRC := samples/oclconv.c samples/cli_options.c samples/cli_run.c samples/cli_read_ahead.c \
    samples/cli_write_behind.c \
    samples/output_file.c samples/kernel_text.c $(IMAGE_IO_SRC)
CLI_HDR := samples/cli_options.h samples/cli_run.h samples/cli_read_ahead.h samples/output_file.h \
    samples/cli_write_behind.h \
    samples/kernel_text.h $(PUBLIC_HEADERS) $(IMAGE_IO_HDR)
LDLIBS_PNG := -lpng
LDLIBS_IMAGE := -lpng -ljpeg -ltiff

all: $(BUILD)/oclconv $(BUILD)/blur_example

$(BUILD)/oclconv: $(CLI_SRC) $(CLI_HDR) $(LIB_A) | $(BUILD)
	@printf '\043include <png.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || \
	    { echo "the oclconv command needs libpng; on Debian or Ubuntu: $(APT_HINT)"; exit 1; }
	@printf '\043include <stdio.h>\n\043include <jpeglib.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || \
	    { echo "the oclconv command needs libjpeg (libjpeg62-turbo-dev); on Debian or Ubuntu:" \
	        "$(APT_HINT)"; exit 1; }
	@printf '\043include <tiffio.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || \
	    { echo "the oclconv command needs libtiff (libtiff-dev); on Debian or Ubuntu: $(APT_HINT)"; \
	        exit 1; }
	$(CC) $(SAMPLES_CFLAGS) $(LDFLAGS) -o $@ $(CLI_SRC) $(LIB_A) $(LDLIBS_IMAGE) $(LDLIBS_CL)

# The README's example, built here so that it keeps compiling.
$(BUILD)/blur_example: samples/blur_example.c $(PUBLIC_HEADERS) $(LIB_A) | $(BUILD)
	$(CC) $(SAMPLES_CFLAGS) $(LDFLAGS) -o $@ samples/blur_example.c $(LIB_A) $(LDLIBS_CL)

$(BUILD)/contact_sheet: samples/contact_sheet.c samples/png_io.c samples/png_io.h | $(BUILD)
	$(CC) $(SAMPLES_CFLAGS) $(LDFLAGS) -o $@ samples/contact_sheet.c samples/png_io.c \
	    $(LDLIBS_PNG) -lm

# The command's tests (tests/test_cli*.c) share a harness that runs it and
# test pictures written with libpng, libjpeg and libtiff.  This static
# pattern rule overrides the top Makefile's pattern rule for them: they also
# need those libraries, the command's image and kernel-text code, and the
# command itself.
CLI_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_cli*.c))
CLI_TEST_SRC := tests/cli_harness.c tests/cli_pictures.c tests/cli_formats.c $(IMAGE_IO_SRC) \
    samples/kernel_text.c

$(CLI_TESTS): $(BUILD)/tests/%: tests/%.c $(CLI_TEST_SRC) tests/cli_harness.h $(CLI_HDR) \
        $(TEST_COMMON) $(TEST_HDR) $(LIB_A) $(BUILD)/oclconv | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) -Werror -Iinclude -Itests -Isamples $(LDFLAGS) -o $@ $< \
	    $(CLI_TEST_SRC) $(TEST_COMMON) $(LIB_A) $(LDLIBS_IMAGE) -lz $(LDLIBS_CL)

DEMO_INPUT := samples/data/astronaut.png
DEMO_FILTERS := gaussian box sharpen emboss laplacian sobel-x sobel-y

## demo: filter samples/data/astronaut.png with each built-in filter into $(BUILD)/demo/, with a contact sheet
demo: all $(BUILD)/contact_sheet
	@rm -rf $(BUILD)/demo && mkdir -p $(BUILD)/demo
	@for f in $(DEMO_FILTERS); do \
	    $(BUILD)/oclconv --verbose --filter $$f $(DEMO_INPUT) $(BUILD)/demo/$$f.png || exit 1; \
	done
	@$(BUILD)/contact_sheet $(BUILD)/demo/contact_sheet.png original=$(DEMO_INPUT) \
	    $(foreach f,$(DEMO_FILTERS),$(f)=$(BUILD)/demo/$(f).png)
	@echo "demo: $(words $(DEMO_FILTERS)) filtered images and contact_sheet.png are in $(BUILD)/demo/"

define INSTALL_EXTRA
install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
install -m 755 $(BUILD)/oclconv $(DESTDIR)$(BINDIR)/
install -m 644 samples/oclconv.1 $(DESTDIR)$(MANDIR)/man1/
endef

define UNINSTALL_EXTRA
rm -f $(DESTDIR)$(BINDIR)/oclconv $(DESTDIR)$(MANDIR)/man1/oclconv.1
endef
