/*
 * The runs path (filters of few distinct weights) against the CPU
 * reference: discs, rings and drawn few-level filters on every border,
 * type pair and channel count it takes, the sizes that are multiples of
 * nothing, filters larger than the image, all-maximum images under the
 * widest sums, float images whose prefix sums cannot keep every sum (black
 * regions, values far apart, NaN and infinity), in place; AUTO's choice of
 * it, and its refusals.
 * In the device's kernel shapes and the other device type's, a set of
 * cases in a child process each (tests/path_check.c).
 */
#include "path_check.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DISC, RING, LEVELS, KINDS };

/* A filter of fw x fh taps inside the ellipse they span: a disc of equal
 * taps, a ring of two levels (the inner one negative for some), or taps
 * drawn from three levels and 0. */
static oclconv_filter *few_level_filter(uint64_t *rng, int kind, int fw, int fh)
{
    float *w = calloc((size_t)fw * (size_t)fh, sizeof *w);
    float level[3] = {1, (float)rng_uniform(rng, -0.5, 2), (float)rng_uniform(rng, 0.1, 3)};
    ASSERT(w != NULL);
    double rx = fw / 2 + 0.5, ry = fh / 2 + 0.5, sum = 0;
    for (int j = 0; j < fh; j++)
        for (int i = 0; i < fw; i++) {
            double dx = (i - fw / 2) / rx, dy = (j - fh / 2) / ry, d = dx * dx + dy * dy;
            float v = d > 1 ? 0 : kind == DISC ? 1 : kind == RING ? level[d < 0.3 ? 1 : 0]
                                                            : level[rng_next(rng) % 3];
            if (kind == LEVELS && rng_next(rng) % 4 == 0)
                v = 0;
            w[j * fw + i] = v;
            sum += v;
        }
    for (int k = 0; k < fw * fh; k++) /* weights summing to about 1 */
        w[k] = (float)(w[k] / (fabs(sum) > 0.5 ? sum : 1));
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_create(fw, fh, w, &f));
    free(w);
    return f;
}

/* The type pairs (type_pairs' indices) the path takes: all but float
 * images to integer results. */
static const int runs_pairs[] = {0, 1, 2, 3, 5};
enum { RUNS_PAIRS = sizeof runs_pairs / sizeof *runs_pairs };

static void sweep(oclconv_context *ctx, uint64_t *rng)
{
    /* 21x19 and more rows: the CPU shapes' tall groups (src/path_runs.c). */
    static const int shapes_runs[][2] = {{3, 3}, {7, 7}, {9, 5}, {1, 9}, {15, 15}, {5, 1}, {21, 19}};
    enum { N_SHAPES = sizeof shapes_runs / sizeof *shapes_runs };
    long cases = 0;
    for (int b = OCLCONV_BORDER_CLAMP; b <= OCLCONV_BORDER_NORMALIZE; b++)
        for (int p = 0; p < RUNS_PAIRS; p++) {
            /* As test_paths draws: the folding borders (k 0) share a
             * channel count, the others take the other three. */
            int k = b == OCLCONV_BORDER_ZERO       ? 1
                    : b == OCLCONV_BORDER_CONSTANT ? 2
                    : b == OCLCONV_BORDER_NORMALIZE ? 3
                                                    : 0;
            int cn = 1 + (p + k) % 4, shape = (b * RUNS_PAIRS + p) % N_SHAPES;
            int fw = shapes_runs[shape][0], fh = shapes_runs[shape][1];
            const type_pair *tp = &type_pairs[runs_pairs[p]];
            oclconv_filter *f = few_level_filter(rng, (b + p) % KINDS, fw, fh);
            oclconv_options opt = options_for(OCLCONV_METHOD_RUNS, (oclconv_border)b,
                                              (float)rng_uniform(rng, -20, 300));
            if (rng_next(rng) % 3 == 0) {
                opt.scale = (float)rng_uniform(rng, 0.5, 2);
                opt.delta = (float)rng_uniform(rng, -10, 10);
            }
            cases += check_sizes(ctx, rng, "runs", tp, cn, f, &opt, 0, 0);
            oclconv_filter_destroy(f);
        }
    printf("runs: %ld cases\n", cases);
}

