"""oclconv's filters on Dask arrays: Dask schedules, oclconv filters chunks.

    import dask.array as da, oclconv.dask
    x = da.from_zarr(...)                                 # (height, width[, channels])
    y = oclconv.dask.gaussian_filter(x, sigma=(2, 2, 0))  # lazy, like x

Each chunk is filtered with its neighbours' pixels around it
(`map_overlap`, depth = the filter's radius on the two spatial axes), and
the border mode acts only at the true edges of the image (boundary 'none';
WRAP gets Dask's 'periodic' halo), so a chunked result equals the
whole-image result: to the bit for integer outputs under a pinned method,
within the library's contract otherwise.  Chunks split along the channel
axis are merged first.  Each worker thread filters on its own context,
made on first use on the device that $OCLCONV_DEVICE names in that process
(so each worker process of a cluster may be given a GPU of its own).

The names are dask_image.ndfilters' (and scipy.ndimage's), with
keyword-only `output` (a dtype) and `method`; `apply` is oclconv.apply on a
Dask array.
"""
import dask.array as da
import numpy as np

from . import BORDERS, METHODS, Filter, _dtype, _index
from . import apply as _apply
from . import ndimage as _nd

__all__ = ["apply", "correlate", "convolve", "gaussian_filter", "uniform_filter", "sobel",
           "prewitt", "laplace"]


def _block(block, filter, border, border_value, scale, delta, method, out_dtype):
    return _apply(block, filter, border, border_value, scale, delta, method, dtype=out_dtype)


def apply(image, filter, border="clamp", border_value=0.0, scale=1.0, delta=0.0,
          method="auto", dtype=None):
    """oclconv.apply() on a Dask array (2-D, or 3-D with 1-4 channels on the
    last axis); returns a Dask array of `dtype` (default: the image's)."""
    x = da.asarray(image)
    if not isinstance(filter, Filter):
        raise TypeError("filter must be an oclconv.Filter, not %s" % type(filter).__name__)
    _nd._ndim(x)
    dt = _dtype(x.dtype, "image dtype")
    dt = dt if dtype is None else _dtype(dtype, "output dtype")
    border = BORDERS[_index(BORDERS, border, "border")]
    method = METHODS[_index(METHODS, method, "method")]
    if x.ndim == 3:
        x = x.rechunk({2: -1})
    depth = {0: 0, 1: 0, 2: 0}
    for axis, r in zip((0, 1), filter.radius):
        if x.numblocks[axis] > 1 and r >= x.shape[axis]:
            x = x.rechunk({axis: -1})     # a halo as wide as the image: take it whole
        if x.numblocks[axis] > 1:
            depth[axis] = r
    depth = {a: d for a, d in depth.items() if a < x.ndim}
    return x.map_overlap(_block, depth=depth, boundary="periodic" if border == "wrap" else "none",
                         trim=True, dtype=dt, meta=np.empty((0,) * x.ndim, dtype=dt),
                         filter=filter, border=border, border_value=float(border_value),
                         scale=float(scale), delta=float(delta), method=method, out_dtype=dt)


def _named(name, image, args, mode, cval, output, method):
    x = da.asarray(image)
    spec = _nd._plan(name, _nd._ndim(x), *args)
    f = _nd.filter_of(spec)
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
