/*
 * The planner's choice of precision, on a made-up device with double (no
 * OpenCL involved): float sums where the contract's bound on their
 * rounding allows, double sums where it does not.  Each decision is
 * checked against the bound computed here a second way, tap by tap, from
 * the partial sums of the weights' magnitudes (see pass_roundings() in
 * src/precision.c).  Also some of its GPU tile shapes: the chunk buffers of
 * float box rows, the bands of RGBA8 rows made in segments, the
 * quads of RGBA8 boxes and the tiles of 2-D filters.
 */
#include "../src/internal.h"
#include "test.h"
#include "util.h"

#include <math.h>

static oclconv_context fake_device(void)
{
    oclconv_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.facts.type = CL_DEVICE_TYPE_CPU;
    ctx.facts.fp64 = 1;
    ctx.facts.max_work_group = 1024;
    ctx.facts.max_work_item[0] = ctx.facts.max_work_item[1] = ctx.facts.max_work_item[2] = 1024;
    ctx.facts.local_mem = 65536;
    ctx.facts.max_constant = 65536;
    ctx.facts.max_param = 4352;
    return ctx;
}

/* What planning on a made-up device left: its message, and the memory of
 * calibrations (where OCLCONV_CALIBRATE does not turn them off). */
static void release(oclconv_context *ctx)
{
    oclconv__calibration_free(ctx);
    free(ctx->errmsg);
}

/* The same device of another type and local memory. */
static oclconv_context fake_device_of(cl_device_type type, cl_ulong local_mem)
{
    oclconv_context ctx = fake_device();
    ctx.facts.type = type;
    ctx.facts.local_mem = local_mem;
    return ctx;
}

/* The planner's job for a 64x64 image of `channels`. */
static oclconv__job plan_channels(oclconv_context *ctx, const oclconv_filter *f, int channels,
                                  oclconv_type src_type, oclconv_type dst_type,
                                  oclconv_method method, oclconv_border border)
{
    static unsigned char pixels[64 * 64 * 4 * 4];
    oclconv_image src = {pixels, 64, 64, channels, src_type, 0};
    oclconv_image dst = {pixels, 64, 64, channels, dst_type, 0};
    oclconv__job job;
    memset(&job, 0, sizeof job);
    job.src = &src;
    job.dst = &dst;
    job.filter = f;
    oclconv_options_init(&job.opt);
    job.opt.method = method;
    job.opt.border = border;
    oclconv_status s = oclconv__plan(ctx, &job);
    if (s != OCLCONV_OK)
        TEST_FAIL_("plan: %s: %s", oclconv_strerror(s), oclconv_errmsg(ctx));
    return job;
}

/* The same for a gray image. */
static oclconv__job plan_of(oclconv_context *ctx, const oclconv_filter *f, oclconv_type src_type,
                            oclconv_type dst_type, oclconv_method method, oclconv_border border)
{
    return plan_channels(ctx, f, 1, src_type, dst_type, method, border);
}

/* Whether the planner sums this job in double. */
static int plans_double(oclconv_context *ctx, const oclconv_filter *f, oclconv_type src_type,
                        oclconv_type dst_type, oclconv_method method, oclconv_border border)
{
    return plan_of(ctx, f, src_type, dst_type, method, border).acc_double;
}

/* The roundings of an in-order float sum over taps a .. b - 1 of w, in
 * units of u X (their magnitudes' sum): the products' once, and each
 * addition of a tap not zero by its partial sum. */
static double range_roundings(const float *w, int a, int b)
{
    double partial = 0, counted = 0;
    for (int k = a; k < b; k++) {
        partial += fabs(w[k]);
        if (w[k] != 0)
            counted += partial;
    }
    return partial > 0 ? fmin(1 + counted / partial, b - a) : 0;
}

/* A pass's roundings as the planner should count them for an 8-bit
 * result: the whole range, or under NORMALIZE the worst in-image range
 * (it holds the centre tap) with its rescale's, where taps lie outside. */
static double pass_bound(const float *w, int n, int normalize)
{
    if (!normalize)
        return range_roundings(w, 0, n);
    double most = range_roundings(w, 0, n);
    for (int a = 0; a <= n / 2; a++)
        for (int b = n / 2 + 1; b <= n; b++)
            if (b - a < n)
                most = fmax(most, range_roundings(w, a, b) + 4);
    return fmin(most, n + 4.0);
}

