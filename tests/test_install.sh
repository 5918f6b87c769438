#!/bin/sh
# A staged install (DESTDIR) that programs build against through pkg-config:
# once with PKG_CONFIG_SYSROOT_DIR, once moved elsewhere and found with
# `pkg-config --define-prefix`.  Each build is run: it must link and blur.
# Run by `make check` with the build folder in OCLCONV_BUILD.
set -u
build=${OCLCONV_BUILD:-build}
work=$build/tests/install
rm -rf "$work" && mkdir -p "$work" || exit 99
work=$(cd "$work" && pwd)
fail() { echo "FAIL: $*"; exit 1; }

# The same build folder and flags as the make that runs the tests.
make -s install BUILD="$build" DESTDIR="$work/stage" PREFIX=/usr/local > "$work/install.log" 2>&1 ||
    { cat "$work/install.log"; exit 99; }
pc=$work/stage/usr/local/lib/pkgconfig/oclconv.pc
[ -f "$pc" ] || fail "no oclconv.pc in the staged install"
grep -q '^libdir=${prefix}/lib$' "$pc" || fail "libdir is not relative to the prefix: $(grep ^libdir "$pc")"
grep -q '^includedir=${prefix}/include$' "$pc" || fail "includedir is not relative to the prefix"

# Builds samples/blur_example.c with the flags pkg-config gives and runs it;
# its row across the blurred edge must climb from dark to light.
build_and_run() { # name, library folder, pkg-config flags...
    name=$1 libdir=$2
    shift 2
    flags=$(pkg-config "$@" --cflags --libs oclconv) || fail "$name: pkg-config failed"
    # shellcheck disable=SC2086
    ${CC:-cc} ${TEST_LDFLAGS:-} -o "$work/blur-$name" samples/blur_example.c $flags \
        -Wl,-rpath,"$libdir" 2> "$work/$name.log" ||
        { cat "$work/$name.log"; fail "$name: does not build with: $flags"; }
    out=$("$work/blur-$name") || fail "$name: exit status $?"
    echo "$name: $out"
    echo "${out##*:}" | awk '{ if (NF != 12 || $1 + 0 >= 64 || $NF + 0 <= 192) exit 1 }' ||
        fail "$name: the edge is not blurred from dark to light: $out"
}

PKG_CONFIG_SYSROOT_DIR=$work/stage PKG_CONFIG_PATH=$work/stage/usr/local/lib/pkgconfig \
    build_and_run sysroot "$work/stage/usr/local/lib"
case $flags in
*"-I$work/stage/usr/local/include"*) ;;
*) fail "the sysroot build's flags miss the staged include folder: $flags" ;;
esac

mv "$work/stage/usr/local" "$work/moved" || exit 99
PKG_CONFIG_PATH=$work/moved/lib/pkgconfig build_and_run moved "$work/moved/lib" --define-prefix
case $flags in
*"-L$work/moved/lib"*) ;;
*) fail "--define-prefix did not move the library folder: $flags" ;;
esac
rm -rf "$work"
echo "PASS"
