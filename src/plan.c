/*
 * Planning: which path runs a job and how its work is cut (the precision
 * it accumulates in comes from precision.c).  Decisions come from the
 * facts the device reported and from the filter, never from the device's
 * name.
 */
#include "internal.h"
#include "path_rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ====== Methods ======================================================== */

const char *oclconv_method_name(oclconv_method m)
{
    switch (m) {
    case OCLCONV_METHOD_AUTO: return "auto";
    case OCLCONV_METHOD_BUFFER: return "buffer";
    case OCLCONV_METHOD_IMAGE: return "image";
    case OCLCONV_METHOD_TILED: return "tiled";
    case OCLCONV_METHOD_SEPARABLE: return "separable";
    case OCLCONV_METHOD_BOX: return "box";
    case OCLCONV_METHOD_RUNS: return "runs";
    case OCLCONV_METHOD_FFT: return "fft";
    }
    return NULL;
}

int oclconv__parse_method(const char *s, oclconv_method *out)
{
    for (int m = OCLCONV_METHOD_AUTO; m <= OCLCONV_METHOD_FFT; m++)
        if (strcmp(s, oclconv_method_name((oclconv_method)m)) == 0) {
            *out = (oclconv_method)m;
            return 1;
        }
    return 0;
}

/* Kernel shapes for a CPU or a GPU: the device's type, unless OCLCONV_TUNE
 * says "cpu" or "gpu" (the tests run the GPU shapes on PoCL this way). */
static oclconv_status device_class(oclconv_context *ctx, int *cpu)
{
    const char *tune = getenv("OCLCONV_TUNE");
    *cpu = (ctx->facts.type & CL_DEVICE_TYPE_CPU) != 0;
    if (!tune || !*tune)
        return OCLCONV_OK;
    if (strcmp(tune, "cpu") == 0 || strcmp(tune, "gpu") == 0) {
        *cpu = tune[0] == 'c';
        return OCLCONV_OK;
    }
    return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "OCLCONV_TUNE=%s is not cpu or gpu", tune);
}

/* Whether the separable path gives the contract's answer for this job: the
 * filter has row and column factors, and where they were found in a 2-D
 * filter, what they miss is too small to show in the output. */
static oclconv_status separable_ok(oclconv_context *ctx, const oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    if (!f->row)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the separable path needs a separable filter (rank one); this %dx%d "
                             "filter is not", f->width, f->height);
    double miss = f->separable_error * fabs(job->opt.scale);
    int exact_enough = f->separable_error == 0 ||
                       (job->dst->type == OCLCONV_F32 ? f->separable_error <= 1e-6 * f->abs_sum
                                                      : miss * oclconv__max_input(job) < 1e-4);
    if (!exact_enough)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "this filter is separable only to float accuracy, too coarse for "
                             "%s output of this range", job->dst->type == OCLCONV_U16 ? "u16" : "u8");
    /* Weights of few bits put integer results on exact halves, which
     * factors that miss them move off (filter.c finds exact ones where its
     * pivots give them). */
    if (f->separable_error != 0 && f->few_bits && job->dst->type != OCLCONV_F32)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "this filter's weights put %s results on exact halves, and its "
                             "factors miss them by %.3g: they would round off the halves",
                             job->dst->type == OCLCONV_U16 ? "u16" : "u8", f->separable_error);
    return OCLCONV_OK;
}

