"""The native layer: Context.apply on every type, channel count and border,
strided views, out=, errors, threads."""
import pickle
import threading
import time

import numpy as np
import pytest

import oclconv
from conftest import W53, assert_matches, random_image, reference

# Every input type, 1-4 channels and every border, each case once: every
# distinct (type, channels, border) is a program PoCL compiles.
CASES = [  # dtype in, dtype out, channels, border, border_value, scale, delta
    ("uint8", "uint8", 1, "clamp", 0, 1, 0),
    ("uint8", "uint8", 3, "reflect", 0, 1, 0),
    ("uint8", "uint8", 4, "wrap", 0, 1, 0),
    ("uint8", "float32", 2, "normalize", 0, 1 / 255, 0),
    ("uint16", "uint16", 2, "reflect101", 0, 1, 0),
    ("uint16", "uint16", 1, "constant", 40000, 1.5, 7),
    ("float32", "float32", 4, "zero", 0, 1, 0),
    ("float32", "float32", 3, "normalize", 0, 1, 0),
    ("float32", "uint8", 1, "wrap", 0, 255, 0.5),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "%s-%s-%dch-%s" % c[:4])
def test_against_reference(ctx, case):
    tin, tout, ch, border, value, scale, delta = case
    img = random_image((23, 37, ch) if ch > 1 else (23, 37), tin, seed=ch)
    f = oclconv.Filter(W53)
    out = ctx.apply(img, f, border=border, border_value=value, scale=scale, delta=delta,
                    dtype=tout)
    assert out.shape == img.shape
    assert_matches(out, *reference(img, f.weights, border, value, scale, delta), tout)


def test_filter_larger_than_image(ctx):
    img = random_image((3, 4, 3), "uint8", seed=5)
    f = oclconv.Filter.gaussian(2.0, radius=(5, 4))     # 11 x 9 taps on 4 x 3 pixels
    out = ctx.apply(img, f, border="reflect")       # reflections repeat
    assert_matches(out, *reference(img, f.weights, "reflect"), "uint8")


@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
def test_disc_by_runs(dtype):
    y, x = np.mgrid[-15:16, -15:16]                 # a 31x31 disc: runs on CPUs and GPUs
    disc = (x * x + y * y) <= 15 * 16
    f = oclconv.Filter(disc / np.count_nonzero(disc))
    img = random_image((41, 53, 3), dtype, seed=9)
    with oclconv.Context() as c:
        c.set_calibration("off")                    # AUTO's rules: the runs for a disc
        out = c.apply(img, f, border="constant", border_value=100)
        assert c.last_method == "runs"
        assert_matches(out, *reference(img, f.weights, "constant", 100), dtype)
        flt = img.astype(np.float32)                # float images to float results too
        out = c.apply(flt, f, border="constant", border_value=100, method="runs")
        assert_matches(out, *reference(flt, f.weights, "constant", 100), "float32")
        with pytest.raises(oclconv.Unsupported, match="8- and 16-bit"):
            c.apply(flt, f, method="runs", dtype=np.uint8)


def test_builtin_filters_and_last_method(ctx):
    img = random_image((23, 37), "uint8", seed=1)
    f = oclconv.Filter.sobel_x()
    out = ctx.apply(img, f, dtype=np.float32, delta=0.25)
    assert_matches(out, *reference(img, f.weights, delta=0.25), "float32")
    assert ctx.last_method in oclconv.METHODS[1:]
    assert np.array_equal(oclconv.Filter.sobel_y().weights, f.weights.T)
    assert np.array_equal(oclconv.Filter.laplacian().weights,
                          [[0, 1, 0], [1, -4, 1], [0, 1, 0]])
    f = oclconv.Filter.box(2, 1)
    assert f.shape == (3, 5) and np.allclose(f.weights, 1 / 15)
    assert f.radius == (1, 2)
    assert np.allclose(oclconv.Filter.sharpen(0.5).weights.sum(), 1)
    assert np.allclose(oclconv.Filter.emboss().weights.sum(), 1)


def test_filters_travel_between_processes():
    # Rebuilt from how they were made: the very same weights.
    for f in (oclconv.Filter(W53), oclconv.Filter.separable([1, 2, 1], [0.25, 0.5, 0.25]),
              oclconv.Filter.gaussian((1.0, 2.0)), oclconv.Filter.box(2), oclconv.Filter.sobel_x(),
              oclconv.Filter.sharpen(0.3)):
        g = pickle.loads(pickle.dumps(f, protocol=5))
        assert type(g) is oclconv.Filter and np.array_equal(g.weights, f.weights)
    # Weights off a float's alignment, as unpickling from a stream may leave them.
    raw = np.zeros(15 * 4 + 1, np.uint8)
    odd = np.ndarray(15, np.float32, buffer=raw, offset=1)
    odd[:] = W53.ravel()
    assert odd.ctypes.data % 4 != 0
    f = oclconv.Filter._make("filter_2d", odd, 5, 3)
    g = oclconv.Filter._make("filter_separable", odd[:5], odd[5:8])
    assert np.array_equal(f.weights, W53.astype(np.float64))
    assert np.array_equal(g.weights, np.outer(odd[5:8].astype(np.float64), odd[:5]))


