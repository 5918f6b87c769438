/*
 * The FFT path (cl/fft.cl, src/fft.c): large 2-D filters in tiles, each
 * tile's plane transformed, weighed by the filter's spectrum and
 * transformed back (overlap-save), in double.  Its cost a value grows with
 * the log of the tile, not with the taps.  Integer results from 8- and
 * 16-bit images: the planner bounds the transforms' rounding a priori and
 * takes the path where the bound keeps every integer result the
 * reference's (far inside the contract's 0.001).  Float results: the
 * error follows the tile's norm, not each sum's own terms, so a sum small
 * beside the image's largest value is made again directly (fft_scatter).
 */
#include "internal.h"
#include "fft.h"
#include "path_rules.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_TILE 32
#define MAX_TILE 512
/* The most an integer result may move: a quarter of the 0.001 around a tie
 * within which the contract lets it round either way. */
#define BOUND_MAX 0x1p-12

/* The tiles of side t that cover the image, T - 2 rx by T - 2 ry outputs
 * each, and how many go along a row. */
static long long tiles_of(const oclconv__job *job, int t, int *along)
{
    int vx = t - 2 * (job->filter->width / 2), vy = t - 2 * (job->filter->height / 2);
    *along = (job->src->width + vx - 1) / vx;
    return (long long)*along * ((job->src->height + vy - 1) / vy);
}

/* The tile side: the power of two whose transforms cost least for the
 * image, the tiles that cover it times their T^2 values (a small image
 * takes a small tile), times log T on CPUs, whose transforms' work a value
 * grows with it.  On GPUs the transforms are bound by memory, which each
 * value crosses about as often in tiles of 512 as of 256 (NVIDIA H100,
 * kernel time, forced tiles, 512 against 256: 8K u8 gray 31x31 1.14x,
 * RGBA8 31x31 1.14x, 63x63 1.22x; 4K 1.02x, 1.02x, 1.25x).  0 for none. */
static int tile_for(const oclconv__job *job)
{
    int rx = job->filter->width / 2, ry = job->filter->height / 2, best = 0, along;
    double best_cost = INFINITY;
    for (int t = MIN_TILE; t <= MAX_TILE; t *= 2) {
        if (t <= 2 * rx || t <= 2 * ry)
            continue;
        double cost = (double)tiles_of(job, t, &along) * t * t * (job->cpu_shapes ? log2(t) : 1);
        if (cost < best_cost) {
            best = t;
            best_cost = cost;
        }
    }
    return best;
}

/* How far the transforms can move a sum, a priori: 16 log2(T^2) u times
 * the weights' magnitudes' sum and the tile's norm (at most the largest
 * value times T), times the scale (oclconv__fft_bound()).  A radix-2
 * transform of length N with twiddles accurate to u errs by at most about
 * 5-6 log2(N) u of its norm (Higham, Accuracy and Stability of Numerical
 * Algorithms, 24.1); the forward transform, the product by the spectrum
 * (whose entries are at most the weights' magnitudes' sum) and the inverse
 * come to about 13 log2(N) u, which 16 covers. */
static double rounding_bound(const oclconv__job *job, int tile)
{
    return oclconv__fft_bound(tile, job->filter->abs_sum, oclconv__max_input(job)) *
           fabs((double)job->opt.scale);
}

/* The grid the sums lie on where every weight is a multiple of 2^-k
 * (k <= 16, the filters whose results fall on exact halves often and
 * must round there as the reference does) and every value an integer (a
 * CONSTANT border's value too): 2^k; 0 where they do not. */
static double sum_grid(const oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    if (job->dst->type == OCLCONV_F32)
        return 0;
    if (job->opt.border == OCLCONV_BORDER_CONSTANT &&
        job->opt.border_value != floor(job->opt.border_value))
        return 0;
    for (int k = 0; k <= 16; k++) {
        double g = ldexp(1, k);
        size_t i = 0, n = (size_t)f->width * (size_t)f->height;
        while (i < n && f->weights[i] * g == floor(f->weights[i] * g))
            i++;
        if (i == n)
            return g;
    }
    return 0;
}

/* Float results: the sums the transforms make are kept where they are at
 * least this many times the image's largest value (fft_scatter), so that
 * the bound is at most half the contract's 1e-5 of their terms. */
static double float_reach(const oclconv__job *job, int tile)
{
    return oclconv__fft_bound(tile, job->filter->abs_sum, 1) * (1 + 2e5);
}