static oclconv_status box_ok(oclconv_context *ctx, const oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    if (!f->row || !oclconv__taps_equal(f->row, f->width) || !oclconv__taps_equal(f->col, f->height))
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the box path needs a box filter (all taps equal)");
    double taps = (double)f->width * f->height;
    /* Integer sums must fit 32 bits. */
    if (job->src->type != OCLCONV_F32 && taps * (job->src->type == OCLCONV_U8 ? 255 : 65535) >= 4294967296.0)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "a %dx%d box on 16-bit values overflows the box path's sums",
                             f->width, f->height);
    if (job->src->type == OCLCONV_F32 && !ctx->facts.fp64)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the box path sums float images in double, which this device lacks");
    /* GPU shapes: the row pass's work-groups of OCLCONV_BOX_SEGMENT and
     * their 5 * OCLCONV_BOX_SEGMENT sums of a pixel in local memory. */
    size_t sums = 5 * OCLCONV_BOX_SEGMENT * (size_t)job->src->channels *
                  (job->src->type == OCLCONV_F32 ? sizeof(double) : sizeof(cl_uint));
    if (!job->cpu_shapes && (ctx->facts.max_work_group < OCLCONV_BOX_SEGMENT ||
                             ctx->facts.max_work_item[0] < OCLCONV_BOX_SEGMENT ||
                             job->local_mem < sums))
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the box path's row pass needs work-groups of %d and %zu bytes of "
                             "local memory", OCLCONV_BOX_SEGMENT, sums);
    return OCLCONV_OK;
}

/* Sums of runs of equal taps, weighed in double: exactly for 8- and
 * 16-bit images (the prefix sums' differences are exact modulo 2^32),
 * within the contract for float results (cl/runs.cl). */
static oclconv_status runs_ok(oclconv_context *ctx, const oclconv__job *job)
{
    if (job->src->type == OCLCONV_F32 && job->dst->type != OCLCONV_F32)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the runs path makes integer results from 8- and 16-bit images "
                             "only (their sums are exact; a float image's range bounds nothing a "
                             "priori); a direct path makes them from float images");
    if (!ctx->facts.fp64)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the runs path weighs its sums in double, which this device lacks");
    return OCLCONV_OK;
}

static oclconv_status check_method(oclconv_context *ctx, oclconv__job *job)
{
    switch (job->method) {
    case OCLCONV_METHOD_BUFFER: return OCLCONV_OK;
    case OCLCONV_METHOD_IMAGE: return oclconv__image_supported(ctx, job);
    case OCLCONV_METHOD_TILED: return oclconv__tiled_ok(ctx, job);
    case OCLCONV_METHOD_SEPARABLE: return separable_ok(ctx, job);
    case OCLCONV_METHOD_BOX: return box_ok(ctx, job);
    case OCLCONV_METHOD_RUNS: return runs_ok(ctx, job);
    case OCLCONV_METHOD_FFT: return oclconv__fft_ok(ctx, job);
    default: return OCLCONV_E_INVALID_ARG;
    }
}

/* GPUs: 8-bit RGBA boxes up to 15x15 in quads of 4 pixels a work-item
 * (cl/box.cl box_quads), in groups of OCLCONV_QUAD_W x OCLCONV_QUAD_H
 * work-items each going down OCLCONV_QUAD_ROWS rows, where their row sums
 * fit local memory.  Their windows' sums, at most 225 x 255, fit 16 bits.
 * Against box_tile, and the separable tiles that AUTO took below 7 taps
 * (NVIDIA H200, kernel MP/s, best of 9 calls, three rounds; 8K): r1 317k
 * against 240k (1.32x; box_tile 208k), r2 291k against 198k (1.47x), r3
 * 279k against box_tile's 207k (1.35x), r5 251k against 204k (1.23x), r7
 * 229k against 204k (1.12x); 4K: r1 255k against 218k (1.17x), r3 240k
 * against 173k (1.39x), r7 202k against 164k (1.23x); H100, 8K: r1-r7
 * 1.11-1.37x.  Groups of 8 x 16 work-items going down 4 rows were the
 * fastest of 15 shapes from 4 to 32 wide and 2 to 16 rows, of 64 to 256
 * work-items, or within 5 % of it (16 x 8 x 4: 0.81x at r7; 8 rows,
 * fewer halo rows: 0.80-0.90x; docs/performance.md). */
