"""oclconv.ndimage against scipy.ndimage in float64 on scikit-image's photos."""
import numpy as np
import pytest

import scipy.ndimage as scipy_ndimage
import skimage.data as skimage_data

import oclconv.ndimage as nd                               # noqa: E402
from conftest import E, W, assert_matches                  # noqa: E402


@pytest.fixture(scope="module")
def gray():
    return (skimage_data.camera()[180:236, 200:271] / 255).astype(np.float32)


@pytest.fixture(scope="module")
def rgb_u8():
    return skimage_data.astronaut()[60:108, 180:241]


def close_to_scipy(got, want, terms=1.0):
    """Float32 sums: within 1e-5 of the size of the terms (images in [0, 1])."""
    assert got.dtype == np.float32 and got.shape == want.shape
    err = np.abs(got.astype(np.float64) - want).max()
    assert err <= 1e-5 * terms, "off by %g" % err


@pytest.mark.parametrize("mode", ["reflect", "grid-mirror", "mirror", "nearest", "wrap",
                                  "grid-wrap", "constant", "grid-constant"])
def test_every_mode(gray, mode):
    want = scipy_ndimage.gaussian_filter(gray.astype(np.float64), 1.2, mode=mode, cval=0.7)
    close_to_scipy(nd.gaussian_filter(gray, 1.2, mode=mode, cval=0.7), want)


GRAY_CALLS = [  # shapes repeat where they can: each new one is a program to compile
    ("correlate", (W,), {"origin": (1, -2)}),
    ("convolve", (W,), {"origin": (0, 1)}), ("convolve", (E,), {}),
    ("correlate1d", ([0.1, 0.2, 0.4, 0.2, 0.1],), {"axis": 0}),
    ("convolve1d", ([0.1, 0.4, 0.3, 0.2],), {"axis": 0}),
    ("correlate1d", ([0.1, 0.4, 0.3, 0.2],), {"axis": -1, "origin": 1}),
    ("uniform_filter1d", (5,), {"axis": 1, "origin": -1}),
    ("gaussian_filter", ((0.0, 1.0),), {}),
    ("gaussian_filter1d", (1.0,), {"axis": 1}),
    ("gaussian_filter", ((1.0, 2.0),), {"truncate": 3.0}),
    ("gaussian_filter", (1.5,), {"radius": 2}),
    ("uniform_filter", ((3, 4),), {"origin": (1, 0)}),
    ("sobel", (), {}), ("prewitt", (), {"axis": 0}),
    ("laplace", (), {}),
]


@pytest.mark.parametrize("name,args,kw", GRAY_CALLS,
                         ids=["%s-%d" % (c[0], i) for i, c in enumerate(GRAY_CALLS)])
def test_functions_on_gray(gray, name, args, kw):
    want = getattr(scipy_ndimage, name)(gray.astype(np.float64), *args, mode="nearest", **kw)
    got = getattr(nd, name)(gray, *args, mode="nearest", **kw)
    close_to_scipy(got, want, terms=4.0)


RGB_CALLS = [
    ("gaussian_filter", ((1.5, 1.5, 0),), {}),
    ("uniform_filter", ((3, 5, 1),), {}),
    ("correlate", (W[:, :, None],), {}),
    ("gaussian_filter1d", (1.5,), {"axis": 1}),
]


@pytest.mark.parametrize("name,args,kw", RGB_CALLS,
                         ids=["%s-%d" % (c[0], i) for i, c in enumerate(RGB_CALLS)])
def test_channel_idioms(rgb_u8, name, args, kw):
    rgb = (rgb_u8 / 255).astype(np.float32)
    want = getattr(scipy_ndimage, name)(rgb.astype(np.float64), *args, **kw)
    close_to_scipy(getattr(nd, name)(rgb, *args, **kw), want, terms=2.0)


def test_integer_results_round_once(rgb_u8):
    # The documented difference: SciPy truncates after each pass; here the
    # float64 result is rounded half to even and saturated once.
    want = scipy_ndimage.gaussian_filter(rgb_u8.astype(np.float64), (1.5, 1.5, 0))
    assert_matches(nd.gaussian_filter(rgb_u8, (1.5, 1.5, 0)), want, None, np.uint8)
    g16 = (rgb_u8[..., 0].astype(np.uint16) * 257)
    want = scipy_ndimage.uniform_filter(g16.astype(np.float64), 3, mode="mirror")
    assert_matches(nd.uniform_filter(g16, 3, mode="mirror"), want[..., None], None, np.uint16)
    # Derivatives of 8-bit images into float32, into a given array.
    out = np.empty(rgb_u8.shape[:2], np.float32)
    assert nd.sobel(rgb_u8[..., 1], axis=1, output=out, mode="mirror") is out
    want = scipy_ndimage.sobel(rgb_u8[..., 1].astype(np.float64), axis=1, mode="mirror")
    assert np.abs(out - want).max() <= 1e-5 * 4 * 255
    got = nd.laplace(rgb_u8[..., 1], output=np.float32)
    want = scipy_ndimage.laplace(rgb_u8[..., 1].astype(np.float64))
    assert np.abs(got - want).max() <= 1e-5 * 8 * 255


def test_refusals(gray, rgb_u8):
    for call, words in [
            (lambda: nd.gaussian_filter(rgb_u8, 2.0), r"sigma=\(s, s, 0\)"),
            (lambda: nd.uniform_filter(rgb_u8, 3), r"size=\(k, k, 1\)"),
            (lambda: nd.correlate(rgb_u8, np.ones((3, 3, 3))), r"\(kh, kw, 1\)"),
            (lambda: nd.gaussian_filter1d(rgb_u8, 2.0), "axis=0 or axis=1"),
            (lambda: nd.gaussian_filter(gray, 2.0, order=1), "correlate1d"),
            (lambda: nd.gaussian_filter(gray, 2.0, mode=("reflect", "wrap")), "1-D filters"),
            (lambda: nd.sobel(rgb_u8, axis=0), "each channel"),
            (lambda: nd.laplace(rgb_u8), "each channel"),
            (lambda: nd.uniform_filter(np.zeros((4, 5, 6, 2), np.uint8), 3), "4-D"),
            (lambda: nd.uniform_filter(np.zeros((4, 5, 9), np.float32), (3, 3, 1)),
             "each 2-D slice")]:
        with pytest.raises(NotImplementedError, match=words):
            call()
    for call, exc, words in [
            (lambda: nd.gaussian_filter(gray, 1.0, mode="edge"), ValueError, "unknown mode"),
            (lambda: nd.gaussian_filter(gray, float("nan")), ValueError, "sigma"),
            (lambda: nd.gaussian_filter(gray, (1.0, 2.0, 3.0)), ValueError, "entries"),
            (lambda: nd.correlate(gray, W, origin=3), ValueError, "origin"),
            (lambda: nd.correlate(gray, W[None]), ValueError, "dimensions"),
            (lambda: nd.uniform_filter(gray.astype(np.float64), 3), TypeError, "float64"),
            (lambda: nd.uniform_filter(gray, 3, output=np.float64), TypeError, "float64"),
            (lambda: nd.uniform_filter(gray, 3, output=np.empty((3, 3), np.float32)),
             ValueError, "shape")]:
        with pytest.raises(exc, match=words):
            call()
