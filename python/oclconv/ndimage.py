"""scipy.ndimage's filters on oclconv: the same names, parameters and defaults.

Images are 2-D, or 3-D with 1-4 channels on the last axis.  SciPy has no
channel axis, so a colour image is filtered with SciPy's own idioms for
leaving the last axis alone: sigma=(s, s, 0), size=(k, k, 1), weights of
shape (kh, kw, 1), axis=0 or 1 for the 1-D filters.  What cannot be
expressed (a filter along the channel axis, order > 0, differing modes per
axis, 3-D volumes, sobel/prewitt/laplace on a 3-D array) raises
NotImplementedError naming the alternative.

Modes: 'reflect' (default) and 'grid-mirror' are oclconv's REFLECT, 'mirror'
REFLECT101, 'nearest' CLAMP, 'wrap' and 'grid-wrap' WRAP, 'constant' and
'grid-constant' CONSTANT with cval; oclconv's own 'normalize' is accepted too.

Differences from SciPy, all in one place:
- an integer result is rounded half to even and saturated once, from a
  float sum (as OpenCV and oclconv do), where SciPy truncates after every
  pass of a separable filter and wraps on overflow;
- sums may be float32 (float results lie within 1e-5 of the size of their
  terms, the library's contract), where SciPy sums in float64;
- inputs and outputs are uint8, uint16 or float32 only;
- keyword-only `method=` pins the library's kernel ('auto' by default).
"""
import functools

import numpy as np

from . import Filter, InvalidArgument, _dtype, apply

__all__ = ["correlate", "convolve", "correlate1d", "convolve1d", "gaussian_filter",
           "gaussian_filter1d", "uniform_filter", "uniform_filter1d", "sobel", "prewitt",
           "laplace"]

_MODES = {"reflect": "reflect", "grid-mirror": "reflect", "mirror": "reflect101",
          "nearest": "clamp", "wrap": "wrap", "grid-wrap": "wrap", "constant": "constant",
          "grid-constant": "constant", "normalize": "normalize"}


def border_of(mode, cval=0.0):
    """oclconv's border name for a SciPy mode (one name, or one per axis if
    all name the same border)."""
    modes = [mode] if isinstance(mode, str) else list(mode)
    try:
        borders = {_MODES[m] for m in modes}
    except (KeyError, TypeError):
        raise InvalidArgument("unknown mode %r: one of %s" % (mode, ", ".join(_MODES))) \
            from None
    if len(borders) != 1:
        raise NotImplementedError("differing modes per axis %r: oclconv takes one border for "
                                  "both axes; filter each axis with the 1-D filters" % (mode,))
    border = borders.pop()
    if border == "constant" and not np.isfinite(cval):
        raise InvalidArgument("cval must be finite, not %r" % (cval,))
    return border


def _ndim(input):
    nd = np.ndim(input)
    if nd == 2 or (nd == 3 and np.shape(input)[2] <= 4):
        return nd
    if nd == 3:
        raise NotImplementedError("3-D volumes (last axis of %d > 4 channels) are not supported:"
                                  " filter each 2-D slice" % np.shape(input)[2])
    raise NotImplementedError("%d-D input: images are 2-D, or 3-D with 1-4 channels on the "
                              "last axis" % nd)


def _per_axis(value, ndim, name):
    if np.ndim(value) == 0:
        return [value] * ndim
    vals = list(value)
    if len(vals) != ndim:
        raise InvalidArgument("%s has %d entries for a %d-D input" % (name, len(vals), ndim))
    return vals


def _no_channel_filter(ndim, what, idiom):
    raise NotImplementedError("%s along the channel axis (the last axis of a 3-D image) "
                              "cannot be done here: %s" % (what, idiom))