oclconv_status oclconv__fft_ok(oclconv_context *ctx, const oclconv__job *job)
{
    int float_out = job->dst->type == OCLCONV_F32;
    if (job->src->type == OCLCONV_F32 && !float_out)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the FFT path makes integer results from 8- and 16-bit images "
                             "only (a float image's range bounds nothing a priori); a direct "
                             "path makes them from float images");
    if (job->opt.border == OCLCONV_BORDER_NORMALIZE)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the FFT path has no NORMALIZE border; the direct paths do");
    if (!ctx->facts.fp64)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the FFT path transforms in double, which this device lacks");
    int tile = tile_for(job);
    if (!tile)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the FFT path's tiles are at most %d wide: a %dx%d filter does "
                             "not fit one", MAX_TILE, job->filter->width, job->filter->height);
    double bound = rounding_bound(job, tile), grid = sum_grid(job);
    if (!float_out && (!(bound <= BOUND_MAX) || (grid > 0 && !(bound * grid <= 0.25))))
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the FFT's rounding can move this filter's sums by %.3g (weights' "
                             "magnitudes summing to %g, values up to %g, %dx%d tiles), past "
                             "the %s; a direct path keeps them",
                             bound, job->filter->abs_sum, oclconv__max_input(job), tile, tile,
                             grid > 0 ? "quarter step of its dyadic weights' sums"
                                      : "0.001 allowed");
    /* The plans, made and self-tested once (fft.c), where their transforms run. */
    int along, group;
    oclconv__fft_plan *plan, *rest;
    int cn = job->src->channels;
    return oclconv__fft_plans(ctx, tile, tiles_of(job, tile, &along) * cn, cn, &group, &plan,
                              &rest);
}

/* AUTO's rule, from the crossovers with the direct sum (random 2-D filters,
 * 4K, the FFT's rate about flat in the filter's size, the direct sum's
 * falling with its taps): CPUs from 21x21 taps (PoCL, 2 cores: u8 gray
 * 15x15 86 against 50 MP/s, 31x31 20 against 48; RGBA8 24 against 13 and
 * under 4 against 13), GPUs from 19x19 with 3 or 4 channels and 25x25 with
 * fewer (NVIDIA H200, kernel time: 15x15 u8 gray 29k against 11k MP/s,
 * RGBA8 4.3k against 2.9k; 31x31 6.7k against 10.9k, 1.0k against 2.8k).
 * Float results on PoCL cross over there too (f32 gray 15x15 93 against 49
 * MP/s, 31x31 22 against 45).  The calibration measures where it is on the
 * device at hand. */
int oclconv__fft_pays(const oclconv__job *job)
{
    /* GPUs, float results, whose direct sums run faster than 8-bit ones:
     * from 31x31 (NVIDIA H200, f32 gray, kernel time: 31x31 at 4K 1.03x
     * the buffer kernel and 1.13x the tiles, 63x63 4.1x). */
    int side = job->cpu_shapes ? 21 : job->dst->type == OCLCONV_F32 ? 31
                                    : job->src->channels >= 3 ? 19 : 25;
    return job->filter->nonzero >= side * side;
}

/* The filter's spectrum for tiles of `tile`, the context's where it was
 * made before: its weights flipped about the origin (correlation) and
 * wrapped, transformed in the plan's first plane, that plane kept. */
static oclconv_status spectrum(oclconv_context *ctx, const oclconv__job *job, int tile,
                               oclconv__fft_plan *plan, cl_mem *out)
{
    const oclconv_filter *f = job->filter;
    size_t taps = (size_t)f->width * (size_t)f->height, n = oclconv__fft_plane_doubles(tile);
    for (int i = 0; i < OCLCONV_FFT_SPECTRA; i++) {
        struct oclconv__fft_spectrum *sp = &ctx->fft_spectra[i];
        if (sp->mem && sp->tile == tile && sp->width == f->width && sp->height == f->height &&
            memcmp(sp->weights, f->weights, taps * sizeof *f->weights) == 0) {
            *out = sp->mem;
            return OCLCONV_OK;
        }
    }
    double *h = calloc(n, sizeof *h), *kept = malloc(taps * sizeof *kept);
    if (!h || !kept) {
        free(h);
        free(kept);
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the filter's spectrum");
    }
    int rx = f->width / 2, ry = f->height / 2;
    for (int j = 0; j < f->height; j++)
        for (int i = 0; i < f->width; i++)
            h[(size_t)((ry - j + tile) % tile) * (size_t)(tile + 2) +
              (size_t)((rx - i + tile) % tile)] =
                f->weights[(size_t)j * (size_t)f->width + (size_t)i];
    memcpy(kept, f->weights, taps * sizeof *kept);
    cl_mem planes = oclconv__fft_buffer(plan), mem = NULL;
    cl_int err = clEnqueueWriteBuffer(ctx->queue, planes, CL_TRUE, 0, n * sizeof *h, h,
                                      ctx->wait_count, ctx->wait_count ? ctx->wait_list : NULL,
                                      NULL);
    free(h);
    ctx->wait_count = 0;
    ctx->wait_list = NULL;
    oclconv_status s = err == CL_SUCCESS ? oclconv__fft_transform(ctx, plan, 0)
                                         : oclconv__cl_fail(ctx, err, "clEnqueueWriteBuffer");
    if (s == OCLCONV_OK) {
        mem = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | oclconv__alloc_flags(ctx),
                             n * sizeof(double), NULL, &err);
        if (err == CL_SUCCESS)
            err = clEnqueueCopyBuffer(ctx->queue, planes, mem, 0, 0, n * sizeof(double), 0, NULL,
                                      NULL);
        if (err != CL_SUCCESS)
            s = oclconv__cl_fail(ctx, err, "the spectrum's buffer");
    }
    if (s != OCLCONV_OK) {
        if (mem)
            clReleaseMemObject(mem);
        free(kept);
        return s;
    }
    struct oclconv__fft_spectrum *sp = &ctx->fft_spectra[ctx->fft_spectra_next];
    ctx->fft_spectra_next = (ctx->fft_spectra_next + 1) % OCLCONV_FFT_SPECTRA;
    if (sp->mem)
        clReleaseMemObject(sp->mem);
    free(sp->weights);
    *sp = (struct oclconv__fft_spectrum){kept, f->width, f->height, tile, mem};
    *out = mem;
    return OCLCONV_OK;
}

