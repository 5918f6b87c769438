"""oclconv's filters on Dask arrays: Dask schedules, oclconv filters chunks.

    import dask.array as da, oclconv.dask
    x = da.from_zarr(...)                                 # (height, width[, channels])
    y = oclconv.dask.gaussian_filter(x, sigma=(2, 2, 0))  # lazy, like x

Each output chunk is one task, which takes the input chunks its halo
reaches (the filter's radius on the two spatial axes: all of the nearest
chunks, several where chunks are narrower than the radius), puts the
halo'd source together in one buffer (no copy at all where one chunk holds
it, or where the chunks are views of one array in memory, as
da.from_array() of a NumPy array makes them: CPU devices read the rows
where they lie) and filters it as a region: the border mode acts only at
the true edges of the image, or under WRAP on a halo that goes on at the
far side.  So a chunked result equals the whole-image result: to the bit
for integer outputs under a pinned method, within the library's contract
otherwise.
Chunks split along the channel axis are merged first.  (Dask's own
`map_overlap` copies each chunk with its halo into a new array, filters,
and trims; this graph makes one copy into a reused buffer, 1.25-1.45x
faster in chunks of 1024² and 2048²: docs/performance.md.)  Each worker
thread filters on its own context, made on first use on the device that
$OCLCONV_DEVICE names in that process (so each worker process of a cluster
may be given a GPU of its own).

The names are dask_image.ndfilters' (and scipy.ndimage's), with
keyword-only `output` and `method`; `apply` is oclconv.apply on a Dask
array.  `output` is a dtype, or, as in scipy.ndimage, a NumPy array that
the tasks write their blocks into (apply's `out`), where da.store() would
copy each block into a target.
"""
import bisect
import os
import threading

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from . import BORDERS, METHODS, Filter, _dtype, _index, default_context
from . import ndimage as _nd

__all__ = ["apply", "correlate", "convolve", "gaussian_filter", "uniform_filter", "sobel",
           "prewitt", "laplace"]


def _reach(bounds, r, wrap):
    """For each block of an axis (block edges `bounds`), where its halo'd
    span comes from: a list of (block, start, stop) segments in order, and
    how many halo values come before the block.  The halo is `r` values on
    each side, cut at the axis' ends, or going on at the far end with
    `wrap`; an axis of one block takes none (the border acts on it whole)."""
    n, last = bounds[-1], len(bounds) - 2
    plans = []
    for k in range(last + 1):
        a, b = bounds[k], bounds[k + 1]
        if last == 0:
            lo, hi = a, b
        elif wrap:
            lo, hi = a - r, b + r
        else:
            lo, hi = max(a - r, 0), min(b + r, n)
        segments, pos = [], lo
        while pos < hi:
            p = pos % n
            j = bisect.bisect_right(bounds, p) - 1
            stop = min(bounds[j + 1], p + hi - pos)
            segments.append((j, p - bounds[j], stop - bounds[j]))
            pos += stop - p
        plans.append((segments, a - lo))
    return plans


_local = threading.local()


def _scratch(shape, dtype):
    """An array of `shape` in this thread's buffer for sources put together,
    kept from one block to the next (fresh memory for each would cost its
    first touch every time); it grows to the largest block's size."""
    n = int(np.prod(shape)) * dtype.itemsize
    buf = getattr(_local, "buf", None)
    if buf is None or buf.nbytes < n:
        buf = _local.buf = np.empty(n, np.uint8)
    return buf[:n].view(dtype).reshape(shape)


def _address(a):
    return a.__array_interface__["data"][0]