int oclconv__quads_fit(const oclconv_context *ctx, const oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    size_t rows = (size_t)OCLCONV_QUAD_H * OCLCONV_QUAD_ROWS + (size_t)f->height - 1;
    size_t bytes = 2 * rows * OCLCONV_QUAD_W * 16;
    return !job->cpu_shapes && job->src->channels == 4 && job->src->type == OCLCONV_U8 &&
           f->width <= 15 && f->height <= 15 && bytes + 1024 <= job->local_mem &&
           ctx->facts.max_work_item[1] >= OCLCONV_QUAD_H;
}

/* AUTO: the first path that can run the job, in one order: running sums,
 * separable passes, runs, FFT tiles, 2-D tiles (GPUs), the buffer kernel.  On CPUs: running
 * sums for boxes from 11 taps, fused passes for separable filters, the vectorised buffer
 * kernel for the rest (the image path's sampler is emulated there and far
 * slower).  On GPUs, measured on NVIDIA's OpenCL
 * (4K and 8K): the separable tiles' cost grows with the taps and the
 * one-pass running sums' does not.  They win for 8-bit RGBA boxes at
 * every size, in quads up to 15x15 (oclconv__quads_fit() above), and for 8-bit
 * images from 7 taps with 3 or 4 channels (since their rows' loads and
 * scan gained,
 * 8K / 4K: RGBA8 r3 1.16-1.19x / 0.98-1.02x, r4 1.23-1.29x /
 * 1.03-1.06x; r2 0.96-1.04x / 0.88-0.92x; RGB8 r3 1.03-1.09x /
 * 0.98-1.03x, r4 1.12-1.16x / 1.12-1.14x, r2 0.78-0.84x), 11 with 2
 * (r5 1.05-1.09x / 1.06-1.08x, r4 0.93-0.98x / 0.95-0.98x) and 27 in
 * gray (r13 1.06x / 1.10-1.12x; the tiles, which add a box's values
 * rather than multiply its taps, run r12 1.06-1.10x at 8K, level at 4K),
 * for 16-bit ones from 7 taps with 4 channels (RGBA r3 1.26-1.28x /
 * 1.09-1.14x, r2 0.96-0.98x / 0.88-0.90x), 11 with 3 (r5 1.16-1.22x /
 * 1.09-1.16x, r4 0.97-1.01x / 0.96-1.01x), 9 with 2 (r4 0.99-1.07x /
 * 0.99-1.13x, r3 0.90-0.99x / 0.91-0.94x) and 25 in gray (r12
 * 1.01-1.04x / 1.08-1.11x, r10 0.95-0.98x / 1.01-1.05x, r9 0.81-0.82x /
 * 0.89-0.91x), and for float ones, whose sums are doubles and need the
 * exactness check,
 * where the tiles no longer win (8K and 4K, the tiles against the sums):
 * in gray from 85 taps (1.7-2x at r19, 1.5-1.8x at r23, r35 1.19-1.29x,
 * r40 1.06-1.21x, r41 0.95-1.13x; from r42 the tiles sum in double,
 * 0.45-0.50x; on an image that fails the check 2.2x or more the walks,
 * at r31 2.2x the block walks too), with 2 channels from 57 (r27
 * 0.99-1.11x, r29 0.90-1.01x), 3 from 61 (r29 1.0-1.07x, r31 0.91-1.03x)
 * and 4 from 45 (r20 1.06-1.16x, r21 1.01-1.06x, r23 0.85-0.90x).  2-D
 * filters from 5x5 to 15x15 run in local-memory tiles of converted values,
 * against the buffer kernel's cached global loads (H200, 8K, kernel MP/s,
 * 5x5 / 7x7 / 15x15): RGBA8 1.09x / 1.23x / 1.62x, u8 gray 1.13x / 2.10x /
 * 1.58x, f32 gray 1.17x / 1.62x / 1.35x; at 3x3 0.78x, 0.96x and 1.08x. */