/* The roundings of taps a .. b - 1 of a symmetric pass that the CPU bands
 * add in pairs, from the outside in and the centre last: the products
 * once, each addition of a pair by the sum so far, and in a column pass
 * the pairs' own additions once more where both values are in the range
 * (a row pass adds integer values exactly, and a zero outside the image
 * adds exactly everywhere). */
static double paired_range_roundings(const float *w, int n, int a, int b, int column)
{
    double all = 0, outside = 0, counted = 0;
    int both = 0;
    for (int k = a; k < b; k++)
        all += fabs(w[k]);
    for (int j = 0; j < n / 2; j++) {
        double left = j >= a ? fabs(w[j]) : 0, right = n - 1 - j < b ? fabs(w[n - 1 - j]) : 0;
        if (left + right > 0) {
            outside += left + right;
            counted += outside;
            both |= left > 0 && right > 0;
        }
    }
    if (w[n / 2] != 0)
        counted += all;
    return 1 + (column && both) + counted / all;
}

/* pass_bound() where the CPU bands add a symmetric pass in pairs. */
static double cpu_pass_bound(const float *w, int n, int normalize, int column)
{
    for (int i = 0; i < n / 2; i++)
        if (w[i] != w[n - 1 - i])
            return pass_bound(w, n, normalize);
    double most = 0;
    for (int a = 0; a <= (normalize ? n / 2 : 0); a++)
        for (int b = normalize ? n / 2 + 1 : n; b <= n; b++) {
            double r = paired_range_roundings(w, n, a, b, column);
            most = fmax(most, normalize && b - a < n ? r + 4 : r);
        }
    return fmin(most, (normalize ? n + 4.0 : n) + column);
}

/* Whether `roundings` of u8 values (the largest 255, no scale or delta)
 * in units of u sum|w|, with the factors' error, could pass the 1e-3
 * window around a tie. */
static int u8_wants_double(const oclconv_filter *f, double roundings)
{
    return !((roundings * 0x1p-24 * 1.01 * f->abs_sum + f->separable_error) * 255 < 1e-3);
}

/* u8 to u8 through the separable path, its taps added in order (GPUs) or
 * in the CPU bands' pairs where they are symmetric. */
static int separable_wants_double(const oclconv_filter *f, int normalize, int cpu)
{
    if (cpu && f->height <= OCLCONV_BAND_TAPS)
        return u8_wants_double(f, cpu_pass_bound(f->row, f->width, normalize, 0) +
                                      cpu_pass_bound(f->col, f->height, normalize, 1));
    return u8_wants_double(f, pass_bound(f->row, f->width, normalize) +
                                  pass_bound(f->col, f->height, normalize));
}

/* Whether u8 to u8 through the separable path sums in double, on the CPU
 * `ctx` or a made-up GPU, under CLAMP or NORMALIZE. */
static int separable_plans_double(oclconv_context *ctx, int cpu, const oclconv_filter *f,
                                  int normalize)
{
    oclconv_context gpu = fake_device_of(CL_DEVICE_TYPE_GPU, 65536);
    int got = plans_double(cpu ? ctx : &gpu, f, OCLCONV_U8, OCLCONV_U8, OCLCONV_METHOD_SEPARABLE,
                           normalize ? OCLCONV_BORDER_NORMALIZE : OCLCONV_BORDER_CLAMP);
    release(&gpu);
    return got;
}

