"""oclconv.dask: a chunked result equals the whole-image result."""
import numpy as np
import pytest

import dask.array as da
import dask

import oclconv                                             # noqa: E402
import oclconv.dask as od                                  # noqa: E402
import oclconv.ndimage as nd                               # noqa: E402
from conftest import W, W53, random_image                  # noqa: E402


def pinned_whole(img, f, **kw):
    """The whole image under AUTO, and the method AUTO chose, to pin it."""
    out = oclconv.apply(img, f, **kw)
    return out, oclconv.default_context().last_method


# Every border (WRAP through Dask's periodic halo, NORMALIZE at the true
# edges), each on a type and channel count the native tests compile too.
BORDER_CASES = [("uint8", 1, "clamp"), ("uint8", 3, "reflect"), ("uint8", 4, "wrap"),
                ("uint16", 2, "reflect101"), ("uint16", 1, "constant"),
                ("float32", 4, "zero"), ("float32", 3, "normalize")]


@pytest.mark.parametrize("dtype,channels,border", BORDER_CASES,
                         ids=["-".join(map(str, c)) for c in BORDER_CASES])
def test_chunked_equals_whole(dtype, channels, border):
    img = random_image((41, 53, channels), dtype, seed=30 + channels)
    f = oclconv.Filter(W53)
    want, method = pinned_whole(img, f, border=border, border_value=1000)
    x = da.from_array(img, chunks=(12, 15, 1))          # split along channels too
    # Blocks that are views of the image (their halos are views too) and
    # blocks of their own (their halos are copied together).
    for blocks in (x, x.map_blocks(np.copy)):
        y = od.apply(blocks, f, border=border, border_value=1000, method=method)
        assert y.dtype == img.dtype and y.shape == img.shape
        got = y.compute()
        if np.dtype(dtype).kind == "u":
            assert np.array_equal(got, want)
        else:
            assert np.abs(got - want).max() <= 1e-5 * np.abs(img).max() * np.abs(W53).sum()


@pytest.mark.parametrize("border", oclconv.BORDERS)
def test_blocks_made_as_regions(border):
    """Each block is made on its own, as a region whose halo is read from
    the blocks around it (views of one array here), under every border:
    together they equal the whole image."""
    img = random_image((130, 150, 3), "uint8", seed=45)
    f = oclconv.Filter(W53)
    want, method = pinned_whole(img, f, border=border, border_value=99)
    y = od.apply(da.from_array(img, chunks=(48, 64, 3)), f, border=border, border_value=99,
                 method=method)
    assert np.array_equal(y.compute(), want)
    inner, narrow = y.blocks[1, 1].compute(), y.blocks[1, 2].compute()
    assert inner.flags.c_contiguous and inner.base is None and inner.shape == (48, 64, 3)
    assert narrow.flags.c_contiguous and narrow.shape == (48, 22, 3)


def test_uneven_chunks_and_chunks_smaller_than_depth():
    img = random_image((41, 53, 3), "uint8", seed=40)
    f = oclconv.Filter(W53)
    want, method = pinned_whole(img, f, border="reflect")
    x = da.from_array(img, chunks=((10, 3, 20, 8), (17, 1, 35), 3))
    assert np.array_equal(od.apply(x, f, border="reflect", method=method).compute(), want)
    # A Gaussian of radius 6 on chunks of 4 x 3 pixels.
    want = nd.gaussian_filter(img, (1.5, 1.5, 0))
    method = oclconv.default_context().last_method
    x = da.from_array(img, chunks=(4, 3, 3))
    y = od.gaussian_filter(x, (1.5, 1.5, 0), method=method)
    assert y.dtype == np.uint8 and np.array_equal(y.compute(), want)


@pytest.mark.parametrize("border", ["wrap", "normalize", "constant"])
def test_halo_across_several_chunks(border):
    """A 7x9 filter on chunks of 2 to 5 pixels: each halo comes from up to
    three chunks a side, going on at the far side under WRAP; and a chunk
    of no rows."""
    img = random_image((23, 29, 2), "uint16", seed=60)
    f = oclconv.Filter(np.arange(1.0, 64.0).reshape(7, 9) / 2016)
    want, method = pinned_whole(img, f, border=border, border_value=7)
    x = da.from_array(img, chunks=((2, 5, 0, 3, 4, 9), (5, 2, 3, 4, 15), 2))
    y = od.apply(x, f, border=border, border_value=7, method=method)
    assert np.array_equal(y.compute(), want)


def test_names_match_ndimage():
    gray = random_image((30, 37), "float32", seed=41)
    x = da.from_array(gray, chunks=(9, 11))
    calls = [("correlate", (W,), {"origin": (1, -2)}), ("convolve", (W,), {"origin": (0, 1)}),
             ("gaussian_filter", (1.5,), {"radius": 2}),
             ("uniform_filter", ((3, 4),), {"origin": (1, 0)}),
             ("sobel", (), {}), ("prewitt", (), {"axis": 0}), ("laplace", (), {})]
    for name, args, kw in calls:
        want = getattr(nd, name)(gray, *args, mode="nearest", **kw)
        y = getattr(od, name)(x, *args, mode="nearest", **kw)
        assert y.dtype == np.float32
        assert np.abs(y.compute() - want).max() <= 1e-5 * 4, name
    # The output type, declared before anything runs.
    y = od.sobel(da.from_array(random_image((30, 37), "uint8"), chunks=9), output=np.float32)
    assert y.dtype == np.float32 and y._meta.dtype == np.float32