/* The widest sums: every value at the type's maximum under a 63x63 disc
 * (u8) and a 31x31 ring (u16, CONSTANT at the maximum too), and a filter of
 * distinct taps, each a run of its own. */
static void full_scale(oclconv_context *ctx, uint64_t *rng)
{
    static const struct {
        oclconv_type type;
        int cn, size, kind;
        oclconv_border border;
    } cases[] = {{OCLCONV_U8, 1, 63, DISC, OCLCONV_BORDER_REFLECT101},
                 {OCLCONV_U16, 2, 31, RING, OCLCONV_BORDER_CONSTANT},
                 {OCLCONV_U16, 3, 9, KINDS, OCLCONV_BORDER_NORMALIZE}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        oclconv_filter *f = cases[c].kind == KINDS
                                ? filter_for(OCLCONV_METHOD_BUFFER, rng, cases[c].size, cases[c].size)
                                : few_level_filter(rng, cases[c].kind, cases[c].size, cases[c].size);
        oclconv_image src = image_random(rng, 70, 45, cases[c].cn, cases[c].type, 0);
        if (cases[c].kind != KINDS)
            memset(src.data, 0xff, image_bytes(&src));
        oclconv_options opt = options_for(OCLCONV_METHOD_RUNS, cases[c].border,
                                          cases[c].type == OCLCONV_U8 ? 255 : 65535);
        char label[160];
        snprintf(label, sizeof label, "runs %dx%d on 70x45 %s cn=%d %s", cases[c].size,
                 cases[c].size, type_name(cases[c].type), cases[c].cn, border_name(opt.border));
        check_one(ctx, &src, cases[c].type, 0, f, &opt, label);
        image_free(&src);
        oclconv_filter_destroy(f);
    }
}

/* Float images whose prefix sums cannot keep every sum, which are made
 * again directly: a black third (exact zeros, runs of which add nothing)
 * beside bright values, under a disc and a ring of both signs; rows whose
 * left half is 10^12 times their right half, and rows that hold one value
 * of 1e30, whose prefix sums swamp the values after them; a NaN and an
 * infinity, which reach every sum over their taps, zero taps too; one of
 * them in strips under a device-memory cap. */
static void float_sums(oclconv_context *ctx, uint64_t *rng)
{
    static const oclconv_border borders[6] = {
        OCLCONV_BORDER_CLAMP,      OCLCONV_BORDER_ZERO,     OCLCONV_BORDER_REFLECT101,
        OCLCONV_BORDER_NORMALIZE, OCLCONV_BORDER_CONSTANT, OCLCONV_BORDER_WRAP};
    for (int k = 0; k < 6; k++) {
        int n = k < 3 ? 23 : 31, cn = k == 5 ? 4 : 1 + k % 3;
        oclconv_filter *f = few_level_filter(rng, k % 2 ? RING : DISC, n, n);
        oclconv_image src = image_random(rng, 150, 97, cn, OCLCONV_F32, 0);
        size_t values = (size_t)src.width * src.height * (size_t)cn;
        for (size_t i = 0; i < values; i++) {
            float *v = (float *)src.data + i;
            size_t x = i / (size_t)cn % (size_t)src.width, y = i / ((size_t)cn * (size_t)src.width);
            if (k < 2 && x < (size_t)src.width / 3)
                *v = 0;
            else if (k == 2 && x < (size_t)src.width / 2)
                *v *= 1e12f;
            else if (k == 3 && x == 20 && y == 30)
                *v = NAN;
            else if (k == 4 && x == 120 && y == 60)
                *v = INFINITY;
            else if (k == 5 && x == 10 && y >= 30 && y < 50)
                *v = 1e30f;
        }
        oclconv_options opt = options_for(OCLCONV_METHOD_RUNS, borders[k], 0.25f);
        if (k == 1)
            opt.max_device_bytes = 256 << 10; /* in strips: their prefix rows and counts */
        char label[80];
        snprintf(label, sizeof label, "runs float sums, case %d (%dx%d, %d channels)", k, n, n,
                 cn);
        check_one(ctx, &src, OCLCONV_F32, 0, f, &opt, label);
        image_free(&src);
        oclconv_filter_destroy(f);
    }
}