static void separable_gaussians(oclconv_context *ctx)
{
    int floats[2] = {0, 0}, doubles[2] = {0, 0};
    for (int cpu = 0; cpu <= 1; cpu++)
        for (int normalize = 0; normalize <= 1; normalize++)
            for (int r = 1; r <= 40; r++) {
                oclconv_filter *f;
                ASSERT_OK(NULL, oclconv_filter_gaussian(r / 3.0, 0, r, r, &f));
                int got = separable_plans_double(ctx, cpu, f, normalize);
                if (got != separable_wants_double(f, normalize, cpu))
                    TEST_FAIL_("u8 Gaussian r%d %s on a %s: planned %s", r,
                               normalize ? "NORMALIZE" : "CLAMP", cpu ? "CPU" : "GPU",
                               got ? "double" : "float");
                floats[cpu] += !got;
                doubles[cpu] += got;
                oclconv_filter_destroy(f);
            }
    /* A Gaussian's pass counts about r + 2 roundings in tap order, half its
     * taps, so 8-bit results stay within 1e-3 (about 65 roundings of 255 in
     * units of 2^-24) in float through r30, and under NORMALIZE, r + 6 a
     * pass with the host's rescale, through r26; a count of every tap, and
     * a rescale summed in the kernel, sent them to double from r16 and r8.
     * In the CPU bands' pairs, whose partial sums stay small until the
     * centre, fewer: float through r32, the bands' limit, under either
     * border (taller columns go through scratch, in tap order). */
    ASSERT_EQ(floats[0], 30 + 26);
    ASSERT_EQ(doubles[0], 10 + 14);
    ASSERT_EQ(floats[1], 32 + 32);
    ASSERT_EQ(doubles[1], 8 + 8);
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_gaussian(16 / 3.0, 0, 16, 16, &f));
    ASSERT(!plans_double(ctx, f, OCLCONV_U8, OCLCONV_U8, OCLCONV_METHOD_SEPARABLE,
                         OCLCONV_BORDER_REFLECT101));
    /* 16-bit values are 257 times as large: double from the smallest. */
    ASSERT(plans_double(ctx, f, OCLCONV_U16, OCLCONV_U16, OCLCONV_METHOD_SEPARABLE,
                        OCLCONV_BORDER_CLAMP));
    oclconv_filter_destroy(f);
}

/* Symmetric columns of A, 2^-10, ..., 2^-10, A on 8-bit images: the CPU
 * bands add them in pairs, whose sums round once more than the tap
 * order's additions, so that where the bound is near the contract's window
 * a CPU's plan and a GPU's part. */
static void paired_columns(void)
{
    int parted = 0;
    for (float a = 1; a <= 16; a *= 2)
        for (int n = 3; n <= OCLCONV_BAND_TAPS; n += 2) {
            float col[OCLCONV_BAND_TAPS], one = 1;
            for (int j = 0; j < n; j++)
                col[j] = j == 0 || j == n - 1 ? a : 0x1p-10f;
            oclconv_filter *f;
            ASSERT_OK(NULL, oclconv_filter_separable(1, &one, n, col, &f));
            int planned[2];
            for (int cpu = 0; cpu <= 1; cpu++) {
                oclconv_context ctx =
                    fake_device_of(cpu ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU, 65536);
                planned[cpu] = plans_double(&ctx, f, OCLCONV_U8, OCLCONV_U8,
                                            OCLCONV_METHOD_SEPARABLE, OCLCONV_BORDER_CLAMP);
                if (planned[cpu] != separable_wants_double(f, 0, cpu))
                    TEST_FAIL_("a column of %d taps, %g at its ends, on a %s: planned %s", n,
                               a, cpu ? "CPU" : "GPU", planned[cpu] ? "double" : "float");
                release(&ctx);
            }
            parted += planned[0] != planned[1];
            oclconv_filter_destroy(f);
        }
    ASSERT(parted > 0);
}

/* A box through the separable path: the GPU tiles add the values of its
 * equal taps in their own order, so a pass counts every tap, n, whatever
 * the result's type (and under NORMALIZE n + 4): 8-bit boxes sum in float
 * through r15, under NORMALIZE through r13, where the partial sums of an
 * in-order sum, about half the taps, would have let them to r30.  The CPU
 * bands add them in pairs, counted as the Gaussians' above: float through
 * r32, their limit. */
static void separable_boxes(oclconv_context *ctx)
{
    int floats[2] = {0, 0};
    for (int cpu = 0; cpu <= 1; cpu++)
        for (int normalize = 0; normalize <= 1; normalize++)
            for (int r = 1; r <= 40; r++) {
                oclconv_filter *f;
                ASSERT_OK(NULL, oclconv_filter_box(r, r, &f));
                int got = separable_plans_double(ctx, cpu, f, normalize);
                int want = cpu ? separable_wants_double(f, normalize, 1)
                               : u8_wants_double(f, 2.0 * (2 * r + 1) + (normalize ? 8 : 0));
                if (got != want)
                    TEST_FAIL_("u8 box r%d %s on a %s: planned %s", r,
                               normalize ? "NORMALIZE" : "CLAMP", cpu ? "CPU" : "GPU",
                               got ? "double" : "float");
                floats[cpu] += !got;
                oclconv_filter_destroy(f);
            }
    ASSERT_EQ(floats[0], 15 + 13);
    ASSERT_EQ(floats[1], 32 + 32);
}