@pytest.mark.parametrize("border", ["reflect", "wrap", "normalize"])
def test_tasks_write_into_out(border):
    """out= (output= in SciPy's names): each task writes its block into the
    caller's array, uneven chunks and a chunk of no rows too, and the Dask
    array's blocks are views of it."""
    img = random_image((41, 53, 3), "uint8", seed=70)
    f = oclconv.Filter(W53)
    want, method = pinned_whole(img, f, border=border, border_value=5)
    out = np.full_like(img, 17)
    x = da.from_array(img, chunks=((10, 0, 3, 20, 8), (17, 1, 35), 3))
    y = od.apply(x, f, border=border, border_value=5, method=method, out=out)
    kept = y.persist(scheduler="threads")
    assert np.array_equal(out, want)
    block = kept.blocks[3, 2].compute(scheduler="threads")
    assert block.shape == (20, 35, 3) and np.shares_memory(block, out)
    # SciPy's names: an output array of another dtype than the image's.
    gray = random_image((30, 37), "uint8", seed=71)
    want = nd.sobel(gray, output=np.float32)
    got = np.zeros((30, 37), np.float32)
    od.sobel(da.from_array(gray, chunks=9), output=got).persist(scheduler="threads")
    assert np.abs(got - want).max() <= 1e-5 * 4 * 255


def test_out_is_checked_before_anything_runs():
    x = da.zeros((20, 24, 2), dtype=np.uint8, chunks=10)
    f = oclconv.Filter.box(1)
    with pytest.raises(ValueError, match="shape"):
        od.apply(x, f, out=np.zeros((20, 24, 3), np.uint8))
    with pytest.raises(TypeError, match="float64"):
        od.apply(x, f, out=np.zeros((20, 24, 2)))
    with pytest.raises(TypeError, match="dtype"):
        od.apply(x, f, dtype=np.float32, out=np.zeros((20, 24, 2), np.uint16))
    with pytest.raises(TypeError, match="NumPy array"):
        od.apply(x, f, out=[[0] * 24] * 20)
    ro = np.zeros((20, 24, 2), np.uint8)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        od.uniform_filter(x, (3, 3, 1), output=ro)
    # In place: the image's own array, or a view of it, would be overwritten
    # while its neighbours' halos are read; refused, the image unchanged.
    img = random_image((20, 24, 2), "uint8", seed=72)
    keep = img.copy()
    for out in (img, img[:, ::-1]):
        with pytest.raises(ValueError, match="shares memory"):
            od.apply(da.from_array(img, chunks=10), f, out=out)
    assert np.array_equal(img, keep)


def test_graph_of_200_images():
    f = oclconv.Filter(W53)
    images = [random_image((16, 20), "uint8", seed=100 + i) for i in range(200)]
    lazy = [od.apply(da.from_array(im, chunks=(8, 20)), f) for im in images]
    results = dask.compute(*lazy, scheduler="threads")
    assert all(np.array_equal(r, oclconv.apply(im, f)) for r, im in zip(results, images))


def test_bad_input_is_refused_before_anything_runs():
    x = da.zeros((20, 20), dtype=np.float64, chunks=10)
    with pytest.raises(TypeError, match="float64"):
        od.apply(x, oclconv.Filter.box(1))
    with pytest.raises(ValueError, match="border"):
        od.apply(x.astype(np.uint8), oclconv.Filter.box(1), border="edge")
    with pytest.raises(NotImplementedError, match=r"sigma=\(s, s, 0\)"):
        od.gaussian_filter(da.zeros((20, 20, 3), np.uint8, chunks=10), 2.0)
    with pytest.raises(TypeError, match="Filter"):
        od.apply(x.astype(np.uint8), np.ones((3, 3)))


@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")
def test_local_cluster_of_two_processes():
    import distributed
    img = random_image((64, 48, 3), "uint8", seed=50)
    f = oclconv.Filter(W53)
    want, method = pinned_whole(img, f, border="reflect")
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        y = od.apply(da.from_array(img, chunks=(16, 24, 3)), f, border="reflect",
                     method=method)
        got = client.compute(y).result(timeout=120)
        assert len(client.scheduler_info()["workers"]) == 2
        # A worker's tasks would write a copy of out=: refused, not lost.
        out = np.zeros_like(img)
        y = od.apply(da.from_array(img, chunks=(16, 24, 3)), f, out=out)
        with pytest.raises(RuntimeError, match="threaded"):
            client.compute(y).result(timeout=120)
    assert np.array_equal(got, want) and not out.any()