void oclconv__fft_spectra_free(oclconv_context *ctx)
{
    for (int i = 0; i < OCLCONV_FFT_SPECTRA; i++) {
        if (ctx->fft_spectra[i].mem)
            clReleaseMemObject(ctx->fft_spectra[i].mem);
        free(ctx->fft_spectra[i].weights);
        memset(&ctx->fft_spectra[i], 0, sizeof ctx->fft_spectra[i]);
    }
}

/* Work-groups of fixed sizes: left to the runtime, they would follow the
 * image, and PoCL compiles a kernel anew for each size it meets. */
#define GROUP_X 32

/* Float results: the filter's taps in double for the sums made again
 * directly (uploaded once and kept, as every path's weights), and the
 * image's largest magnitude, into *extent's last value
 * (cl/fft.cl fft_row_extent, fft_extent); *first the first kernel's event. */
static oclconv_status float_extent(oclconv_context *ctx, const oclconv__job *job,
                                   const oclconv__io *io, const char *options, cl_mem *taps,
                                   cl_mem *extent, cl_event *first)
{
    const oclconv_filter *f = job->filter;
    cl_int width = job->src->width, height = job->src->height, err;
    cl_kernel rows, most;
    oclconv_status s = oclconv__get_kernel(ctx, "fft", "fft_row_extent", options, &rows);
    if (s == OCLCONV_OK)
        s = oclconv__get_kernel(ctx, "fft", "fft_extent", options, &most);
    if (s != OCLCONV_OK)
        return s;
    cl_mem t; /* doubles: the FFT's sums are (oclconv__precision()) */
    s = oclconv__upload_weights(ctx, job, f->weights, (size_t)f->width * (size_t)f->height, &t);
    if (s != OCLCONV_OK)
        return s;
    cl_mem e = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, ((size_t)height + 1) * sizeof(double),
                              NULL, &err);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(t);
        return oclconv__cl_fail(ctx, err, "the image's extent for the FFT path");
    }
    *taps = t;
    *extent = e;
    s = oclconv__args(ctx, rows, 0, 4, sizeof io->in, &io->in, sizeof e, &e, sizeof width,
                      &width, sizeof height, &height);
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, most, 0, 2, sizeof e, &e, sizeof height, &height);
    if (s == OCLCONV_OK)
        s = oclconv__launch(ctx, job, rows, (size_t)height, 1, GROUP_X, 1, first);
    if (s == OCLCONV_OK)
        s = oclconv__launch(ctx, job, most, 1, 1, 1, 1, NULL);
    return s;
}

