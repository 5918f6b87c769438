/*
 * The NPP side of the bench on NVIDIA devices: NVIDIA's own image filters
 * (NPP, from the CUDA toolkit) on the same cases, images and border
 * (replicate), its kernel time from CUDA events on the NPP calls alone, the
 * images on the device, and its output copied back so that the bench checks
 * it against the reference like any cell.  Built only where bench.mk finds
 * NPP's headers and libraries (then OCLCONV_BENCH_NPP is defined).
 *
 * The function a case takes: Gaussians nppiFilterGaussAdvancedBorder (the
 * case's own taps; nppiFilterGaussBorder has fixed ones), 2-D filters and
 * discs nppiFilterBorder32f_8u / nppiFilterBorder_32f, separable filters a
 * row then a column pass (nppiFilterRowBorder32f_8u and
 * nppiFilterColumnBorder32f_8u, or their 32f forms; 8-bit images round
 * between the passes), boxes nppiFilterBoxBorder.  NPP takes a
 * convolution's taps in reverse order; the bench's cases are correlations.
 */
#include "bench.h"

#include <cuda_runtime_api.h>
#include <npp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int state; /* 0 not tried, 1 ready, -1 failed */
    NppStreamContext sc;
    cudaEvent_t start, stop;
    void *src, *dst, *tmp;
    size_t cap;
    Npp32f *taps; /* the 2-D taps, then the row's, then the column's */
    size_t taps_cap;
    char why[200];
} P;