/* A 2-D filter (rank above one) of positive weights: an 8-bit result
 * counts the partial sums in row order, a float one every tap (past their
 * bounds: double, or row sums, row_sums() below), and under NORMALIZE,
 * whose in-image taps are a rectangle, every tap twice. */
static void two_d(oclconv_context *ctx, uint64_t *rng)
{
    for (int r = 1; r <= 7; r++) {
        int n = (2 * r + 1) * (2 * r + 1);
        float w[225];
        double sum = 0;
        for (int k = 0; k < n; k++)
            sum += w[k] = (float)rng_uniform(rng, 0.1, 1.0);
        for (int k = 0; k < n; k++)
            w[k] = (float)(w[k] / sum);
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_create(2 * r + 1, 2 * r + 1, w, &f));
        double u = 0x1p-24 * 1.01, tail = 0; /* the weights' rounding to floats */
        for (size_t k = 0; k < (size_t)n; k++)
            tail = (float)f->weights[k] == f->weights[k] ? tail : 1;
        /* Past one float sum's bound: double, or the rows' sums in it. */
        oclconv__job u8_job = plan_of(ctx, f, OCLCONV_U8, OCLCONV_U8, OCLCONV_METHOD_BUFFER,
                                      OCLCONV_BORDER_CLAMP);
        int u8 = u8_job.acc_double || u8_job.row_sums;
        oclconv__job f32_job = plan_of(ctx, f, OCLCONV_F32, OCLCONV_F32, OCLCONV_METHOD_BUFFER,
                                       OCLCONV_BORDER_CLAMP);
        int f32 = f32_job.acc_double || f32_job.row_sums;
        int norm = plans_double(ctx, f, OCLCONV_U8, OCLCONV_U8, OCLCONV_METHOD_BUFFER,
                                OCLCONV_BORDER_NORMALIZE);
        ASSERT_EQ(u8, u8_wants_double(f, range_roundings(w, 0, n) + tail));
        ASSERT_EQ(f32, (n + tail) * u > 1e-5);
        ASSERT_EQ(norm, u8_wants_double(f, 2.0 * n + 4 + tail));
        oclconv_filter_destroy(f);
    }
}

/* The chunk sums of a gray float box's GPU tiles (cl/separable.cl,
 * EQUAL_ROW 2) in the room beside the tile: in a GPU's 48 KB, two buffers
 * through r36, one through r39, none past it; two at r37 with 64 KB; and
 * GPU shapes on a CPU device (OCLCONV_TUNE=gpu) plan as in 48 KB, not in
 * the CPU's far larger room. */
static void chunk_buffers(void)
{
    static const struct {
        cl_device_type type;
        cl_ulong local_mem;
        int r, bufs;
    } cases[] = {
        {CL_DEVICE_TYPE_GPU, 49152, 36, 2}, {CL_DEVICE_TYPE_GPU, 49152, 37, 1},
        {CL_DEVICE_TYPE_GPU, 49152, 39, 1}, {CL_DEVICE_TYPE_GPU, 49152, 40, 0},
        {CL_DEVICE_TYPE_GPU, 65536, 37, 2}, {CL_DEVICE_TYPE_CPU, 524288, 37, 1},
    };
    setenv("OCLCONV_TUNE", "gpu", 1);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        oclconv_context ctx = fake_device_of(cases[i].type, cases[i].local_mem);
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_box(cases[i].r, cases[i].r, &f));
        oclconv__job job = plan_of(&ctx, f, OCLCONV_F32, OCLCONV_F32, OCLCONV_METHOD_SEPARABLE,
                                   OCLCONV_BORDER_CLAMP);
        if (job.fused != OCLCONV_FUSED_TILES || job.chunk_bufs != cases[i].bufs ||
            job.equal_row != (cases[i].bufs ? 2 : 0))
            TEST_FAIL_("f32 box r%d in %llu bytes: tiles %d, rows %d, %d buffers, not %d",
                       cases[i].r, (unsigned long long)cases[i].local_mem, job.fused,
                       job.equal_row, job.chunk_bufs, cases[i].bufs);
        oclconv_filter_destroy(f);
        release(&ctx);
    }
    unsetenv("OCLCONV_TUNE");
}