/* AUTO's rules take the runs for a 31x31 disc, and for a 15x15 one in CPU
 * shapes only (GPUs' direct sum is faster there), float images in CPU
 * shapes only (GPUs' FFT is faster); not for a filter of distinct taps.
 * Forced, it refuses float images to integer results. */
static void choices(oclconv_context *ctx, uint64_t *rng, int own_shapes)
{
    cl_device_type type = 0;
    clGetDeviceInfo(oclconv_cl_device(ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    int cpu_shapes = own_shapes == ((type & CL_DEVICE_TYPE_CPU) != 0);
    oclconv_filter *discs[2] = {few_level_filter(rng, DISC, 31, 31),
                                few_level_filter(rng, DISC, 15, 15)};
    oclconv_filter *any = filter_for(OCLCONV_METHOD_BUFFER, rng, 7, 7);
    const oclconv_type types[] = {OCLCONV_U8, OCLCONV_U16, OCLCONV_F32};
    for (int t = 0; t < 3; t++) {
        oclconv_image src = image_random(rng, 40, 30, 1, types[t], 0);
        oclconv_image dst = image_like(&src, types[t], 0);
        oclconv_options opt = options_for(OCLCONV_METHOD_AUTO, OCLCONV_BORDER_CLAMP, 0);
        for (int d = 0; d < 2; d++) {
            ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, discs[d], &opt));
            ASSERT_EQ(oclconv_last_method(ctx) == OCLCONV_METHOD_RUNS,
                      cpu_shapes || (d == 0 && types[t] != OCLCONV_F32));
        }
        ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, any, &opt));
        ASSERT(oclconv_last_method(ctx) != OCLCONV_METHOD_RUNS);
        opt.method = OCLCONV_METHOD_RUNS;
        if (types[t] == OCLCONV_F32) {
            oclconv_image to_int = image_like(&src, OCLCONV_U8, 0);
            ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &to_int, discs[0], &opt),
                          OCLCONV_E_UNSUPPORTED);
            ASSERT_CONTAINS(oclconv_errmsg(ctx), "8- and 16-bit");
            image_free(&to_int);
        }
        image_free(&src);
        image_free(&dst);
    }
    oclconv_filter_destroy(discs[0]);
    oclconv_filter_destroy(discs[1]);
    oclconv_filter_destroy(any);
}

static int runs_body(oclconv_context *ctx, uint64_t *rng, int kind, int own_shapes)
{
    (void)kind;
    sweep(ctx, rng);
    full_scale(ctx, rng);
    float_sums(ctx, rng);
    in_place(ctx, OCLCONV_METHOD_RUNS, rng);
    static const oclconv_border borders[4] = {OCLCONV_BORDER_REFLECT, OCLCONV_BORDER_WRAP,
                                              OCLCONV_BORDER_CONSTANT, OCLCONV_BORDER_NORMALIZE};
    oclconv_filter *ring = few_level_filter(rng, RING, 13, 11);
    in_parts(ctx, OCLCONV_METHOD_RUNS, rng, ring, borders); /* prefix sums in the budget too */
    oclconv_filter_destroy(ring);
    choices(ctx, rng, own_shapes);
    return test_failures;
}

static const case_set sets[] = {
    {0, 0, 20, "runs"},
    {1, 0, 21, "runs"},
};

int main(void)
{
    return run_case_sets(sets, sizeof sets / sizeof *sets, runs_body);
}