static int cuda_failed(cudaError_t e, const char *what)
{
    snprintf(P.why, sizeof P.why, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

static int setup(void)
{
    int dev = 0;
    cudaError_t e = cudaSetDevice(dev);
    if (e != cudaSuccess)
        return cuda_failed(e, "cudaSetDevice");
    NppStreamContext *sc = &P.sc;
    memset(sc, 0, sizeof *sc);
    if ((e = cudaStreamCreate(&sc->hStream)) != cudaSuccess ||
        (e = cudaEventCreate(&P.start)) != cudaSuccess ||
        (e = cudaEventCreate(&P.stop)) != cudaSuccess)
        return cuda_failed(e, "a CUDA stream or event");
    struct cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess)
        return cuda_failed(e, "cudaGetDeviceProperties");
    sc->nCudaDeviceId = dev;
    sc->nMultiProcessorCount = prop.multiProcessorCount;
    sc->nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    sc->nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    sc->nSharedMemPerBlock = prop.sharedMemPerBlock;
    sc->nCudaDevAttrComputeCapabilityMajor = prop.major;
    sc->nCudaDevAttrComputeCapabilityMinor = prop.minor;
    cudaStreamGetFlags(sc->hStream, &sc->nStreamFlags);
    return 0;
}

/* Device room for images of `bytes` and `taps` floats. */
static int reserve(size_t bytes, size_t taps)
{
    cudaError_t e = cudaSuccess;
    if (bytes > P.cap) {
        cudaFree(P.src);
        cudaFree(P.dst);
        cudaFree(P.tmp);
        P.src = P.dst = P.tmp = NULL;
        P.cap = 0;
        if ((e = cudaMalloc(&P.src, bytes)) != cudaSuccess ||
            (e = cudaMalloc(&P.dst, bytes)) != cudaSuccess ||
            (e = cudaMalloc(&P.tmp, bytes)) != cudaSuccess)
            return cuda_failed(e, "cudaMalloc");
        P.cap = bytes;
    }
    if (taps > P.taps_cap) {
        cudaFree(P.taps);
        P.taps = NULL;
        P.taps_cap = 0;
        if ((e = cudaMalloc((void **)&P.taps, taps * sizeof *P.taps)) != cudaSuccess)
            return cuda_failed(e, "cudaMalloc");
        P.taps_cap = taps;
    }
    return 0;
}

/* The case's taps for NPP: 2-D (reversed), row and column (reversed; a
 * Gaussian's from its filter's middle row, normalised). */
static void case_taps(const case_data *cd, float *t2d, float *rtaps, float *ctaps)
{
    int n = 2 * cd->c.r + 1;
    const double *w = oclconv_filter_weights(cd->filter);
    for (int i = 0; i < n * n; i++)
        t2d[i] = (float)w[n * n - 1 - i];
    double mid = 0;
    for (int i = 0; i < n; i++)
        mid += w[cd->c.r * n + i];
    for (int i = 0; i < n; i++) {
        rtaps[i] = cd->row ? cd->row[n - 1 - i] : (float)(w[cd->c.r * n + n - 1 - i] / mid);
        ctaps[i] = cd->col ? cd->col[n - 1 - i] : rtaps[i];
    }
}

/* One case on the device's images: the NPP calls alone. */
static NppStatus filter(const case_data *cd, int f32, int cn, int width, int height)
{
    int n = 2 * cd->c.r + 1, r = cd->c.r, step = width * cn * (f32 ? 4 : 1);
    NppiSize size = {width, height}, mask = {n, n};
    NppiPoint origin = {0, 0}, anchor = {r, r};
    const Npp32f *t2d = P.taps, *rtaps = P.taps + n * n, *ctaps = rtaps + n;
    NppiBorderType b = NPP_BORDER_REPLICATE;
    NppStreamContext sc = P.sc;
    const Npp8u *s8 = P.src;
    Npp8u *d8 = P.dst, *m8 = P.tmp;
    const Npp32f *s32 = P.src;
    Npp32f *d32 = P.dst, *m32 = P.tmp;
    NppStatus st;
    switch (cd->c.k) {
    case GAUSS:
        return f32       ? nppiFilterGaussAdvancedBorder_32f_C1R_Ctx(s32, step, size, origin, d32,
                                                                     step, size, n, rtaps, b, sc)
               : cn == 4 ? nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(s8, step, size, origin, d8,
                                                                    step, size, n, rtaps, b, sc)
                         : nppiFilterGaussAdvancedBorder_8u_C1R_Ctx(s8, step, size, origin, d8,
                                                                    step, size, n, rtaps, b, sc);
    case RAND2D:
    case DISC:
        return f32 ? nppiFilterBorder_32f_C1R_Ctx(s32, step, size, origin, d32, step, size, t2d,
                                                  mask, anchor, b, sc)
               : cn == 4 ? nppiFilterBorder32f_8u_C4R_Ctx(s8, step, size, origin, d8, step, size,
                                                          t2d, mask, anchor, b, sc)
                         : nppiFilterBorder32f_8u_C1R_Ctx(s8, step, size, origin, d8, step, size,
                                                          t2d, mask, anchor, b, sc);
    case SEP:
        if (f32) {
            st = nppiFilterRowBorder_32f_C1R_Ctx(s32, step, size, origin, m32, step, size, rtaps, n,
                                                 r, b, sc);
            return st < 0 ? st
                          : nppiFilterColumnBorder_32f_C1R_Ctx(m32, step, size, origin, d32, step,
                                                               size, ctaps, n, r, b, sc);
        }
        st = cn == 4 ? nppiFilterRowBorder32f_8u_C4R_Ctx(s8, step, size, origin, m8, step, size,
                                                         rtaps, n, r, b, sc)
                     : nppiFilterRowBorder32f_8u_C1R_Ctx(s8, step, size, origin, m8, step, size,
                                                         rtaps, n, r, b, sc);
        if (st < 0)
            return st;
        return cn == 4 ? nppiFilterColumnBorder32f_8u_C4R_Ctx(m8, step, size, origin, d8, step,
                                                              size, ctaps, n, r, b, sc)
                       : nppiFilterColumnBorder32f_8u_C1R_Ctx(m8, step, size, origin, d8, step,
                                                              size, ctaps, n, r, b, sc);
    case BOX:
        return f32 ? nppiFilterBoxBorder_32f_C1R_Ctx(s32, step, size, origin, d32, step, size,
                                                     mask, anchor, b, sc)
               : cn == 4 ? nppiFilterBoxBorder_8u_C4R_Ctx(s8, step, size, origin, d8, step, size,
                                                          mask, anchor, b, sc)
                         : nppiFilterBoxBorder_8u_C1R_Ctx(s8, step, size, origin, d8, step, size,
                                                          mask, anchor, b, sc);
    }
    return NPP_NOT_SUPPORTED_MODE_ERROR;
}

const char *npppeer_describe(void)
{
    static char text[160];
    const NppLibraryVersion *v = nppGetLibVersion();
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    snprintf(text, sizeof text, "NPP %d.%d.%d (CUDA runtime %d.%d), on CUDA device 0",
             v ? v->major : 0, v ? v->minor : 0, v ? v->build : 0, rt / 1000, rt % 1000 / 10);
    return text;
}

int run_npp(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info)
{
    const case_data *cd = r->cd;
    int n = 2 * cd->c.r + 1, f32 = src->type == OCLCONV_F32, cn = src->channels;
    memset(info, 0, sizeof *info);
    if (P.state == 0)
        P.state = setup() == 0 ? 1 : -1;
    if (P.state < 0 || (f32 ? cn != 1 : cn != 1 && cn != 4) || src->type == OCLCONV_U16 ||
        (src->stride && src->stride != image_bytes(src) / (size_t)src->height)) {
        snprintf(r->err, sizeof r->err, "NPP: %s",
                 P.state < 0 ? P.why : "the peer takes packed u8 gray, RGBA8 and f32 gray");
        return RUN_PEER_FAILED;
    }
    size_t bytes = image_bytes(src);
    float *host = malloc((size_t)(n * n + 2 * n) * sizeof *host);
    if (!host || reserve(bytes, (size_t)(n * n + 2 * n)) != 0) {
        free(host);
        snprintf(r->err, sizeof r->err, "NPP: %s", host ? P.why : "out of memory");
        return RUN_PEER_FAILED;
    }
    case_taps(cd, host, host + n * n, host + n * n + n);
    cudaStream_t s = P.sc.hStream;
    double t0 = now();
    cudaError_t e = cudaMemcpyAsync(P.taps, host, (size_t)(n * n + 2 * n) * sizeof *host,
                                    cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(P.src, src->data, bytes, cudaMemcpyHostToDevice, s);
    NppStatus st = NPP_SUCCESS;
    if (e == cudaSuccess) {
        cudaEventRecord(P.start, s);
        st = filter(cd, f32, cn, src->width, src->height);
        cudaEventRecord(P.stop, s);
    }
    if (e == cudaSuccess && st >= 0)
        e = cudaMemcpyAsync(dst->data, P.dst, bytes, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    info->e2e = now() - t0;
    free(host);
    float ms = 0;
    if (e == cudaSuccess && st >= 0 && cudaEventElapsedTime(&ms, P.start, P.stop) == cudaSuccess)
        info->kern = ms * 1e-3;
    if (st < 0) {
        snprintf(r->err, sizeof r->err, "NPP: the %s call returned status %d", cd->label,
                 (int)st);
        return RUN_PEER_FAILED;
    }
    if (e != cudaSuccess) {
        snprintf(r->err, sizeof r->err, "NPP: %s", cudaGetErrorString(e));
        return RUN_PEER_FAILED;
    }
    info->took = OCLCONV_METHOD_AUTO;
    return 0;
}
