"""Builds the extension module, linked statically to the library.

Offline, into a virtual environment that sees Debian's numpy and dask:
    /usr/bin/python3 -m venv --system-site-packages venv
    venv/bin/pip install --no-build-isolation --no-index ./python
The library (build/liboclconv.a) is made first by the top Makefile.
"""
import os
import re
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def version():
    with open(os.path.join(ROOT, "include", "oclconv.h")) as f:
        text = f.read()
    return ".".join(re.search(r"#define OCLCONV_VERSION_%s (\d+)" % part, text).group(1)
                    for part in ("MAJOR", "MINOR", "PATCH"))


class BuildWithLibrary(build_ext):
    def run(self):
        subprocess.check_call(["make", "-C", ROOT, "lib"])
        super().run()


setup(
    version=version(),
    ext_modules=[Extension(
        "oclconv._oclconv",
        sources=["ext/_oclconv.c", "ext/apply.c"],
        depends=["ext/module.h"] + [os.path.join(ROOT, "include", h)
                                    for h in ("oclconv.h", "oclconv_cl.h")],
        include_dirs=[os.path.join(ROOT, "include")],
        extra_compile_args=["-std=c11", "-fvisibility=hidden"],
        extra_objects=[os.path.join(ROOT, "build", "liboclconv.a")],
        libraries=["OpenCL", "m", "pthread"],
    )],
    cmdclass={"build_ext": BuildWithLibrary},
)