/* RGBA8 Gaussians in GPU tiles on a 48 KB device, whose rows go in
 * segments of 4 pixels at r3-r4 and of 8 from r5 (cl/separable.cl
 * ROW_SEGMENTS): from r8 through r16 the band lets one trip of segments
 * make every tile row; below, and past r16, where no band of 3 rows or
 * more would, the band is the 4 rows that local memory allows.  Tiles
 * whose rows go in segments of 8 pixels keep rows a vector longer in
 * local memory (HOR_PAD) where those still fit it: to r19, whose 166 rows
 * of 9 vectors take 47.8 KB, and not from r20 (168 rows, 48.4 KB); no
 * other tile does. */
static void segment_trips(void)
{
    oclconv_context ctx = fake_device_of(CL_DEVICE_TYPE_GPU, 49152);
    for (int r = 3; r <= 23; r++) {
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_gaussian(r / 3.0, r / 3.0, r, r, &f));
        oclconv__job job = plan_channels(&ctx, f, 4, OCLCONV_U8, OCLCONV_U8,
                                         OCLCONV_METHOD_SEPARABLE, OCLCONV_BORDER_CLAMP);
        int segs = job.local[0] * 8 / 4 / 8, rows = job.local[1] * job.band + 2 * r;
        int one_trip = rows <= OCLCONV_TILE_ITEMS / segs;
        int wanted = r >= 8 && r <= 16, pad = r >= 5 && r <= 19;
        size_t bytes = (size_t)rows * (size_t)(job.local[0] + job.hor_pad) * 8 * sizeof(float);
        if (job.fused != OCLCONV_FUSED_TILES || job.vec != 8 ||
            (r >= 5 && (one_trip != wanted || (!wanted && job.band != 4))) ||
            job.hor_pad != pad || bytes + 1024 > ctx.facts.local_mem)
            TEST_FAIL_("RGBA8 Gaussian r%d: tiles %d, %d values a work-item, %dx%d by %d rows: "
                       "%d tile rows in trips of %d, rows %d vectors longer, %zu bytes",
                       r, job.fused, job.vec, job.local[0], job.local[1], job.band, rows,
                       OCLCONV_TILE_ITEMS / segs, job.hor_pad, bytes);
        oclconv_filter_destroy(f);
    }
    static const struct {
        int channels;
        oclconv_type type;
    } others[] = {{1, OCLCONV_U8}, {2, OCLCONV_U8}, {3, OCLCONV_U8}, {4, OCLCONV_U16},
                  {1, OCLCONV_F32}, {4, OCLCONV_F32}};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_gaussian(7 / 3.0, 7 / 3.0, 7, 7, &f));
        oclconv__job job = plan_channels(&ctx, f, others[i].channels, others[i].type,
                                         others[i].type, OCLCONV_METHOD_SEPARABLE,
                                         OCLCONV_BORDER_CLAMP);
        if (job.fused != OCLCONV_FUSED_TILES || job.hor_pad)
            TEST_FAIL_("%d channels of type %d, r7: tiles %d, rows %d vectors longer",
                       others[i].channels, others[i].type, job.fused, job.hor_pad);
        oclconv_filter_destroy(f);
    }
    release(&ctx);
}

/* GPU boxes of 8-bit RGBA up to 15x15 taps run in quads (cl/box.cl
 * box_quads) when AUTO chooses, 3x3 included, which went to the separable
 * tiles before: groups of OCLCONV_QUAD_W x OCLCONV_QUAD_H going down
 * OCLCONV_QUAD_ROWS rows, whose row sums fit 48 KB.  Not wider or taller
 * boxes, other types or channel counts, a CPU's shapes, nor a device
 * whose local memory holds no group's row sums (16 KB: 3x3 takes 17.5). */