static oclconv_status choose_by_rule(oclconv_context *ctx, oclconv__job *job)
{
    static const oclconv_method order[] = {OCLCONV_METHOD_BOX, OCLCONV_METHOD_SEPARABLE,
                                           OCLCONV_METHOD_RUNS, OCLCONV_METHOD_FFT,
                                           OCLCONV_METHOD_TILED, OCLCONV_METHOD_BUFFER};
    const oclconv_filter *f = job->filter;
    int widest = f->width > f->height ? f->width : f->height;
    int cn = job->src->channels;
    static const int u8_from[4] = {27, 11, 7, 7}, u16_from[4] = {25, 9, 11, 7},
                     float_from[4] = {85, 57, 61, 45};
    /* On CPUs the running sums from 11 taps: below, the fused separable
     * bands ran 1.5-3.2x faster on PoCL (4K, boxes r1-r4, u8 gray and
     * RGBA8; r1 f32 2.9x), level at r5 (RGBA8) and r7 (u8 gray); they had
     * been taken at every size, and float images under 3x3 taps through
     * the buffer kernel, which the bands now beat 1.6-2x there. */
    int box_from = job->cpu_shapes                 ? 11
                   : job->src->type == OCLCONV_U8  ? u8_from[cn - 1]
                   : job->src->type == OCLCONV_U16 ? u16_from[cn - 1]
                                                   : float_from[cn - 1];
    int box_pays = widest >= box_from || oclconv__quads_fit(ctx, job);
    int tiles_pay = !job->cpu_shapes && widest >= 5 && f->width <= 15 && f->height <= 15;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        job->method = order[i];
        if ((order[i] == OCLCONV_METHOD_BOX && !box_pays) ||
            (order[i] == OCLCONV_METHOD_RUNS &&
             !oclconv__runs_pay(f, job->cpu_shapes, job->src->type == OCLCONV_F32)) ||
            (order[i] == OCLCONV_METHOD_FFT && !oclconv__fft_pays(job)) ||
            (order[i] == OCLCONV_METHOD_TILED && !tiles_pay))
            continue;
        if (check_method(ctx, job) == OCLCONV_OK) {
            oclconv__clear_error(ctx);
            return OCLCONV_OK;
        }
    }
    return OCLCONV_E_INVALID_ARG; /* not reached: the buffer path runs anything */
}

/* AUTO: the measured path (src/calibrate.c) where it can run the job, else the rules'. */
static oclconv_status choose_auto(oclconv_context *ctx, oclconv__job *job)
{
    oclconv_method rule, m;
    oclconv_status s = choose_by_rule(ctx, job);
    if (s == OCLCONV_OK)
        s = oclconv__calibrated(ctx, job, &m);
    job->choice = OCLCONV_CHOICE_RULE;
    if (s != OCLCONV_OK || m == OCLCONV_METHOD_AUTO)
        return s;
    job->choice = OCLCONV_CHOICE_MEASURED;
    if (m == (rule = job->method))
        return OCLCONV_OK;
    job->method = m;
    if (check_method(ctx, job) == OCLCONV_OK)
        return OCLCONV_OK;
    oclconv__clear_error(ctx); /* a stored path this job cannot take */
    job->choice = OCLCONV_CHOICE_RULE;
    job->method = rule;
    return check_method(ctx, job);
}

/* Whether n taps and a kernel's other arguments (at most 128 bytes) fit
 * the device's parameter size, so the kernel can take them by value. */
int oclconv__taps_fit(const oclconv_context *ctx, const oclconv__job *job, size_t n)
{
    return n * oclconv__acc_size(job) + 128 <= ctx->facts.max_param;
}