oclconv_status oclconv__run_fft(oclconv_context *ctx, const oclconv__job *job,
                                const oclconv__io *io)
{
    const oclconv_filter *f = job->filter;
    cl_int width = job->src->width, height = job->src->height, rx = f->width / 2,
           ry = f->height / 2, tile = tile_for(job);
    cl_int vx = tile - 2 * rx, vy = tile - 2 * ry, tiles_x;
    long long planes = tiles_of(job, tile, &tiles_x) * job->src->channels;
    char options[512];
    oclconv__common_options(ctx, job, options, sizeof options);
    cl_kernel gather, multiply, scatter;
    oclconv__fft_plan *plan = NULL, *rest = NULL;
    cl_mem spec = NULL;
    int group = 0;
    cl_int values = tile * (tile / 2 + 1);
    /* Several channels: a pixel's a work-item, groups holding whole tiles,
     * so a launch's rows are count / cn tiles' (one channel: count planes')
     * (kernel time, RGBA8: PoCL, 4K, 31x31 1.31x, 63x63 1.25x; NVIDIA
     * H100, 4K and 8K, tiles of 256, 31x31 1.60-1.61x, 63x63 1.56x). */
    int cn = job->src->channels, px = cn > 1;
    oclconv_status s = oclconv__fft_plans(ctx, tile, planes, cn, &group, &plan, &rest);
    if (s == OCLCONV_OK)
        s = oclconv__get_kernel(ctx, "fft", px ? "fft_gather_px" : "fft_gather", options,
                                &gather);
    if (s == OCLCONV_OK)
        s = oclconv__get_kernel(ctx, "fft", "fft_multiply", options, &multiply);
    if (s == OCLCONV_OK)
        s = oclconv__get_kernel(ctx, "fft", px ? "fft_scatter_px" : "fft_scatter", options,
                                &scatter);
    if (s == OCLCONV_OK)
        s = spectrum(ctx, job, tile, plan, &spec);
    if (s != OCLCONV_OK)
        return s;
    cl_mem taps = spec, extent = spec;
    double bv = job->opt.border_value, grid = sum_grid(job), scale = job->opt.scale,
           delta = job->opt.delta, reach = 0;
    cl_event first_event = NULL, last_event = NULL;
    if (job->dst->type == OCLCONV_F32) {
        reach = float_reach(job, tile);
        s = float_extent(ctx, job, io, options, &taps, &extent, &first_event);
    }
    for (long long at = 0; at < planes && s == OCLCONV_OK; at += group) {
        cl_int first = (cl_int)at, count = (cl_int)(planes - at < group ? planes - at : group);
        oclconv__fft_plan *p = count < group ? rest : plan;
        cl_mem buf = oclconv__fft_buffer(p);
        s = oclconv__args(ctx, gather, 0, 11, sizeof io->in, &io->in, sizeof buf, &buf,
                          sizeof width, &width, sizeof height, &height, sizeof rx, &rx,
                          sizeof ry, &ry, sizeof tile, &tile, sizeof tiles_x, &tiles_x,
                          sizeof first, &first, sizeof count, &count, sizeof bv, &bv);
        if (s == OCLCONV_OK)
            s = oclconv__args(ctx, multiply, 0, 4, sizeof buf, &buf, sizeof spec, &spec,
                              sizeof tile, &tile, sizeof count, &count);
        if (s == OCLCONV_OK)
            s = oclconv__args(ctx, scatter, 0, 18, sizeof buf, &buf, sizeof io->out, &io->out,
                              sizeof width, &width, sizeof height, &height, sizeof rx, &rx,
                              sizeof ry, &ry, sizeof tile, &tile, sizeof tiles_x, &tiles_x,
                              sizeof first, &first, sizeof count, &count, sizeof grid, &grid,
                              sizeof scale, &scale, sizeof delta, &delta, sizeof io->in,
                              &io->in, sizeof taps, &taps, sizeof extent, &extent,
                              sizeof reach, &reach, sizeof bv, &bv);
        if (s == OCLCONV_OK)
            s = oclconv__launch(ctx, job, gather, (size_t)tile,
                                (size_t)count / (size_t)cn * (size_t)tile, GROUP_X, 1,
                                first_event ? NULL : &first_event);
        if (s == OCLCONV_OK)
            s = oclconv__fft_transform(ctx, p, 0);
        if (s == OCLCONV_OK)
            s = oclconv__launch(ctx, job, multiply, (size_t)values, (size_t)count, GROUP_X, 1,
                                NULL);
        if (s == OCLCONV_OK)
            s = oclconv__fft_transform(ctx, p, 1);
        if (s == OCLCONV_OK) {
            if (last_event)
                clReleaseEvent(last_event);
            last_event = NULL;
            s = oclconv__launch(ctx, job, scatter, (size_t)vx,
                                (size_t)count / (size_t)cn * (size_t)vy, GROUP_X, 1, &last_event);
        }
    }
    /* The device's time: from the first plane's gathering to the last's
     * scattering, VkFFT's kernels between (they have no events of ours). */
    if (s == OCLCONV_OK && first_event && last_event)
        oclconv__bank_span(ctx, first_event, last_event);
    if (first_event)
        clReleaseEvent(first_event);
    if (last_event)
        clReleaseEvent(last_event);
    if (taps != spec)
        clReleaseMemObject(taps);
    if (extent != spec)
        clReleaseMemObject(extent);
    return s;
}
