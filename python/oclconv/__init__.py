"""oclconv: image convolution on any OpenCL device, on NumPy arrays.

    ctx = oclconv.Context()                      # $OCLCONV_DEVICE, else the first GPU
    out = ctx.apply(image, oclconv.Filter.gaussian(2.0), border="reflect")

Images are 2-D (gray) or 3-D with 1-4 channels on the last axis, of uint8,
uint16 or float32; any object with the buffer protocol is taken.  A context is
used by one thread at a time and shared safely (calls are serialised);
filters are immutable and shared freely.  `oclconv.ndimage` has SciPy's
names, `oclconv.dask` the same filters on Dask arrays.
"""
import threading

import numpy as np

from . import _oclconv
from ._errors import (BuildError, Error, InvalidArgument, NoDevice, OpenCLError, OutOfMemory,
                      Unsupported, BY_STATUS)

__all__ = ["Context", "Filter", "apply", "default_context", "devices", "Error",
           "InvalidArgument", "OutOfMemory", "NoDevice", "Unsupported", "BuildError",
           "OpenCLError", "BORDERS", "METHODS", "DTYPES"]

_oclconv._set_errors(BY_STATUS)

_v = _oclconv.version_number
__version__ = "%d.%d.%d" % (_v // 10000, _v // 100 % 100, _v % 100)

# The library's enums by name, in the header's order.
BORDERS = ("clamp", "zero", "constant", "reflect", "reflect101", "wrap", "normalize")
METHODS = ("auto", "buffer", "image", "tiled", "separable", "box", "runs", "fft")
DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32))


def _index(names, value, what):
    try:
        return names.index(str(value).lower())
    except ValueError:
        raise InvalidArgument("unknown %s %r: one of %s" % (what, value, ", ".join(names))) \
            from None


def _dtype(dtype, what="dtype"):
    dt = np.dtype(dtype)
    if dt not in DTYPES:
        raise TypeError("%s %s is not accepted: uint8, uint16 or float32" % (what, dt))
    return dt


def devices():
    """The OpenCL devices, one string each ("N: name [TYPE] on platform"); N is
    what Context(device="N") and OCLCONV_DEVICE take."""
    return [line for line in _oclconv.list_devices().splitlines() if line]


class Filter(_oclconv.Filter):
    """An immutable filter: odd width and height, anchored at its centre, applied
    as a correlation (not flipped).  Filter(weights) takes a 2-D array."""

    def __new__(cls, weights):
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 2:
            raise InvalidArgument("Filter weights must be 2-D (height, width), not %d-D; "
                                  "Filter.separable(row, col) takes 1-D taps" % w.ndim)
        f = _oclconv.filter_2d(cls, np.ascontiguousarray(w, dtype=np.float32),
                               w.shape[1], w.shape[0])
        f._recipe = ("filter_2d", np.ascontiguousarray(w, dtype=np.float32),
                     w.shape[1], w.shape[0])
        return f

    @classmethod
    def _make(cls, name, *args):
        f = getattr(_oclconv, name)(cls, *args)
        f._recipe = (name,) + args
        return f

    @classmethod
    def separable(cls, row, col):
        """The filter col[j] * row[i]: `row` runs along x (width), `col` along y."""
        r = np.ascontiguousarray(np.asarray(row, dtype=np.float64).ravel(), dtype=np.float32)
        c = np.ascontiguousarray(np.asarray(col, dtype=np.float64).ravel(), dtype=np.float32)
        return cls._make("filter_separable", r, c)

    @classmethod
    def gaussian(cls, sigma, radius=None):
        """Separable Gaussian; sigma is one value or (sigma_x, sigma_y); radius
        None means ceil(3 sigma), else one value or (rx, ry)."""
        sx, sy = (sigma, sigma) if np.ndim(sigma) == 0 else sigma
        rx, ry = (0, 0) if radius is None else \
            (radius, radius) if np.ndim(radius) == 0 else radius
        return cls._make("filter_gaussian", float(sx), float(sy), int(rx), int(ry))

    @classmethod
    def box(cls, rx, ry=None):
        """(2rx+1) x (2ry+1) taps of equal weight summing to 1; ry defaults to rx."""
        return cls._make("filter_box", int(rx), int(rx if ry is None else ry))

    @classmethod
    def sharpen(cls, amount=1.0):
        """[0 -a 0; -a 1+4a -a; 0 -a 0] with a = amount."""
        return cls._make("filter_named", "sharpen", float(amount))

    @classmethod
    def emboss(cls):
        return cls._make("filter_named", "emboss")

    @classmethod
    def laplacian(cls):
        return cls._make("filter_named", "laplacian")

    @classmethod
    def sobel_x(cls):
        return cls._make("filter_named", "sobel_x")

    @classmethod
    def sobel_y(cls):
        return cls._make("filter_named", "sobel_y")

    @property
    def weights(self):
        """The (height, width) float64 weights the filter stands for."""
        return np.frombuffer(self._weight_bytes(), dtype=np.float64).reshape(self.shape)

    @property
    def radius(self):
        """(ry, rx): how far the filter reaches from its centre."""
        h, w = self.shape
        return h // 2, w // 2

    def __reduce__(self):
        # Rebuilt from how it was made, so a filter travels to other processes
        # (Dask workers) and stands for the very same weights there.
        return (_rebuild, (type(self),) + self._recipe)

    def __repr__(self):
        h, w = self.shape
        return "<oclconv.Filter %dx%d (%s)>" % (w, h, self._recipe[0][7:])


