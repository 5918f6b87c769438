/*
 * The FFT path's transforms: VkFFT's OpenCL backend (Debian's libvkfft-dev,
 * header only), one plan a tile size, group of planes and device, kept in
 * the context.  A plan transforms a group of real T x T planes (a power of
 * two of them: an image's, or as many as fit GROUP_VALUES) in place, in
 * double: R2C
 * forward, C2R inverse, unnormalised.  VkFFT prints a build log where a
 * kernel of its own fails to compile; the library never prints, so its
 * printf goes, and the failure comes back as OCLCONV_E_BUILD.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

#define VKFFT_BACKEND 3
#define printf(...) ((void)0)
#include <vkFFT.h>
#undef printf

struct oclconv__fft_plan {
    VkFFTApplication app;
    int tile, planes;
    cl_mem buffer;
    uint64_t bytes;
    struct oclconv__fft_plan *next;
};

/* Values a group of planes holds at most, whatever the tile: 4 Mi (a 32
 * MiB buffer of doubles), so that few launches cover an image. */
#define GROUP_VALUES ((size_t)1 << 22)

int oclconv__fft_group_planes(int tile, long long planes)
{
    long long most = (long long)(GROUP_VALUES / ((size_t)tile * (size_t)tile)), n = 1;
    while (n < planes && n < most)
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
    if (p->buffer)
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

oclconv_status oclconv__fft_plan_get(oclconv_context *ctx, int tile, int planes,
                                     oclconv__fft_plan **out)
{
    for (struct oclconv__fft_plan *p = ctx->fft_plans; p; p = p->next)
        if (p->tile == tile && p->planes == planes) {
            *out = p;
            return OCLCONV_OK;
        }
    struct oclconv__fft_plan *p = calloc(1, sizeof *p);
    if (!p)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for an FFT plan");
    p->tile = tile;
    p->planes = planes;
    p->bytes = (uint64_t)p->planes * oclconv__fft_plane_doubles(tile) * sizeof(double);
    cl_int err;
    p->buffer = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | oclconv__alloc_flags(ctx),
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
        clReleaseMemObject(p->buffer);
        free(p);
        return oclconv__fail(ctx, r == VKFFT_ERROR_MALLOC_FAILED ? OCLCONV_E_NOMEM : OCLCONV_E_BUILD,
                             "VkFFT could not make a plan for %dx%d tiles in double on this "
                             "device (VkFFT error %d)",
                             tile, tile, (int)r);
    }
    p->next = ctx->fft_plans;
    ctx->fft_plans = p;
    ctx->programs_built++; /* VkFFT built its kernels for it */
    *out = p;
    return OCLCONV_OK;
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
