#!/usr/bin/python3
"""Python bench: oclconv.ndimage beside the C library called directly,
scipy.ndimage, cv2 and cupyx.scipy.ndimage (each where installed), and
oclconv.dask in chunks beside one whole-image call.

    make python && PYTHONPATH=python /usr/bin/python3 python/bench.py [--quick]

OCLCONV_DEVICE picks the device as everywhere.  Times are medians of
end-to-end calls (host array in, host array out).  "ndimage" allocates its
output as SciPy does; "ndimage out=" writes into a preallocated array, the
same work as the C call into preallocated memory, so their ratio is the
binding's overhead.  The C library is reached through ctypes on
build/liboclconv.so (the ctypes call itself costs microseconds).
"""
import argparse
import ctypes
import os
import platform
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import oclconv                      # noqa: E402
import oclconv.ndimage as ond       # noqa: E402


def optional(name):
    try:
        return __import__(name, fromlist=["_"])
    except Exception:
        return None


sn = optional("scipy.ndimage")
cv2 = optional("cv2")
cp = optional("cupy")
cnd = optional("cupyx.scipy.ndimage") if cp else None


def median_time(fn, reps, budget=20.0):
    fn()                                     # warm: programs built, pages touched
    times = []
    start = time.perf_counter()
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget and len(times) >= 3:
            break
    return float(np.median(times))


def paired_times(fa, fb, reps, budget=30.0):
    """Medians of fa and fb called in turn, so that a load that drifts over
    the run weighs on both alike."""
    fa(), fb()
    ta, tb = [], []
    start = time.perf_counter()
    for _ in range(reps):
        for f, t in ((fa, ta), (fb, tb)):
            t0 = time.perf_counter()
            f()
            t.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget and len(ta) >= 3:
            break
    return float(np.median(ta)), float(np.median(tb))


# ---- the C library through ctypes --------------------------------------------
class CImage(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("channels", ctypes.c_int), ("type", ctypes.c_int), ("stride", ctypes.c_size_t)]


class COptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("border", ctypes.c_int),
                ("border_value", ctypes.c_float), ("method", ctypes.c_int),
                ("scale", ctypes.c_float), ("delta", ctypes.c_float),
                ("max_device_bytes", ctypes.c_size_t)]


class CLibrary:
    TYPES = {np.dtype(np.uint8): 0, np.dtype(np.uint16): 1, np.dtype(np.float32): 2}

    def __init__(self, path):
        lib = self.lib = ctypes.CDLL(path)
        lib.oclconv_create.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.oclconv_errmsg.restype = ctypes.c_char_p
        lib.oclconv_errmsg.argtypes = [ctypes.c_void_p]
        lib.oclconv_apply.argtypes = [ctypes.c_void_p, ctypes.POINTER(CImage),
                                      ctypes.POINTER(CImage), ctypes.c_void_p,
                                      ctypes.POINTER(COptions)]
        lib.oclconv_filter_create.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                              ctypes.POINTER(ctypes.c_void_p)]
        lib.oclconv_filter_separable.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                                                 ctypes.c_void_p,
                                                 ctypes.POINTER(ctypes.c_void_p)]
        lib.oclconv_options_init.argtypes = [ctypes.POINTER(COptions)]
        self.ctx = ctypes.c_void_p()
        self.check(lib.oclconv_create(None, ctypes.byref(self.ctx)), None)

    def check(self, status, ctx):
        if status != 0:
            raise RuntimeError(self.lib.oclconv_errmsg(ctx).decode())

    def filter(self, spec):
        f = ctypes.c_void_p()
        if isinstance(spec, np.ndarray):
            w = np.ascontiguousarray(spec, dtype=np.float32)
            self.check(self.lib.oclconv_filter_create(w.shape[1], w.shape[0], w.ctypes.data,
                                                      ctypes.byref(f)), None)
        else:
            r, c = (np.ascontiguousarray(t, dtype=np.float32) for t in spec)
            self.check(self.lib.oclconv_filter_separable(len(r), r.ctypes.data, len(c),
                                                         c.ctypes.data, ctypes.byref(f)), None)
        return f

    def image(self, a):
        return CImage(a.ctypes.data, a.shape[1], a.shape[0], a.shape[2] if a.ndim == 3 else 1,
                      self.TYPES[a.dtype], 0)

    def caller(self, src, dst, spec, border):
        f = self.filter(spec)
        s, d = self.image(src), self.image(dst)
        opt = COptions()
        self.lib.oclconv_options_init(ctypes.byref(opt))
        opt.border = oclconv.BORDERS.index(border)
        return lambda: self.check(self.lib.oclconv_apply(self.ctx, ctypes.byref(s),
                                                         ctypes.byref(d), f,
                                                         ctypes.byref(opt)), self.ctx)


def c_library():
    path = os.path.join(os.path.dirname(HERE), "build", "liboclconv.so")
    if not os.path.exists(path):
        return None
    try:
        return CLibrary(path)
    except Exception as e:                        # report, and go on without the column
        print("C library column left out: %s" % e, file=sys.stderr)
        return None


# ---- the cases -------------------------------------------------------------------
def cases(image):
    rgba = image.ndim == 3
    w7 = np.random.default_rng(1).random((7, 7)) - 0.3
    w7 /= w7.sum()
    spatial = (lambda v: (v, v, 0)) if rgba else (lambda v: v)
    return [
        ("gaussian_filter s=2", "gaussian_filter", (spatial(2.0),), spatial(2.0)),
        ("uniform_filter 7x7", "uniform_filter", ((7, 7, 1) if rgba else 7,), 7),
        ("correlate 7x7", "correlate", (w7[:, :, None] if rgba else w7,), w7),
    ]