oclconv_status oclconv__plan(oclconv_context *ctx, oclconv__job *job)
{
    oclconv_method m = job->opt.method;
    const char *env = getenv("OCLCONV_METHOD");
    if (m == OCLCONV_METHOD_AUTO && env && *env && !oclconv__parse_method(env, &m))
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "OCLCONV_METHOD=%s is not one of auto, buffer, image, tiled, "
                             "separable, box, runs, fft", env);
    oclconv_status s = device_class(ctx, &job->cpu_shapes);
    if (s != OCLCONV_OK)
        return s;
    int cpu = job->cpu_shapes;
    /* GPU shapes on a CPU device (OCLCONV_TUNE=gpu) plan within the local
     * memory GPUs commonly lend a work-group, as they would run on one,
     * not within a CPU's far larger emulated room. */
    job->local_mem = ctx->facts.local_mem;
    if (!cpu && (ctx->facts.type & CL_DEVICE_TYPE_CPU) && job->local_mem > OCLCONV_GPU_LOCAL_MEM)
        job->local_mem = OCLCONV_GPU_LOCAL_MEM;
    /* CPUs want one wide vector of values a work-item and work-groups of
     * one row of 16 (256 values side by side, so a group walks its rows
     * along whole cache lines: 1.6-1.8x the 4x16 groups on PoCL); GPUs a
     * few values a lane in 2-D groups. */
    job->vec = cpu ? 16 : 4;
    job->chunks = 1;
    job->local[0] = 16;
    job->local[1] = cpu ? 1 : 16;
    job->band = cpu ? 64 : 32;
    job->sum_int = job->src->type != OCLCONV_F32;
    if (m == OCLCONV_METHOD_AUTO) {
        s = choose_auto(ctx, job);
    } else {
        job->method = m;
        job->choice = OCLCONV_CHOICE_CALLER;
        s = check_method(ctx, job);
    }
    if (s != OCLCONV_OK)
        return s;
    if ((s = oclconv__precision(ctx, job)) != OCLCONV_OK)
        return s;
    job->fused = OCLCONV_FUSED_NO;
    job->radius_args = 0;
    job->taps_by_value = 0;
    job->pack16 = 0;
    job->equal_row = job->equal_col = 0;
    job->hor_pad = 0;
    if (cpu) {
        /* A band's row pass stays in cache and the scratch image goes; its
         * private buffer grows with the column radius, so only up to 32. */
        if (job->method == OCLCONV_METHOD_BOX || job->filter->height <= OCLCONV_BAND_TAPS)
            job->fused = OCLCONV_FUSED_BANDS;
        job->radius_args = job->method == OCLCONV_METHOD_BOX;
        /* Taller bands recompute fewer halo rows: 1.1-1.2x at r7 and r15
         * on PoCL, nothing below. */
        if (job->method == OCLCONV_METHOD_SEPARABLE && job->filter->height > 9)
            job->band = 128;
        /* The buffer path's work-items make 4 vectors side by side
         * (cl/buffer.cl CHUNKS; PoCL, 2-core EPYC, 4K, kernel time, three
         * rounds against one vector: 3x3 to 9x9 u8 gray, RGBA8 and f32
         * gray 1.2-1.6x in most rounds, 15x15 and 31x31 0.95-1.17x). */
        if (job->method == OCLCONV_METHOD_BUFFER) {
            job->band = 1;
            job->chunks = 4;
        }
    } else if (job->method == OCLCONV_METHOD_SEPARABLE) {
        oclconv__plan_separable_tiles(ctx, job);
    } else if (job->method == OCLCONV_METHOD_BOX) {
        oclconv__plan_box_tiles(ctx, job);
    } else if (job->method == OCLCONV_METHOD_BUFFER) {
        oclconv__plan_buffer_rows(ctx, job);
    }
    if (job->method == OCLCONV_METHOD_TILED)
        oclconv__plan_tiled(ctx, job);
    /* One program of runs or of FFT tiles serves every filter: radii as arguments. */
    if (job->method == OCLCONV_METHOD_RUNS || job->method == OCLCONV_METHOD_FFT)
        job->radius_args = 1;
    if (job->method == OCLCONV_METHOD_RUNS)
        oclconv__plan_runs(job);
    oclconv__range_shifts(job);
    return OCLCONV_OK;
}

size_t oclconv__vec_pitch(const oclconv__job *job)
{
    size_t values = (size_t)job->src->width * (size_t)job->src->channels, v = (size_t)job->vec;
    return (values + v - 1) / v * v;
}
