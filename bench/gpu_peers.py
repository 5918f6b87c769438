#!/usr/bin/env python3
"""GPU peers for `make bench`: the same filters through CuPy and PyTorch.

Usage:  python3 bench/gpu_peers.py [--quick] [--runs N]

For 3840x2160 and 7680x4320 images in RGBA8 and f32 gray, with replicated
borders (oclconv's CLAMP), it times:
  CuPy     cupyx.scipy.ndimage gaussian_filter (truncate 3, so radius r for
           sigma r/3), correlate (random 2-D weights), correlate1d twice
           (separable), uniform_filter (box), mode 'nearest';
  PyTorch  a replicate pad, then a depthwise conv2d (2-D), two depthwise
           conv2d (Gaussian, separable) or avg_pool2d (box), on NCHW float32
           tensors (u8 images are converted to float and back inside the
           timed region, as oclconv converts inside its kernels).
"kern" is the device time of the operation on data already on the GPU
(CUDA events, the fastest of the runs after one warm-up, as bench.c times oclconv); "e2e" adds the copies
from host memory and back (pageable numpy arrays), as oclconv's e2e does.
Numbers are MP/s (megapixels a second).  A peer that is not installed, or
no CUDA device, is skipped with a message.  The filters' weights are the
bench's kind (seeded random, summing to 1) but not the same numbers.
"""
import argparse
import sys
import time

try:
    import numpy as np
except ImportError:
    print("GPU peers: skipped (numpy is not installed)")
    sys.exit(0)

CASES = [("gauss", r) for r in (1, 3, 7, 15)] + [("rand2d", r) for r in (1, 2, 3, 7)] + \
        [("sep", r) for r in (1, 3, 7, 15)] + [("box", r) for r in (1, 7, 31)]
QUICK_CASES = [("gauss", 3), ("gauss", 15), ("rand2d", 2), ("sep", 7), ("box", 1), ("box", 31)]
SIZES = [(3840, 2160), (7680, 4320)]
FORMATS = [("RGBA8", np.uint8, 4), ("f32 gray", np.float32, 1)]


def weights(kind, r):
    """Seeded random weights of a case: 2-D (rand2d) or a row and a column."""
    rng = np.random.default_rng(1000 * ["gauss", "rand2d", "sep", "box"].index(kind) + r)
    n = 2 * r + 1
    if kind == "rand2d":
        w = rng.uniform(-0.25, 1.0, (n, n))
        return (w / w.sum()).astype(np.float32)
    if kind == "sep":
        row, col = rng.uniform(0.05, 1.0, n), rng.uniform(0.05, 1.0, n)
        return (row / row.sum()).astype(np.float32), (col / col.sum()).astype(np.float32)
    if kind == "gauss":
        i = np.arange(-r, r + 1, dtype=np.float64)
        g = np.exp(-i * i / (2 * (r / 3.0) ** 2))
        g = (g / g.sum()).astype(np.float32)
        return g, g
    return None


def host_image(w, h, dtype, cn):
    rng = np.random.default_rng(7)
    shape = (h, w, cn) if cn > 1 else (h, w)
    if dtype == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    return rng.random(shape, dtype=np.float32)


def fastest_event_time(op, runs, sync, event, elapsed_ms):
    """Median device seconds of op() between two events, after one warm-up."""
    op()
    sync()
    times = []
    for _ in range(runs):
        start, stop = event(), event()
        start.record()
        op()
        stop.record()
        stop.synchronize()
        times.append(elapsed_ms(start, stop) / 1e3)
    return min(times)


def fastest_wall_time(op, runs, sync):
    op()
    sync()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        op()
        sync()
        times.append(time.perf_counter() - t0)
    return min(times)