def _source(pieces, rows, cols):
    """A block's halo'd source, from the parts `rows` x `cols` of the
    blocks `pieces`: the one block's part itself where it holds it all; a
    view where the blocks are views of one array, laid out in memory as in
    the image (da.from_array of a NumPy array; every pixel of the view lies
    in its own block's memory, so no block is read past its bounds);
    else their parts copied into this thread's buffer."""
    parts, y = [], 0
    for (_, r0, r1), line in zip(rows, pieces):
        x = 0
        for (_, c0, c1), block in zip(cols, line):
            parts.append((y, x, block[r0:r1, c0:c1]))
            x += c1 - c0
        y += r1 - r0
    first = parts[0][2]
    shape = (y, x) + first.shape[2:]
    if len(parts) == 1:
        return first
    s0, s1 = first.strides[:2]
    if all(isinstance(p, np.ndarray) and p.dtype == first.dtype and p.strides == first.strides
           and _address(p) == _address(first) + py * s0 + px * s1 for py, px, p in parts):
        return np.lib.stride_tricks.as_strided(first, shape, first.strides, writeable=False)
    src = _scratch(shape, first.dtype)
    for py, px, p in parts:
        src[py:py + p.shape[0], px:px + p.shape[1]] = p
    return src


def _tile(pieces, rows, cols, top, left, height, width, filter, border, border_value, scale,
          delta, method, out_dtype, dest=None):
    """One output block: its source with the halo put together from the
    blocks that hold it (or the one block itself, where it holds it all),
    filtered as a region of the image whose edges are the image's true
    edges: CPU devices read the source where it lies and make only the
    block (the separable, 2-D and integer box paths), no grown result and
    no copy of the block out of one (8192² RGBA8 in 2048² blocks, 2-core
    PoCL, persist(): a Gaussian 1.24x and a 7x7 filter 1.21x the grown
    blocks' results viewed).  With `dest` (a block of the caller's `out`, the process and
    the address it had when the graph was made) the block is made there."""
    if dest is not None:
        block, pid, address = dest
        if os.getpid() != pid or (block.size and _address(block) != address):
            raise RuntimeError("out= an array is written by tasks in the process that holds "
                               "it (Dask's threaded or synchronous scheduler); this task runs "
                               "on a copy of it (a cluster's worker?): store the result with "
                               "da.store() into a target the workers can write instead")
    else:
        block = np.empty((height, width) + pieces[0][0].shape[2:], dtype=out_dtype)
    if height == 0 or width == 0:
        return block
    src = _source(pieces, rows, cols)
    return default_context().apply_region(src, filter, src.shape[:2], out_at=(top, left),
                                          border=border, border_value=border_value,
                                          scale=scale, delta=delta, method=method, out=block)


def _destination(out, x, dtype):
    """out= checked (a writable NumPy array of x's shape, of `dtype` where
    given, sharing no memory with the arrays x's graph holds: tasks would
    write pixels that others still read), and the result's dtype."""
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be a NumPy array, not %s" % type(out).__name__)
    dt = _dtype(out.dtype if dtype is None else dtype, "output dtype")
    if out.shape != x.shape:
        raise ValueError("out's shape %s does not match the image's %s" % (out.shape, x.shape))
    if out.dtype != dt:
        raise TypeError("out's dtype %s is not the result's %s" % (out.dtype, dt))
    if not out.flags.writeable:
        raise ValueError("out is read-only")
    for v in dict(x.__dask_graph__()).values():
        v = getattr(v, "value", v)
        if isinstance(v, np.ndarray) and np.may_share_memory(v, out):
            raise ValueError("out shares memory with the image: its tasks would overwrite "
                             "pixels that others still read; filter into another array")
    return dt