def _placement(n, origin, name="weights"):
    """Where SciPy's origin puts n taps in an odd filter centred at the
    output: that filter's length, and each tap's index in it."""
    if n == 0:
        raise InvalidArgument("%s: no taps" % name)
    origin = int(origin)
    if not -(n // 2) <= origin <= (n - 1) // 2:
        raise InvalidArgument("invalid origin %d for %d taps" % (origin, n))
    offsets = np.arange(n) - n // 2 - origin   # where tap j reads, from the output
    r = int(np.abs(offsets).max())
    return 2 * r + 1, offsets + r


def _centred(taps, origin, name="weights"):
    """1-D taps with SciPy's origin, as an odd filter centred at the output."""
    taps = np.asarray(taps, dtype=np.float64).ravel()
    size, at = _placement(len(taps), origin, name)
    out = np.zeros(size)
    out[at] = taps
    return out


def _axis(axis, ndim):
    a = int(axis)
    if not -ndim <= a < ndim:
        raise InvalidArgument("axis %d is out of range for a %d-D input" % (axis, ndim))
    a %= ndim
    if a == 2:
        _no_channel_filter(ndim, "a 1-D filter", "pass axis=0 or axis=1")
    return a


def _one_axis(taps, axis):
    """(row, col) for 1-D taps along axis 0 (y) or 1 (x)."""
    one = np.ones(1)
    return (one, taps) if axis == 0 else (taps, one)


@functools.lru_cache(maxsize=64)
def _cached_filter(kind, a, b, shape):
    if kind == "2d":
        return Filter(np.frombuffer(a).reshape(shape))
    return Filter.separable(np.frombuffer(a), np.frombuffer(b))


def filter_of(spec):
    """The Filter for a 2-D weight array or (row, col) taps; the last few are
    kept, so repeated calls with the same parameters make no new filter."""
    if isinstance(spec, np.ndarray):
        w = np.ascontiguousarray(spec, dtype=np.float64)
        return _cached_filter("2d", w.tobytes(), None, w.shape)
    row, col = (np.ascontiguousarray(t, dtype=np.float64).ravel() for t in spec)
    return _cached_filter("separable", row.tobytes(), col.tobytes(), None)


def _run(input, spec, output, mode, cval, method):
    """Applies spec, a 2-D weight array or (row, col) taps, with SciPy's
    output rule: None means input's dtype, a dtype a new array, an array
    is written."""
    border = border_of(mode, cval)
    image = np.asarray(input)
    f = filter_of(spec)
    if output is None or isinstance(output, (type, np.dtype, str)):
        dt = _dtype(image.dtype if output is None else output,
                    "input dtype" if output is None else "output dtype")
        return apply(image, f, border, cval, method=method, dtype=dt)
    if not isinstance(output, np.ndarray):
        raise TypeError("output must be None, a dtype or an array, not %r" % type(output))
    if output.shape != image.shape:
        raise InvalidArgument("output shape %s does not match the input's %s"
                              % (output.shape, image.shape))
    apply(image, f, border, cval, method=method, out=output)
    return output


def _plan(name, ndim, *args):
    """The (row, col) or 2-D weights of each filter, from SciPy's parameters."""
    return _PLANS[name](ndim, *args)


# ---- the filters' weights from SciPy's parameters --------------------------
def _gaussian_taps(sigma, truncate, radius):
    sigma = float(sigma)
    if not np.isfinite(sigma) or sigma < 0:
        raise InvalidArgument("sigma must be finite and >= 0, not %r" % sigma)
    if not np.isfinite(truncate):
        raise InvalidArgument("truncate must be finite, not %r" % truncate)
    r = int(truncate * sigma + 0.5) if radius is None else int(radius)
    if r < 0:
        raise InvalidArgument("radius must be >= 0, not %d" % r)
    if sigma <= 1e-15:     # SciPy leaves such an axis alone
        return np.ones(1)
    x = np.arange(-r, r + 1, dtype=np.float64)
    phi = np.exp(-0.5 / (sigma * sigma) * x * x)
    return phi / phi.sum()


def _gaussian_plan(ndim, sigma, order, truncate, radius):
    sig = _per_axis(sigma, ndim, "sigma")
    orders = _per_axis(order, ndim, "order")
    rad = _per_axis(radius, ndim, "radius")
    if any(int(o) != 0 for o in orders):
        raise NotImplementedError("order > 0 (Gaussian derivatives) is not supported: use "
                                  "correlate1d with the derivative's taps, or scipy.ndimage")
    if ndim == 3 and float(sig[2]) != 0:
        _no_channel_filter(ndim, "a Gaussian", "pass sigma=(s, s, 0)")
    return (_gaussian_taps(sig[1], truncate, rad[1]), _gaussian_taps(sig[0], truncate, rad[0]))


def _uniform_taps(size, origin):
    size = int(size)
    if size < 1:
        raise InvalidArgument("size must be >= 1, not %d" % size)
    return _centred(np.full(size, 1.0 / size), origin)


def _uniform_plan(ndim, size, origin):
    sizes = _per_axis(size, ndim, "size")
    origins = _per_axis(origin, ndim, "origin")
    if ndim == 3 and (int(sizes[2]) != 1 or int(origins[2]) != 0):
        _no_channel_filter(ndim, "a uniform filter", "pass size=(k, k, 1)")
    return (_uniform_taps(sizes[1], origins[1]), _uniform_taps(sizes[0], origins[0]))


def _correlate_plan(ndim, weights, origin):
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != ndim:
        raise InvalidArgument("weights have %d dimensions for a %d-D input" % (w.ndim, ndim))
    origins = _per_axis(origin, ndim, "origin")
    if ndim == 3:
        if w.shape[2] != 1 or int(origins[2]) != 0:
            _no_channel_filter(ndim, "weights of shape %s" % (w.shape,),
                               "use weights of shape (kh, kw, 1)")
        w = w[:, :, 0]
    if w.size == 0:
        raise InvalidArgument("weights: no taps")
    # Each axis's origin moves the weights as it moves 1-D taps.
    (h, rows), (wd, cols) = _placement(w.shape[0], origins[0]), _placement(w.shape[1], origins[1])
    out = np.zeros((h, wd))
    out[np.ix_(rows, cols)] = w
    return out


def _flip_origin(n, origin):
    o = -int(origin)
    return o - 1 if n % 2 == 0 else o


def _convolve_plan(ndim, weights, origin):
    w = np.asarray(weights, dtype=np.float64)
    origins = _per_axis(origin, ndim, "origin")
    if w.ndim == ndim:
        flipped = [_flip_origin(w.shape[k], origins[k]) for k in range(ndim)]
        return _correlate_plan(ndim, w[(slice(None, None, -1),) * ndim], flipped)
    return _correlate_plan(ndim, w, origin)   # reports the dimension mismatch


def _plan_1d(ndim, weights, axis, origin):
    a = _axis(axis, ndim)
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1:
        raise InvalidArgument("weights must be 1-D, not %d-D" % w.ndim)
    return _one_axis(_centred(w, origin), a)


def _convolve1d_plan(ndim, weights, axis, origin):
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1:
        raise InvalidArgument("weights must be 1-D, not %d-D" % w.ndim)
    return _plan_1d(ndim, w[::-1], axis, _flip_origin(len(w), origin))


def _gaussian1d_plan(ndim, sigma, axis, order, truncate, radius):
    a = _axis(axis, ndim)
    if int(order) != 0:
        raise NotImplementedError("order > 0 (Gaussian derivatives) is not supported: use "
                                  "correlate1d with the derivative's taps, or scipy.ndimage")
    return _one_axis(_gaussian_taps(sigma, truncate, radius), a)


def _uniform1d_plan(ndim, size, axis, origin):
    return _one_axis(_uniform_taps(size, origin), _axis(axis, ndim))


def _derivative_plan(name, smooth):
    def plan(ndim, axis):
        if ndim != 2:
            raise NotImplementedError("%s of a 3-D array smooths along its channel axis in "
                                      "SciPy; for a colour image use correlate with weights "
                                      "of shape (3, 3, 1), or filter each channel" % name)
        a = _axis(axis, ndim)
        d, s = np.array([-1.0, 0.0, 1.0]), np.array(smooth)
        return (d, s) if a == 1 else (s, d)
    return plan


def _laplace_plan(ndim):
    if ndim != 2:
        raise NotImplementedError("laplace of a 3-D array differentiates along its channel "
                                  "axis in SciPy; for a colour image use correlate with "
                                  "weights of shape (3, 3, 1), or filter each channel")
    return np.array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])