static void quad_boxes(void)
{
    static const struct {
        int rx, ry, channels;
        oclconv_type type;
        cl_device_type device;
        cl_ulong local_mem;
        int quads;
    } cases[] = {
        {1, 1, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 1},
        {0, 0, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 1},
        {7, 7, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 1},
        {7, 0, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 1},
        {2, 5, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 1},
        {8, 1, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 0},
        {1, 8, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 0},
        {1, 1, 3, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 0},
        {3, 3, 4, OCLCONV_U16, CL_DEVICE_TYPE_GPU, 49152, 0},
        {3, 3, 4, OCLCONV_U8, CL_DEVICE_TYPE_CPU, 49152, 0},
        {1, 1, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 16384, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        oclconv_context ctx = fake_device_of(cases[i].device, cases[i].local_mem);
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_box(cases[i].rx, cases[i].ry, &f));
        oclconv__job job = plan_channels(&ctx, f, cases[i].channels, cases[i].type,
                                         cases[i].type, OCLCONV_METHOD_AUTO,
                                         OCLCONV_BORDER_CLAMP);
        int quads = job.method == OCLCONV_METHOD_BOX && job.fused == OCLCONV_FUSED_QUADS &&
                    job.local[0] == OCLCONV_QUAD_W && job.local[1] == OCLCONV_QUAD_H &&
                    job.band == OCLCONV_QUAD_ROWS;
        if (quads != cases[i].quads)
            TEST_FAIL_("box %dx%d, %d channels of type %d, %s, %llu bytes: %s, fused %d, "
                       "%dx%d by %d rows",
                       2 * cases[i].rx + 1, 2 * cases[i].ry + 1, cases[i].channels,
                       cases[i].type, cases[i].device == CL_DEVICE_TYPE_GPU ? "GPU" : "CPU",
                       (unsigned long long)cases[i].local_mem, oclconv_method_name(job.method),
                       job.fused, job.local[0], job.local[1], job.band);
        oclconv_filter_destroy(f);
        release(&ctx);
    }
}

/* The direct paths' row sums: for u8 results of random 2-D filters from
 * 11x11 to 25x25 on the tiled and buffer paths, float sums where one sum's
 * bound allows, else each tap row's in float and the rows' in double where
 * the worst row's bound (and the total's rounding to float) allows, else
 * double (u16 values); never under NORMALIZE. */
static void row_sums(oclconv_context *ctx, uint64_t *rng)
{
    int kinds[3] = {0, 0, 0};
    for (int r = 5; r <= 12; r++) {
        int n = 2 * r + 1;
        float w[25 * 25];
        for (int k = 0; k < n * n; k++)
            w[k] = (float)rng_uniform(rng, r % 2 ? 0.01 : 0.5, 1.0) / (float)(n * n);
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_create(n, n, w, &f));
        double rows = 0;
        for (int j = 0; j < n; j++)
            rows = fmax(rows, range_roundings(w, j * n, (j + 1) * n));
        int whole = u8_wants_double(f, range_roundings(w, 0, n * n));
        int kind = !whole ? 0 : !u8_wants_double(f, rows + 1 + n * 0x1p-29) ? 1 : 2;
        oclconv__job job = plan_of(ctx, f, OCLCONV_U8, OCLCONV_U8, OCLCONV_METHOD_TILED,
                                   OCLCONV_BORDER_CLAMP);
        if (job.row_sums != (kind == 1) || job.acc_double != (kind == 2))
            TEST_FAIL_("u8 %dx%d in tiles: planned row sums %d, double %d; want %s", n, n,
                       job.row_sums, job.acc_double,
                       kind == 0 ? "float" : kind == 1 ? "row sums" : "double");
        kinds[kind]++;
        oclconv__job buffer = plan_of(ctx, f, OCLCONV_U8, OCLCONV_U8, OCLCONV_METHOD_BUFFER,
                                      OCLCONV_BORDER_CLAMP);
        ASSERT(buffer.row_sums == job.row_sums && buffer.acc_double == job.acc_double);
        ASSERT_EQ(plan_of(ctx, f, OCLCONV_U8, OCLCONV_U8, OCLCONV_METHOD_TILED,
                          OCLCONV_BORDER_NORMALIZE).row_sums, 0);
        if (r == 7) /* 16-bit values: past what even the rows allow */
            ASSERT_EQ(plan_of(ctx, f, OCLCONV_U16, OCLCONV_U16, OCLCONV_METHOD_TILED,
                              OCLCONV_BORDER_CLAMP).acc_double, 1);
        /* Float results, whose bound is relative to their terms: rows in
         * float wherever one float sum would not do (from 13x13), as for
         * 8-bit results; float images to 8-bit results stay in double. */
        for (int t = 0; t < 2; t++) {
            oclconv__job fl = plan_of(ctx, f, t ? OCLCONV_U8 : OCLCONV_F32, OCLCONV_F32,
                                      OCLCONV_METHOD_BUFFER, OCLCONV_BORDER_CLAMP);
            ASSERT_EQ(fl.row_sums, n >= 13);
            ASSERT_EQ(fl.acc_double, 0);
        }
        if (r >= 6)
            ASSERT_EQ(plan_of(ctx, f, OCLCONV_F32, OCLCONV_U8, OCLCONV_METHOD_BUFFER,
                              OCLCONV_BORDER_CLAMP).acc_double, 1);
        oclconv_filter_destroy(f);
    }
    ASSERT(kinds[0] > 0 && kinds[1] > 0); /* the sizes span both */
}