def cv2_call(image, name, cv_arg):
    border = cv2.BORDER_REFLECT       # SciPy's 'reflect'
    if name == "gaussian_filter":
        s = cv_arg if np.ndim(cv_arg) == 0 else cv_arg[0]
        k = 2 * int(4 * s + 0.5) + 1
        return lambda: cv2.GaussianBlur(image, (k, k), s, borderType=border)
    if name == "uniform_filter":
        return lambda: cv2.blur(image, (cv_arg, cv_arg), borderType=border)
    return lambda: cv2.filter2D(image, -1, cv_arg.astype(np.float32), borderType=border)


def bench_ndimage(reps, size, clib):
    h, w = size
    rng = np.random.default_rng(0)
    images = {"RGBA8": rng.integers(0, 256, (h, w, 4), dtype=np.uint8),
              "f32": rng.random((h, w), dtype=np.float32)}
    head = "| image | filter | ndimage ms | ndimage out= ms | C ms | out= vs C | scipy ms | " \
           "scipy / ndimage | cv2 ms | cupyx ms |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for kind, img in images.items():
        out = np.empty_like(img)
        for label, name, args, cv_arg in cases(img):
            fn = getattr(ond, name)
            t_nd = median_time(lambda: fn(img, *args), reps)
            with_out = lambda: fn(img, *args, output=out)    # noqa: E731
            if clib:
                spec = ond._plan(name, img.ndim, *(args + (
                    (0, 4.0, None) if name == "gaussian_filter" else (0,))))
                t_out, t_c = paired_times(with_out, clib.caller(img, out, spec, "reflect"),
                                          3 * reps)
                c_cols = ["%.1f" % (1e3 * t_c), "%+.1f %%" % (100 * (t_out / t_c - 1))]
            else:
                t_out, c_cols = median_time(with_out, reps), ["-", "-"]
            row = [kind, label, "%.1f" % (1e3 * t_nd), "%.1f" % (1e3 * t_out)] + c_cols
            if sn:
                t_sp = median_time(lambda: getattr(sn, name)(img, *args), max(3, reps // 4))
                row += ["%.0f" % (1e3 * t_sp), "%.1fx" % (t_sp / t_nd)]
            else:
                row += ["-", "-"]
            row.append("%.1f" % (1e3 * median_time(cv2_call(img, name, cv_arg), reps))
                       if cv2 else "-")
            if cnd:
                cargs = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]

                def cupy_call():
                    r = getattr(cnd, name)(cp.asarray(img), *cargs)
                    return cp.asnumpy(r)
                row.append("%.1f" % (1e3 * median_time(cupy_call, reps)))
            else:
                row.append("-")
            print("| " + " | ".join(row) + " |", flush=True)


def bench_dask(side, chunk, reps):
    """Chunks against one whole call, in memory touched before (the chunks
    written by da.store() into it) and in new memory (the chunks kept by
    persist(), the whole call's result a new array)."""
    da = optional("dask.array")
    if da is None:
        print("dask is not installed: the Dask rows are left out")
        return
    dask = optional("dask")
    import oclconv.dask as odk
    img = np.random.default_rng(2).integers(0, 256, (side, side, 4), dtype=np.uint8)
    sigma = (2.0, 2.0, 0)
    target = np.ones_like(img)
    x = da.from_array(img, chunks=(chunk, chunk, 4))
    # Each row of chunks is against the whole call before it.
    calls = (("whole call into touched memory",
              lambda: ond.gaussian_filter(img, sigma, output=target)),
             ("chunks, da.store() into it",
              lambda: da.store(odk.gaussian_filter(x, sigma), target, lock=False,
                               scheduler="threads")),
             ("chunks written into it by the tasks (output=it), persist()",
              lambda: odk.gaussian_filter(x, sigma, output=target).persist(scheduler="threads")),
             ("whole call into a new array", lambda: ond.gaussian_filter(img, sigma)),
             ("chunks, persist()",
              lambda: odk.gaussian_filter(x, sigma).persist(scheduler="threads")))
    times = [median_time(call, reps) for _, call in calls]
    workers = dask.config.get("num_workers", None) or os.cpu_count()
    print("Dask, %d² RGBA8 Gaussian s=2 in %d² chunks from da.from_array() (%d threads):"
          % (side, chunk, workers))
    whole = None
    for (name, _), t in zip(calls, times):
        chunks = name.startswith("chunks")
        whole = whole if chunks else t
        print("| %s | %.2f s |%s" % (name, t, " %.2fx the whole call |" % (t / whole)
                                     if chunks else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1080p, a 4096² Dask image, 3 reps")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    reps = args.reps or (3 if args.quick else 10)
    size = (1080, 1920) if args.quick else (2160, 3840)
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    ctx = oclconv.default_context()
    print("oclconv %s at %s on %s (%s, %d cores), Python %s, numpy %s%s%s%s" % (
        oclconv.__version__, commit, ctx.device_name, platform.machine(), os.cpu_count(),
        platform.python_version(), np.__version__,
        ", scipy %s" % optional("scipy").__version__ if sn else ", no scipy",
        ", cv2 %s" % cv2.__version__ if cv2 else ", no cv2",
        ", cupy %s" % cp.__version__ if cnd else ", no cupy"))
    print("%dx%d, median of up to %d calls, mode='reflect'\n" % (size[1], size[0], reps))
    bench_ndimage(reps, size, c_library())
    if not args.no_dask:
        print()
        side, chunk = (4096, 1024) if args.quick else (16384, 2048)
        bench_dask(side, chunk, 5 if not args.quick else 3)


if __name__ == "__main__":
    main()