# ---- strides: views run as they lie or through one packed copy -----------------
def _check(ctx, src, out=None, border="reflect"):
    f = oclconv.Filter(W53)
    res = ctx.apply(src, f, border=border, out=out)
    want = reference(np.ascontiguousarray(src), f.weights, border)
    assert_matches(res, *want, src.dtype)
    return res


@pytest.mark.parametrize("view", ["crop", "column_step", "channel_subset", "flipped",
                                  "fortran"])
def test_strided_views(ctx, view):
    base = random_image((31, 45, 4), "uint8", seed=2)
    src = {"crop": lambda: np.ascontiguousarray(base[..., :3])[3:26, 5:40],
           "column_step": lambda: base[:, ::2, :3],
           "channel_subset": lambda: base[..., :3],
           "flipped": lambda: base[::-1, ::-1, :3],
           "fortran": lambda: np.asfortranarray(base[..., :3])}[view]()
    _check(ctx, src)


def test_unaligned_data(ctx):
    raw = np.zeros(23 * 35 * 2 * 2 + 1, np.uint8)
    src = np.ndarray((23, 35, 2), np.uint16, buffer=raw, offset=1)   # one byte off
    src[...] = random_image((23, 35, 2), "uint16", seed=3)
    _check(ctx, src, border="reflect101")


def test_row_strided_view_is_not_copied(ctx):
    # A crop of full pixels is the library's own row stride: the result is
    # the same as from a packed copy.
    base = random_image((31, 45, 3), "uint8", seed=4)
    crop = base[2:29, 3:40]
    assert not crop.flags.c_contiguous
    assert np.array_equal(_check(ctx, crop), _check(ctx, crop.copy()))


def test_out_views_and_in_place(ctx):
    src = random_image((23, 37, 3), "uint8", seed=6)
    f = oclconv.Filter(W53)
    want = ctx.apply(src, f, border="reflect")
    big = np.zeros((30, 50, 4), np.uint8)
    out = big[2:25, 5:42, :3]                     # scattered back through a packed copy
    assert ctx.apply(src, f, border="reflect", out=out) is out
    assert np.array_equal(out, want)
    assert not big[..., 3].any() and not big[:2].any() and not big[25:].any()
    rowview = np.zeros((23, 60, 3), np.uint8)[:, 10:47]
    assert np.array_equal(ctx.apply(src, f, border="reflect", out=rowview), want)
    same = src.copy()                              # in place
    ctx.apply(same, f, border="reflect", out=same)
    assert np.array_equal(same, want)
    # The output overlaps the input one row down: read from a copy first.
    buf = np.zeros((24, 37, 3), np.uint8)
    buf[:23] = src
    ctx.apply(buf[:23], f, border="reflect", out=buf[1:])
    assert np.array_equal(buf[1:], want)
    # Any buffer-protocol object, not only numpy arrays.
    mv = memoryview(bytearray(src.tobytes())).cast("B", src.shape)
    assert np.array_equal(ctx.apply(mv, f, border="reflect"), want)


# ---- bad input: the right exception, a clear message, a live interpreter ---------
def test_bad_images(ctx):
    f = oclconv.Filter(W53)
    good = np.zeros((8, 9), np.uint8)
    for bad, exc, words in [
            (np.zeros((8, 9)), TypeError, "float64"),
            (np.zeros((8, 9), np.int32), TypeError, "int32"),
            (np.zeros((8, 9), bool), TypeError, "bool"),
            (np.zeros((2, 8, 9, 3), np.uint8), ValueError, "dimensions"),
            (np.zeros(9, np.uint8), ValueError, "dimensions"),
            (np.zeros((0, 9), np.uint8), ValueError, "empty"),
            (np.zeros((8, 9, 5), np.uint8), ValueError, "channels"),
            ([[1, 2], [3, 4]], TypeError, "int64")]:
        with pytest.raises(exc, match=words):
            ctx.apply(bad, f)
    with pytest.raises(ValueError, match="does not match"):
        ctx.apply(good, f, out=np.zeros((8, 10), np.uint8))
    with pytest.raises(ValueError, match="does not match"):
        ctx.apply(good, f, out=np.zeros((8, 9, 2), np.uint8))
    with pytest.raises(TypeError, match="float64"):
        ctx.apply(good, f, out=np.zeros((8, 9)))
    with pytest.raises(TypeError, match="disagrees"):
        ctx.apply(good, f, out=np.zeros((8, 9), np.uint8), dtype=np.float32)
    readonly = np.zeros((8, 9), np.uint8)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ctx.apply(good, f, out=readonly)
    with pytest.raises(TypeError):
        ctx.apply(good, np.ones((3, 3)))
    untouched = np.full((8, 9), 7, np.uint8)
    with pytest.raises(oclconv.InvalidArgument, match="border"):
        ctx.apply(good, f, border="mirror", out=untouched)
    with pytest.raises(ValueError, match="method"):
        ctx.apply(good, f, method="winograd", out=untouched)
    assert (untouched == 7).all()