/* GPU 2-D filters from 5x5 to 15x15 run in local-memory tiles when AUTO
 * chooses (cl/tiled.cl): groups of 16 x 8 work-items of 4 values going
 * down 4 rows (float images 2) where the tile fits 48 KB, fewer rows of
 * work-items where it does not (16 KB), within the room either way; 3x3,
 * 17x17 and a CPU's shapes keep the buffer kernel. */
static void two_d_tiles(uint64_t *rng)
{
    static const struct {
        int r, channels;
        oclconv_type type;
        cl_device_type device;
        cl_ulong local_mem;
        int rows; /* 0: not tiled */
    } cases[] = {
        {1, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 0},
        {2, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 4},
        {3, 1, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 4},
        {7, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 4},
        {3, 3, OCLCONV_U16, CL_DEVICE_TYPE_GPU, 49152, 4},
        {7, 1, OCLCONV_F32, CL_DEVICE_TYPE_GPU, 49152, 2},
        {7, 4, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 16384, 4},
        {8, 1, OCLCONV_U8, CL_DEVICE_TYPE_GPU, 49152, 0},
        {3, 1, OCLCONV_U8, CL_DEVICE_TYPE_CPU, 49152, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        oclconv_context ctx = fake_device_of(cases[i].device, cases[i].local_mem);
        int r = cases[i].r, n = (2 * r + 1) * (2 * r + 1), cn = cases[i].channels;
        float w[17 * 17];
        for (int k = 0; k < n; k++)
            w[k] = (float)rng_uniform(rng, 0.1, 1.0) / (float)n;
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_create(2 * r + 1, 2 * r + 1, w, &f));
        oclconv__job job = plan_channels(&ctx, f, cn, cases[i].type, cases[i].type,
                                         OCLCONV_METHOD_AUTO, OCLCONV_BORDER_CLAMP);
        size_t pad = ((size_t)(r * cn) + 3) / 4 * 4, rows = (size_t)(job.local[1] * job.band);
        size_t bytes = (16 * 4 + 2 * pad) * (rows + 2 * (size_t)r) * oclconv__acc_size(&job);
        int want_group = cases[i].local_mem == 49152 ? job.local[1] == 8 : job.local[1] < 8;
        int tiled = job.method == OCLCONV_METHOD_TILED && job.local[0] == 16 && job.vec == 4 &&
                    want_group && job.band == cases[i].rows && bytes + 1024 <= cases[i].local_mem;
        if (tiled != (cases[i].rows > 0))
            TEST_FAIL_("%dx%d, %d channels of type %d, %s, %llu bytes: %s, %dx%d by %d rows of %d",
                       2 * r + 1, 2 * r + 1, cn, cases[i].type,
                       cases[i].device == CL_DEVICE_TYPE_GPU ? "GPU" : "CPU",
                       (unsigned long long)cases[i].local_mem, oclconv_method_name(job.method),
                       job.local[0], job.local[1], job.band, job.vec);
        oclconv_filter_destroy(f);
        release(&ctx);
    }
}

int main(void)
{
    oclconv_context ctx = fake_device();
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    separable_gaussians(&ctx);
    separable_boxes(&ctx);
    paired_columns();
    two_d(&ctx, &rng);
    chunk_buffers();
    segment_trips();
    quad_boxes();
    two_d_tiles(&rng);
    row_sums(&ctx, &rng);
    release(&ctx);
    return test_exit();
}
