/*
 * The FFT path's transforms: VkFFT's OpenCL backend (Debian's libvkfft-dev,
 * header only), one plan a tile size, group of planes and device, kept in
 * the context.  A plan transforms a group of real T x T planes (a power of
 * two of them: an image's, or as many as fit GROUP_VALUES; or the planes
 * an image's last group has left) in place, in double: R2C forward, C2R
 * inverse, unnormalised.  VkFFT prints a build log where a
 * kernel of its own fails to compile; the library never prints, so its
 * printf goes, and the failure comes back as OCLCONV_E_BUILD.
 */
#include "internal.h"
#include "fft.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define VKFFT_BACKEND 3
#define printf(...) ((void)0)
#include <vkFFT.h>
#undef printf

struct oclconv__fft_plan {
    VkFFTApplication app;
    int tile, planes;
    double missed; /* > 0: the self-test's error, past its bound */
    cl_mem buffer;
    int borrowed; /* the buffer is another plan's (oclconv__fft_plans()) */
    uint64_t bytes;
    struct oclconv__fft_plan *next;
};

/* Values a group of planes holds at most, whatever the tile: 4 Mi (a 32
 * MiB buffer of doubles), so that few launches cover an image. */
#define GROUP_VALUES ((size_t)1 << 22)

/* A group's planes: a power of two of whole tiles' `per_tile` planes,
 * as many as the image needs, up to GROUP_VALUES values. */
static int group_planes(int tile, long long planes, int per_tile)
{
    long long most = (long long)(GROUP_VALUES / ((size_t)tile * (size_t)tile)), n = per_tile;
    while (n < planes && 2 * n <= most)
        n *= 2;
    return (int)n;
}

size_t oclconv__fft_plane_doubles(int tile)
{
    return (size_t)tile * (size_t)(tile + 2);
}

static void plan_free(struct oclconv__fft_plan *p)
{
    if (p->app.configuration.device)
        deleteVkFFT(&p->app);
    if (p->buffer && !p->borrowed)
        clReleaseMemObject(p->buffer);
    free(p);
}

void oclconv__fft_free(oclconv_context *ctx)
{
    oclconv__fft_spectra_free(ctx);
    while (ctx->fft_plans) {
        struct oclconv__fft_plan *next = ctx->fft_plans->next;
        plan_free(ctx->fft_plans);
        ctx->fft_plans = next;
    }
}

/* The bound of path_fft.c for one value of at most `largest` and a weight
 * of 1: a transform and its inverse move no value by more. */
double oclconv__fft_bound(int tile, double abs_sum, double largest)
{
    return 16.0 * log2((double)tile * tile) * 0x1p-53 * abs_sum * largest * tile;
}

/* The plan's self-test, once: a plane of values up to 65535 there and
 * back must come out within the bound; *missed = the error where not. */
static oclconv_status self_test(oclconv_context *ctx, struct oclconv__fft_plan *p, double *missed)
{
    size_t n = oclconv__fft_plane_doubles(p->tile);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), zero = 0;
    oclconv_status s =
        x && y ? OCLCONV_OK : oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for a self-test");
    uint32_t r = 2463534242u;
    for (size_t i = 0; s == OCLCONV_OK && i < n; i++) {
        r ^= r << 13, r ^= r >> 17, r ^= r << 5;
        x[i] = (double)(r % 65536);
    }
    cl_int err = CL_SUCCESS;
    if (s == OCLCONV_OK)
        err = clEnqueueFillBuffer(ctx->queue, p->buffer, &zero, sizeof zero, 0, (size_t)p->bytes,
                                  0, NULL, NULL);
    if (s == OCLCONV_OK && err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(ctx->queue, p->buffer, CL_TRUE, 0, n * sizeof *x, x, 0, NULL,
                                   NULL);
    if (s == OCLCONV_OK && err != CL_SUCCESS)
        s = oclconv__cl_fail(ctx, err, "the FFT self-test's upload");
    if (s == OCLCONV_OK)
        s = oclconv__fft_transform(ctx, p, 0);
    if (s == OCLCONV_OK)
        s = oclconv__fft_transform(ctx, p, 1);
    if (s == OCLCONV_OK &&
        (err = clEnqueueReadBuffer(ctx->queue, p->buffer, CL_TRUE, 0, n * sizeof *y, y, 0, NULL,
                                   NULL)) != CL_SUCCESS)
        s = oclconv__cl_fail(ctx, err, "the FFT self-test's read-back");
    double worst = 0, t2 = (double)p->tile * p->tile;
    for (int j = 0; s == OCLCONV_OK && j < p->tile; j++)
        for (int i = 0; i < p->tile; i++) {
            size_t k = (size_t)j * (size_t)(p->tile + 2) + (size_t)i;
            double e = fabs(y[k] / t2 - x[k]);
            worst = e > worst || e != e ? e : worst;
        }
    *missed = worst <= oclconv__fft_bound(p->tile, 1, 65535) ? 0 : worst;
    free(x);
    free(y);
    return s;
}