def test_statuses_are_builtins(ctx):
    assert issubclass(oclconv.InvalidArgument, ValueError)
    assert issubclass(oclconv.OutOfMemory, MemoryError)
    assert issubclass(oclconv.NoDevice, RuntimeError)
    assert issubclass(oclconv.Unsupported, NotImplementedError)
    assert all(issubclass(c, oclconv.Error) for c in
               (oclconv.InvalidArgument, oclconv.OutOfMemory, oclconv.NoDevice,
                oclconv.Unsupported, oclconv.BuildError, oclconv.OpenCLError))
    with pytest.raises(oclconv.NoDevice, match="the devices are"):
        oclconv.Context("no-such-device-anywhere")
    with pytest.raises(oclconv.InvalidArgument, match="sigma"):
        oclconv.Filter.gaussian(float("nan"))
    with pytest.raises(oclconv.InvalidArgument, match="odd"):
        oclconv.Filter(np.ones((2, 3)))
    with pytest.raises(oclconv.InvalidArgument, match="finite"):
        oclconv.Filter([[1.0, np.inf, 1.0]])
    img = np.zeros((8, 9), np.uint8)
    with pytest.raises(oclconv.InvalidArgument, match="NORMALIZE|normali"):
        ctx.apply(img, oclconv.Filter.laplacian(), border="normalize")
    with pytest.raises(oclconv.Unsupported):
        ctx.apply(img, oclconv.Filter(W53), method="box")
    assert ctx.apply(img, oclconv.Filter(W53)).shape == (8, 9)   # still usable


def test_closed_context():
    c = oclconv.Context()
    assert "<oclconv.Context on" in repr(c)
    with c:
        pass
    assert c.closed
    img = np.zeros((8, 9), np.uint8)
    for call in (lambda: c.apply(img, oclconv.Filter.box(1)), lambda: c.device_name,
                 lambda: c.last_method):
        with pytest.raises(ValueError, match="closed"):
            call()
    c.close()   # twice is fine


def test_calibration(tmp_path):
    """AUTO measures a class once into the folder, later contexts take it from there;
    the test run's default (OCLCONV_CALIBRATE=off) keeps to the rules."""
    img = random_image((40, 50, 3), "uint8", seed=9)
    f = oclconv.Filter.gaussian(1.0)
    with oclconv.Context() as c:
        c.apply(img, f)
        assert c.last_choice == "rule"
        c.apply(img, f, method="buffer")
        assert c.last_choice == "caller"
        c.set_calibration("on", str(tmp_path))
        measured = c.apply(img, f)
        assert c.last_choice == "measured"
        assert_matches(measured, *reference(img, f.weights), "uint8")
        with pytest.raises(ValueError, match="not one of default, on, off"):
            c.set_calibration("sometimes")
    assert len(list(tmp_path.iterdir())) == 1
    with oclconv.Context() as c:
        c.set_calibration("stored", str(tmp_path))
        c.apply(img, f)
        assert c.last_choice == "measured" and c.programs_built == 1


def test_devices_and_default_context():
    devs = oclconv.devices()
    assert devs and devs[0].startswith("0: ")
    seen = []
    t = threading.Thread(target=lambda: seen.append(oclconv.default_context()))
    t.start()
    t.join()
    assert oclconv.default_context() is oclconv.default_context()
    assert seen[0] is not oclconv.default_context()     # one context per thread


# ---- threads --------------------------------------------------------------------
def test_context_shared_by_8_threads(ctx):
    f = oclconv.Filter(W53)
    images = [random_image((23, 37, 3), "uint8", seed=10 + i) for i in range(8)]
    want = [ctx.apply(im, f, border="reflect") for im in images]
    got, errors = {}, []

    def work(i):
        try:
            for k in range(12):
                got[i, k] = ctx.apply(images[(i + k) % 8], f, border="reflect")
        except BaseException as e:   # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(np.array_equal(got[i, k], want[(i + k) % 8]) for i, k in got)
    assert len(got) == 96