_PLANS = {
    "correlate": _correlate_plan, "convolve": _convolve_plan,
    "correlate1d": _plan_1d, "convolve1d": _convolve1d_plan,
    "gaussian_filter": _gaussian_plan, "gaussian_filter1d": _gaussian1d_plan,
    "uniform_filter": _uniform_plan, "uniform_filter1d": _uniform1d_plan,
    "sobel": _derivative_plan("sobel", [1.0, 2.0, 1.0]),
    "prewitt": _derivative_plan("prewitt", [1.0, 1.0, 1.0]),
    "laplace": _laplace_plan,
}


# ---- SciPy's signatures ------------------------------------------------------
def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *,
              method="auto"):
    return _run(input, _plan("correlate", _ndim(input), weights, origin), output, mode, cval,
                method)


def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *,
             method="auto"):
    return _run(input, _plan("convolve", _ndim(input), weights, origin), output, mode, cval,
                method)


def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *,
                method="auto"):
    return _run(input, _plan("correlate1d", _ndim(input), weights, axis, origin), output,
                mode, cval, method)


def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *,
               method="auto"):
    return _run(input, _plan("convolve1d", _ndim(input), weights, axis, origin), output,
                mode, cval, method)


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0,
                    truncate=4.0, *, radius=None, method="auto"):
    return _run(input, _plan("gaussian_filter", _ndim(input), sigma, order, truncate, radius),
                output, mode, cval, method)


def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0,
                      truncate=4.0, *, radius=None, method="auto"):
    return _run(input, _plan("gaussian_filter1d", _ndim(input), sigma, axis, order, truncate,
                             radius), output, mode, cval, method)


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0, *,
                   method="auto"):
    return _run(input, _plan("uniform_filter", _ndim(input), size, origin), output, mode, cval,
                method)


def uniform_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *,
                     method="auto"):
    return _run(input, _plan("uniform_filter1d", _ndim(input), size, axis, origin), output,
                mode, cval, method)


def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0, *, method="auto"):
    return _run(input, _plan("sobel", _ndim(input), axis), output, mode, cval, method)


def prewitt(input, axis=-1, output=None, mode="reflect", cval=0.0, *, method="auto"):
    return _run(input, _plan("prewitt", _ndim(input), axis), output, mode, cval, method)


def laplace(input, output=None, mode="reflect", cval=0.0, *, method="auto"):
    return _run(input, _plan("laplace", _ndim(input)), output, mode, cval, method)