def apply(image, filter, border="clamp", border_value=0.0, scale=1.0, delta=0.0,
          method="auto", dtype=None, out=None):
    """oclconv.apply() on a Dask array (2-D, or 3-D with 1-4 channels on the
    last axis); returns a Dask array of `dtype` (default: the image's, or
    out's).  With `out`, a NumPy array of the image's shape, each task
    writes its block into it and the Dask array's blocks are views of it:
    persist() or compute() it on Dask's threaded scheduler, which runs the
    tasks in this process (no block is copied, as da.store() would copy
    each into a target)."""
    x = da.asarray(image)
    if not isinstance(filter, Filter):
        raise TypeError("filter must be an oclconv.Filter, not %s" % type(filter).__name__)
    _nd._ndim(x)
    dt = _dtype(x.dtype, "image dtype")
    if out is not None:
        dt = _destination(out, x, dtype)
    elif dtype is not None:
        dt = _dtype(dtype, "output dtype")
    border = BORDERS[_index(BORDERS, border, "border")]
    method = METHODS[_index(METHODS, method, "method")]
    if x.ndim == 3:
        x = x.rechunk({2: -1})
    for axis, r in zip((0, 1), filter.radius):
        if x.numblocks[axis] > 1 and r >= x.shape[axis]:
            x = x.rechunk({axis: -1})     # a halo as wide as the image: take it whole
    edges = [np.cumsum((0,) + c).tolist() for c in x.chunks[:2]]
    plans = [_reach(e, r, border == "wrap") for e, r in zip(edges, filter.radius)]
    name = "oclconv-apply-" + tokenize(x, filter.__reduce__()[1], border, border_value, scale,
                                       delta, method, dt, None if out is None else id(out))
    options = (filter, border, float(border_value), float(scale), float(delta), method, dt)
    tail = (0,) if x.ndim == 3 else ()
    layer = {}
    for i, (rows, top) in enumerate(plans[0]):
        for j, (cols, left) in enumerate(plans[1]):
            pieces = [[(x.name, r[0], c[0]) + tail for c in cols] for r in rows]
            dest = None
            if out is not None:
                block = out[edges[0][i]:edges[0][i + 1], edges[1][j]:edges[1][j + 1]]
                dest = (block, os.getpid(), _address(block))
            layer[(name, i, j) + tail] = (_tile, pieces, rows, cols, top, left,
                                          x.chunks[0][i], x.chunks[1][j]) + options + (dest,)
    graph = HighLevelGraph.from_collections(name, layer, dependencies=[x])
    return da.Array(graph, name, chunks=x.chunks, dtype=dt,
                    meta=np.empty((0,) * x.ndim, dtype=dt))


def _named(name, image, args, mode, cval, output, method):
    x = da.asarray(image)
    spec = _nd._plan(name, _nd._ndim(x), *args)
    f = _nd.filter_of(spec)
    if isinstance(output, np.ndarray):
        return apply(x, f, _nd.border_of(mode, cval), cval, method=method, out=output)
    return apply(x, f, _nd.border_of(mode, cval), cval, method=method,
                 dtype=x.dtype if output is None else output)


def correlate(image, weights, mode="reflect", cval=0.0, origin=0, *, output=None,
              method="auto"):
    return _named("correlate", image, (weights, origin), mode, cval, output, method)


def convolve(image, weights, mode="reflect", cval=0.0, origin=0, *, output=None,
             method="auto"):
    return _named("convolve", image, (weights, origin), mode, cval, output, method)


def gaussian_filter(image, sigma, order=0, mode="reflect", cval=0.0, truncate=4.0, *,
                    radius=None, output=None, method="auto"):
    return _named("gaussian_filter", image, (sigma, order, truncate, radius), mode, cval,
                  output, method)


def uniform_filter(image, size=3, mode="reflect", cval=0.0, origin=0, *, output=None,
                   method="auto"):
    return _named("uniform_filter", image, (size, origin), mode, cval, output, method)


def sobel(image, axis=-1, mode="reflect", cval=0.0, *, output=None, method="auto"):
    return _named("sobel", image, (axis,), mode, cval, output, method)


def prewitt(image, axis=-1, mode="reflect", cval=0.0, *, output=None, method="auto"):
    return _named("prewitt", image, (axis,), mode, cval, output, method)


def laplace(image, mode="reflect", cval=0.0, *, output=None, method="auto"):
    return _named("laplace", image, (), mode, cval, output, method)