def test_gil_released_during_apply(ctx):
    img = random_image((2048, 2048, 3), "uint8", seed=7)   # long enough to outlast 5 ms on 2 CPU cores
    f = oclconv.Filter(W53)
    ctx.apply(img, f, border="reflect")     # compiled, so the timed call only filters
    ticks, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)
    t = threading.Thread(target=tick)
    t.start()
    time.sleep(0.01)
    start = time.perf_counter()
    ctx.apply(img, f, border="reflect")
    end = time.perf_counter()
    stop.set()
    t.join()
    inside = [x for x in ticks if start + 0.2 * (end - start) < x < end - 0.2 * (end - start)]
    assert end - start > 0.005
    assert inside, "no other thread ran during a %.0f ms call" % (1e3 * (end - start))


@pytest.mark.parametrize("border", ["clamp", "reflect", "wrap", "normalize"])
def test_region_is_the_whole_images_rectangle(ctx, border):
    whole = random_image((29, 41, 3), "uint8", seed=11)
    f = oclconv.Filter(W53)
    want = ctx.apply(whole, f, border=border, method="buffer")  # one path: equal to the bit
    ry, rx = f.radius
    for (y, x, h, w) in [(0, 0, 6, 9), (23, 32, 6, 9), (10, 15, 7, 8), (14, 20, 1, 1)]:
        # A tile with its halo, cut to the image; the whole rows or columns
        # where WRAP crosses an edge.
        y0, y1, x0, x1 = max(y - ry, 0), min(y + h + ry, 29), max(x - rx, 0), min(x + w + rx, 41)
        if border == "wrap":
            y0, y1 = (0, 29) if y - ry < 0 or y + h + ry > 29 else (y0, y1)
            x0, x1 = (0, 41) if x - rx < 0 or x + w + rx > 41 else (x0, x1)
        tile = whole[y0:y1, x0:x1]
        got = ctx.apply_region(tile, f, (29, 41), image_at=(y0, x0), out_at=(y, x),
                               out_shape=(h, w), border=border, method="buffer")
        assert got.shape == (h, w, 3)
        np.testing.assert_array_equal(got, want[y:y + h, x:x + w])


def test_region_refusals(ctx):
    whole = random_image((20, 30), "float32", seed=12)
    f = oclconv.Filter(W53)
    with pytest.raises(ValueError, match="lacks pixels the destination's windows read"):
        ctx.apply_region(whole[:, 10:], f, (20, 30), image_at=(0, 10), out_at=(5, 10),
                         out_shape=(4, 4))
    with pytest.raises(ValueError, match="passes the whole image"):
        ctx.apply_region(whole, f, (20, 30), out_at=(18, 0), out_shape=(4, 4))


def test_batch_of_mixed_images(ctx):
    f = oclconv.Filter.gaussian(1.2)
    images = [random_image((5 + 7 * i, 3 + 11 * i) + ((i % 4 + 1,) if i % 2 else ()),
                           ("uint8", "uint16", "float32")[i % 3], seed=20 + i) for i in range(7)]
    images[3] = images[3][::2, ::-1]          # a strided view goes through a packed copy
    outs = ctx.apply_batch(images, f, border="reflect101")
    assert len(outs) == 7
    for img, out in zip(images, outs):
        assert out.shape == img.shape and out.dtype == img.dtype
        np.testing.assert_array_equal(out, ctx.apply(img, f, border="reflect101"))
    assert ctx.apply_batch([], f) == []


def test_batch_of_one_array(ctx):
    """The rows of an N x H x W x C array: stacked, results views of one array."""
    f = oclconv.Filter.gaussian(0.9)
    block = random_image((9, 13, 11, 4), "uint8", seed=40)
    outs = ctx.apply_batch(block, f, border="wrap")
    assert len(outs) == 9 and all(o.base is outs[0].base for o in outs)
    for img, out in zip(block, outs):
        np.testing.assert_array_equal(out, ctx.apply(img, f, border="wrap"))


def test_batch_refusals(ctx):
    f = oclconv.Filter.box(1)
    good = random_image((8, 8), "uint8", seed=30)
    with pytest.raises(TypeError, match="image 1"):
        ctx.apply_batch([good, good.astype(np.float64)], f)
    with pytest.raises(ValueError, match="image 2: 5 dimensions|image 2"):
        ctx.apply_batch([good, good, np.zeros((2, 2, 2, 2, 2), np.uint8)], f)