# ---- CuPy -------------------------------------------------------------------
def cupy_peer():
    try:
        import cupy as cp
        from cupyx.scipy import ndimage
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # not installed, or no CUDA device
        print(f"CuPy: skipped ({type(e).__name__}: {e})")
        return None

    def make(kind, r, cn, dtype):
        n = 2 * r + 1
        chan = (lambda a: a) if cn == 1 else (lambda a: a[..., None])
        if kind == "gauss":
            s = r / 3.0
            sigma = (s, s) if cn == 1 else (s, s, 0)
            return lambda x: ndimage.gaussian_filter(x, sigma, mode="nearest", truncate=3.0)
        if kind == "rand2d":
            w = cp.asarray(chan(weights(kind, r)))
            return lambda x: ndimage.correlate(x, w, mode="nearest")
        if kind == "sep":
            row, col = (cp.asarray(v) for v in weights(kind, r))
            tmp_type = cp.float32
            return lambda x: ndimage.correlate1d(
                ndimage.correlate1d(x, row, axis=1, mode="nearest", output=tmp_type),
                col, axis=0, mode="nearest", output=dtype)
        size = (n, n) if cn == 1 else (n, n, 1)
        return lambda x: ndimage.uniform_filter(x, size, mode="nearest")

    def run(kind, r, host, runs):
        dtype, cn = host.dtype, (host.shape[2] if host.ndim == 3 else 1)
        f = make(kind, r, cn, dtype)
        dev = cp.asarray(host)
        sync = cp.cuda.Device().synchronize
        kern = fastest_event_time(lambda: f(dev), runs, sync, cp.cuda.Event,
                                 cp.cuda.get_elapsed_time)
        e2e = fastest_wall_time(lambda: cp.asnumpy(f(cp.asarray(host))), max(3, runs // 4), sync)
        return kern, e2e

    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    return f"CuPy {cp.__version__} on {name}", run


# ---- PyTorch ----------------------------------------------------------------
def torch_peer():
    try:
        import torch
        import torch.nn.functional as F
        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device")
    except Exception as e:
        print(f"PyTorch: skipped ({type(e).__name__}: {e})")
        return None
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")

    def make(kind, r, cn):
        n = 2 * r + 1
        pad = lambda x: F.pad(x, (r, r, r, r), mode="replicate")
        if kind == "rand2d":
            w = torch.from_numpy(weights(kind, r)).to(dev).expand(cn, 1, n, n).contiguous()
            return lambda x: F.conv2d(pad(x), w, groups=cn)
        if kind in ("gauss", "sep"):
            row, col = (torch.from_numpy(v).to(dev) for v in weights(kind, r))
            wr = row.view(1, 1, 1, n).expand(cn, 1, 1, n).contiguous()
            wc = col.view(1, 1, n, 1).expand(cn, 1, n, 1).contiguous()
            return lambda x: F.conv2d(F.conv2d(pad(x), wr, groups=cn), wc, groups=cn)
        return lambda x: F.avg_pool2d(pad(x), n, stride=1)

    def run(kind, r, host, runs):
        cn = host.shape[2] if host.ndim == 3 else 1
        is_u8 = host.dtype == np.uint8
        f = make(kind, r, cn)

        def on_device(t):  # HWC (any dtype) -> filtered HWC of the same dtype
            x = t.permute(2, 0, 1)[None] if t.dim() == 3 else t[None, None]
            y = f(x.float())
            if is_u8:
                y = y.round_().clamp_(0, 255).to(torch.uint8)
            return y[0].permute(1, 2, 0) if t.dim() == 3 else y[0, 0]

        src = torch.from_numpy(host).to(dev)
        sync = torch.cuda.synchronize
        event = lambda: torch.cuda.Event(enable_timing=True)
        with torch.no_grad():
            kern = fastest_event_time(lambda: on_device(src), runs, sync, event,
                                     lambda a, b: a.elapsed_time(b))
            e2e = fastest_wall_time(
                lambda: on_device(torch.from_numpy(host).to(dev)).cpu().numpy(),
                max(3, runs // 4), sync)
        return kern, e2e

    return f"PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}", run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="4K only, 6 cases, 5 runs")
    ap.add_argument("--runs", type=int, default=None, help="timed runs a cell (default 20)")
    args = ap.parse_args()
    runs = args.runs or (5 if args.quick else 20)
    cases = QUICK_CASES if args.quick else CASES
    sizes = SIZES[:1] if args.quick else SIZES

    peers = [p for p in (cupy_peer(), torch_peer()) if p]
    if not peers:
        print("no GPU peer could run")
        return 0
    for desc, _ in peers:
        print(f"peer: {desc}")
    print("MP/s, higher is better; kern = device time with the data on the GPU, "
          "e2e = host memory in and out")
    for w, h in sizes:
        mp = w * h / 1e6
        for fname, dtype, cn in FORMATS:
            host = host_image(w, h, dtype, cn)
            print(f"\n== {w}x{h} {fname} ==")
            head = f"{'case':<10}"
            for desc, _ in peers:
                short = desc.split()[0]
                head += f"{short + ' kern':>14}{short + ' e2e':>13}"
            print(head)
            for kind, r in cases:
                line = f"{kind + ' r' + str(r):<10}"
                for _, run in peers:
                    try:
                        kern, e2e = run(kind, r, host, runs)
                        line += f"{mp / kern:>14.0f}{mp / e2e:>13.0f}"
                    except Exception as e:  # one failing cell must not end the table
                        line += f"{'err':>14}{'':>13}"
                        print(f"  ({kind} r{r}: {type(e).__name__}: {e})", file=sys.stderr)
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
