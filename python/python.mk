# ---- Python package: python/ (included from the top Makefile) -------------
#   make python            the extension module in place: python/oclconv/_oclconv*.so
#   make python-check      its tests (pytest); `make check` runs them too
#   make python-sanitize   the library and extension with ASan and UBSan, then the tests
# Debian's interpreter by default: the first python3 on PATH may be another
# one that does not see Debian's numpy and dask.
PYTHON ?= /usr/bin/python3
PY_CONF := $(shell $(PYTHON) -c 'import sysconfig as s; print(s.get_paths()["include"], s.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_INCLUDE := $(word 1,$(PY_CONF))
PY_EXT_SUFFIX := $(or $(word 2,$(PY_CONF)),.so)
PY_HAVE_HEADERS := $(if $(PY_INCLUDE),$(wildcard $(PY_INCLUDE)/Python.h))

# The default build folder builds in place; any other (the sanitizer builds)
# gets a package folder of its own, so one build never replaces another's module.
PY_ROOT := $(if $(filter build,$(BUILD)),python,$(BUILD)/python)
PY_EXT := $(PY_ROOT)/oclconv/_oclconv$(PY_EXT_SUFFIX)
PY_EXT_SRC := python/ext/_oclconv.c python/ext/apply.c
PY_SOURCES := $(wildcard python/oclconv/*.py)
PY_COPIES := $(if $(filter python,$(PY_ROOT)),,$(PY_SOURCES:python/%=$(PY_ROOT)/%))
PY_SANITIZED := $(if $(findstring -fsanitize=address,$(CFLAGS)),1,)

.PHONY: python python-check python-sanitize python-clean
## python: the Python package's extension module, in place (PYTHON=/usr/bin/python3)
python: $(PY_EXT) $(PY_COPIES)

$(PY_EXT): $(PY_EXT_SRC) python/ext/module.h $(PUBLIC_HEADERS) $(LIB_A)
	@test -n "$(PY_HAVE_HEADERS)" || { echo "$(PYTHON)'s headers (Python.h) are missing; on Debian: sudo apt-get install python3-dev"; exit 1; }
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARNINGS) -Wno-cast-function-type $(CFLAGS) $(EXTRA_CFLAGS) -fPIC -fvisibility=hidden \
	    -shared -Iinclude -isystem $(PY_INCLUDE) $(LDFLAGS) -o $@ $(PY_EXT_SRC) $(LIB_A) $(LDLIBS_CL)

$(PY_ROOT)/oclconv/%.py: python/oclconv/%.py
	@mkdir -p $(@D)
	cp $< $@

# The tests as one more program for `make check`; it fails, naming the
# Debian package, where the interpreter lacks its headers or a module.
$(BUILD)/tests/test_python: python/python.mk python/run_tests.sh | $(BUILD)/tests
	printf '#!/bin/sh\nexec env PYTHON="%s" PY_ROOT="%s" PY_SANITIZED="%s" CC="%s" sh "%s" "$$@"\n' \
	    '$(PYTHON)' '$(abspath $(PY_ROOT))' '$(PY_SANITIZED)' '$(CC)' '$(abspath python/run_tests.sh)' > $@
	chmod +x $@

TESTS += $(BUILD)/tests/test_python
ifneq ($(PY_HAVE_HEADERS),)
check: python
endif

## python-check: the Python package's tests alone
python-check: python $(BUILD)/tests/test_python
	@mkdir -p $(POCL_CACHE)
	OCLCONV_CALIBRATE=off POCL_CACHE_DIR=$(abspath $(POCL_CACHE)) $(BUILD)/tests/test_python

## python-sanitize: the library and the extension with ASan and UBSan (build-sanitize), then the Python tests
python-sanitize:
	$(SANITIZER_ENV) $(MAKE) BUILD=build-sanitize $(SANITIZER_CACHE) \
	    CFLAGS="$(SANITIZER_FLAGS) -fsanitize=address,undefined" \
	    LDFLAGS="-fsanitize=address,undefined" python-check

## python-clean: the in-place module and what pip leaves in python/ (make clean does it too)
python-clean:
	rm -rf python/oclconv/_oclconv*.so python/build python/*.egg-info

clean: python-clean