def _rebuild(cls, name, *args):
    return cls._make(name, *args)


class Context(_oclconv.Context):
    """Context(device=None): an OpenCL device, its queue and its program cache.
    device takes the OCLCONV_DEVICE grammar (gpu, cpu, an index, a name
    substring, platform:type:device); None means $OCLCONV_DEVICE, else the
    first GPU, else the first device.  close() (or a with block) releases it."""

    def apply(self, image, filter, border="clamp", border_value=0.0, scale=1.0, delta=0.0,
              method="auto", out=None, dtype=None):
        """Filters `image` and returns the result: `out` when given (any array
        of the image's shape with a writable buffer), else a new array of
        `dtype` (default: the image's).  out = scale * correlation + delta;
        integer results are rounded half to even and saturated."""
        src = image if isinstance(image, np.ndarray) else np.asarray(image)
        if out is None:
            dt = _dtype(src.dtype, "image dtype") if dtype is None else \
                _dtype(dtype, "output dtype")
            out = np.empty(src.shape, dtype=dt)
        elif dtype is not None and np.dtype(dtype) != getattr(out, "dtype", None):
            raise TypeError("dtype=%s disagrees with out's dtype %s"
                            % (np.dtype(dtype), getattr(out, "dtype", "?")))
        self._apply(src, out, filter, _index(BORDERS, border, "border"), border_value,
                    scale, delta, _index(METHODS, method, "method"))
        return out

    def apply_region(self, image, filter, whole, image_at=(0, 0), out_at=None,
                     out_shape=None, border="clamp", border_value=0.0, scale=1.0, delta=0.0,
                     method="auto", out=None, dtype=None):
        """Filters a rectangle of a larger image, `whole` = (height, width):
        `image` holds the rectangle whose first pixel is at `image_at` = (y, x)
        of the whole (a tile with its halo, a strip), and the result is the
        rectangle of `out_shape` = (height, width) at `out_at` (defaults: the
        image's own) of the whole image's result, the border acting at the
        whole image's edges only.  `image` must hold every pixel the result's
        windows read inside the whole (the result's rectangle grown by the
        filter's radius, cut to the whole; with border="wrap", the rows and
        columns it wraps to); else ValueError names them."""
        src = image if isinstance(image, np.ndarray) else np.asarray(image)
        out_at = image_at if out_at is None else out_at
        if out is None:
            shape = src.shape[:2] if out_shape is None else tuple(out_shape)
            dt = _dtype(src.dtype, "image dtype") if dtype is None else \
                _dtype(dtype, "output dtype")
            out = np.empty(shape + src.shape[2:], dtype=dt)
        elif dtype is not None and np.dtype(dtype) != getattr(out, "dtype", None):
            raise TypeError("dtype=%s disagrees with out's dtype %s"
                            % (np.dtype(dtype), getattr(out, "dtype", "?")))
        (h, w), (sy, sx), (dy, dx) = whole, image_at, out_at
        self._apply(src, out, filter, _index(BORDERS, border, "border"), border_value,
                    scale, delta, _index(METHODS, method, "method"),
                    (int(w), int(h), int(sx), int(sy), int(dx), int(dy)))
        return out

    def apply_batch(self, images, filter, border="clamp", border_value=0.0, scale=1.0,
                    delta=0.0, method="auto", dtype=None):
        """Filters each image of a sequence (any shapes) with one filter and
        returns the list of results, of `dtype` (default: each image's own).
        On a device with memory of its own the images' copies and kernels
        overlap; a bad image raises, naming its index, before any work.
        Images of one shape and dtype (the rows of an N x H x W x C array)
        are filtered in stacks, and their results are views of one array,
        so that they travel in one copy each way."""
        srcs = [im if isinstance(im, np.ndarray) else np.asarray(im) for im in images]
        kinds = [_dtype(s.dtype, "image %d dtype" % i) if dtype is None
                 else _dtype(dtype, "output dtype") for i, s in enumerate(srcs)]
        if srcs and all(s.shape == srcs[0].shape and k == kinds[0] for s, k in zip(srcs, kinds)):
            outs = list(np.empty((len(srcs),) + srcs[0].shape, dtype=kinds[0]))
        else:
            outs = [np.empty(s.shape, dtype=k) for s, k in zip(srcs, kinds)]
        self._apply_batch(srcs, outs, filter, _index(BORDERS, border, "border"), border_value,
                          scale, delta, _index(METHODS, method, "method"))
        return outs

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if self.closed:
            return "<oclconv.Context (closed)>"
        return "<oclconv.Context on %r>" % self.device_name


_local = threading.local()


def default_context():
    """This thread's own context, made on first use (device from
    $OCLCONV_DEVICE, as Context() does)."""
    ctx = getattr(_local, "ctx", None)
    if ctx is None or ctx.closed:
        ctx = _local.ctx = Context()
    return ctx


def apply(image, filter, border="clamp", border_value=0.0, scale=1.0, delta=0.0,
          method="auto", out=None, dtype=None):
    """Context.apply() on this thread's default context."""
    return default_context().apply(image, filter, border, border_value, scale, delta,
                                   method, out, dtype)
