"""Shared by the Python package's tests: the float64 reference and its comparison."""
import numpy as np
import pytest

import oclconv

_PAD = {"clamp": "edge", "reflect": "symmetric", "reflect101": "reflect", "wrap": "wrap",
        "zero": "constant", "constant": "constant"}


def reference(image, weights, border="clamp", value=0.0, scale=1.0, delta=0.0):
    """The correlation in float64 with numpy's padding: (result, the size of
    its terms), both shaped (height, width, channels)."""
    x = np.asarray(image, dtype=np.float64)
    x = x[..., None] if x.ndim == 2 else x
    w = np.asarray(weights, dtype=np.float64)
    ry, rx = w.shape[0] // 2, w.shape[1] // 2
    h, wd = x.shape[:2]
    pad = ((ry, ry), (rx, rx), (0, 0))
    if border == "normalize":
        xp = np.pad(x, pad)
        inside = np.pad(np.ones((h, wd, 1)), pad)
    else:
        kw = {"constant_values": value if border == "constant" else 0.0} \
            if border in ("zero", "constant") else {}
        xp = np.pad(x, pad, mode=_PAD[border], **kw)
        inside = None
    s = np.zeros_like(x)
    terms = np.zeros_like(x)
    wsum = np.zeros((h, wd, 1))
    for j in range(w.shape[0]):
        for i in range(w.shape[1]):
            win = xp[j:j + h, i:i + wd]
            s += w[j, i] * win
            terms += abs(w[j, i] * win)
            if inside is not None:
                wsum += w[j, i] * inside[j:j + h, i:i + wd]
    if inside is not None:
        factor = w.sum() / wsum
        s, terms = s * factor, terms * abs(factor)
    return scale * s + delta, abs(scale) * terms + abs(delta)


def assert_matches(result, expected, terms, dtype):
    """The library's exactness contract: integers are the reference rounded
    half to even and saturated (off by one only within 1e-3 of a tie); floats
    lie within 1e-5 of the size of their terms."""
    got = np.asarray(result)
    got = got[..., None] if got.ndim == 2 else got
    dt = np.dtype(dtype)
    assert got.dtype == dt
    if dt.kind == "u":
        hi = np.iinfo(dt).max
        want = np.clip(np.rint(expected), 0, hi)
        near_tie = np.abs(np.abs(expected - np.floor(expected)) - 0.5) < 1e-3
        diff = np.abs(got.astype(np.float64) - want)
        bad = (diff > 0) & ~(near_tie & (diff <= 1))
        assert not bad.any(), "%d of %d values differ, first at %s: %s vs %s" % (
            bad.sum(), bad.size, np.argwhere(bad)[0], got[bad][0], want[bad][0])
    else:
        tol = 1e-5 * terms + 1e-30
        bad = np.abs(got - expected) > tol
        assert not bad.any(), "%d of %d values off, worst %g" % (
            bad.sum(), bad.size, np.abs(got - expected).max())


def random_image(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "u":
        return rng.integers(0, np.iinfo(dt).max, size=shape, endpoint=True, dtype=dt)
    return (rng.random(shape) * 2 - 0.5).astype(dt)


# A 5-wide, 3-high filter of rank 3 (no separable shortcut) whose sum is 1.
W53 = np.array([[0.05, -0.1, 0.2, 0.1, 0.03],
                [0.12, 0.25, -0.15, 0.2, 0.04],
                [-0.02, 0.08, 0.1, -0.05, 0.15]], dtype=np.float32)
W53 /= W53.sum()

# Weights of scipy.ndimage's tests: 5 x 3, and even on both axes.
W = np.array([[0.3, -0.2, 0.1, 0.05, 0.2], [0.1, 0.4, -0.3, 0.2, 0.1],
              [0.05, 0.1, 0.2, -0.1, 0.3]])
E = np.array([[0.2, 0.1, 0.3, 0.1], [0.1, -0.2, 0.4, 0.2]])        # even on both axes


@pytest.fixture(scope="session")
def ctx():
    c = oclconv.Context()
    yield c
    c.close()