/* The plan for groups of `planes` planes of tile x tile, made once; a new
 * one transforms in `lender`'s buffer, which holds more planes, where
 * that is not NULL. */
static oclconv_status plan_get(oclconv_context *ctx, int tile, int planes,
                               const struct oclconv__fft_plan *lender, oclconv__fft_plan **out)
{
    for (struct oclconv__fft_plan *p = ctx->fft_plans; p; p = p->next)
        if (p->tile == tile && p->planes == planes) {
            *out = p;
            return p->missed > 0 ? oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                                                  "the FFT path's self-test failed on this "
                                                  "device: a round trip of %dx%d tiles moved a "
                                                  "value by %.3g, past its bound %.3g",
                                                  tile, tile, p->missed,
                                                  oclconv__fft_bound(tile, 1, 65535))
                                 : OCLCONV_OK;
        }
    struct oclconv__fft_plan *p = calloc(1, sizeof *p);
    if (!p)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for an FFT plan");
    p->tile = tile;
    p->planes = planes;
    p->bytes = (uint64_t)p->planes * oclconv__fft_plane_doubles(tile) * sizeof(double);
    cl_int err = CL_SUCCESS;
    p->borrowed = lender != NULL;
    p->buffer = lender ? lender->buffer
                       : clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | oclconv__alloc_flags(ctx),
                                        (size_t)p->bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        free(p);
        return oclconv__cl_fail(ctx, err, "clCreateBuffer (FFT planes)");
    }
    VkFFTConfiguration cfg = {0};
    cfg.FFTdim = 2;
    cfg.size[0] = cfg.size[1] = (uint64_t)tile;
    cfg.numberBatches = (uint64_t)p->planes;
    cfg.performR2C = 1;
    cfg.doublePrecision = 1;
    cfg.device = &ctx->device;
    cfg.context = &ctx->cl;
    cfg.buffer = &p->buffer;
    cfg.bufferSize = &p->bytes;
    VkFFTResult r = initializeVkFFT(&p->app, cfg);
    if (r != VKFFT_SUCCESS) { /* VkFFT has deleted what it made */
        p->app.configuration.device = NULL;
        plan_free(p);
        oclconv_status why = r == VKFFT_ERROR_MALLOC_FAILED ? OCLCONV_E_NOMEM : OCLCONV_E_BUILD;
        return oclconv__fail(ctx, why,
                             "VkFFT could not make a plan for %dx%d tiles in double on this "
                             "device (VkFFT error %d)",
                             tile, tile, (int)r);
    }
    ctx->programs_built++; /* VkFFT built its kernels for it */
    oclconv_status s = self_test(ctx, p, &p->missed);
    if (s != OCLCONV_OK) {
        plan_free(p);
        return s;
    }
    p->next = ctx->fft_plans; /* kept even where it failed, so as not to build it again */
    ctx->fft_plans = p;
    return plan_get(ctx, tile, planes, lender, out);
}

/* The last group's planes go up to a multiple of an eighth of a group:
 * at most 8 plans for its remainders a group size (the same kernels, so no
 * build), and no more than an eighth of a group transformed for no tile. */
oclconv_status oclconv__fft_plans(oclconv_context *ctx, int tile, long long planes, int per_tile,
                                  int *group, oclconv__fft_plan **plan, oclconv__fft_plan **rest)
{
    int g = group_planes(tile, planes, per_tile), step = g / 8 > 1 ? g / 8 : 1;
    int left = (int)(planes % g);
    *group = g;
    *rest = NULL;
    oclconv_status s = plan_get(ctx, tile, g, NULL, plan);
    if (s == OCLCONV_OK && left)
        s = plan_get(ctx, tile, (left + step - 1) / step * step, *plan, rest);
    return s;
}

cl_mem oclconv__fft_buffer(const oclconv__fft_plan *p)
{
    return p->buffer;
}

oclconv_status oclconv__fft_transform(oclconv_context *ctx, oclconv__fft_plan *p, int inverse)
{
    VkFFTLaunchParams lp = {0};
    lp.commandQueue = &ctx->queue;
    lp.buffer = &p->buffer;
    VkFFTResult r = VkFFTAppend(&p->app, inverse ? 1 : -1, &lp);
    if (r != VKFFT_SUCCESS)
        return oclconv__fail(ctx, OCLCONV_E_OPENCL, "VkFFT's %s transform failed (VkFFT error %d)",
                             inverse ? "inverse" : "forward", (int)r);
    return OCLCONV_OK;
}
