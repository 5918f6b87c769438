#!/bin/sh
# Runs the Python package's tests (python/tests) on the module built in
# $PY_ROOT/oclconv.  Exit 0 pass, anything else fails; what is missing fails
# the run too, named with its Debian package, as the C build asks for its own.
# Under a sanitizer build the interpreter preloads
# the ASan runtime, which must come first; leaks are not checked (the
# interpreter itself keeps memory until exit on purpose).
here=$(cd "$(dirname "$0")" && pwd)
set -- "$here/tests" "$@"
if ! ls "$PY_ROOT"/oclconv/_oclconv*.so >/dev/null 2>&1; then
    echo "the extension module is not built in $PY_ROOT/oclconv: run make python (or make check); it needs $PYTHON's headers (Debian: python3-dev)"
    exit 1
fi
for mod in numpy:numpy pytest:pytest scipy:scipy skimage:skimage dask:dask \
    distributed:distributed; do
    if ! "$PYTHON" -c "import ${mod%%:*}" 2>/dev/null; then
        echo "$PYTHON cannot import ${mod%%:*} (Debian: apt-get install python3-${mod#*:})"
        exit 1
    fi
done
if [ -n "$PY_SANITIZED" ]; then
    LD_PRELOAD=$("${CC:-cc}" -print-file-name=libasan.so)
    export LD_PRELOAD
    ASAN_OPTIONS=detect_leaks=0:use_sigaltstack=0:intercept_tls_get_addr=0
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export ASAN_OPTIONS UBSAN_OPTIONS
fi
# The kernels build unoptimised, as for the C tests of the host side
# (tests/util.h unoptimised_kernels()).
OCLCONV_BUILD_OPTIONS=${OCLCONV_BUILD_OPTIONS--cl-opt-disable}
export OCLCONV_BUILD_OPTIONS
cd "$PY_ROOT" && PYTHONPATH="$PY_ROOT${PYTHONPATH:+:$PYTHONPATH}" \
    exec "$PYTHON" -B -m pytest -q -p no:cacheprovider "$@"
