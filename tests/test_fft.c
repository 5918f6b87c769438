/*
 * The FFT path (large 2-D filters in tiles; float results too) against
 * the CPU reference: random filters on every border it takes, type pair
 * and channel count, the sizes that are multiples of nothing, filters
 * larger than the image, several tiles and tile groups, a last group of
 * fewer planes; sums at the bound's reach (every value at the type's
 * maximum, checkerboards under a dominant tap), results 2^-9 either side
 * of a tie; float sums far under the image's largest value, NaN and
 * infinities; in place, in bands and strips, in batches; AUTO's choice of
 * it, and its refusals (dyadic filters' exact ties are test_paths' exact
 * halves).  In the device's kernel shapes and
 * the other device type's, a set of cases in a child process each
 * (tests/path_check.c).
 */
#include "path_check.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The type pairs (type_pairs' indices) the path takes: every one but
 * float images to integer results. */
static const int fft_pairs[] = {0, 1, 5, 2, 3};
enum { FFT_PAIRS = sizeof fft_pairs / sizeof *fft_pairs };

static oclconv_options fft_options(oclconv_border b, float value)
{
    return options_for(OCLCONV_METHOD_FFT, b, value);
}

static void sweep(oclconv_context *ctx, uint64_t *rng)
{
    static const int fft_shapes[][2] = {{3, 3}, {7, 7}, {9, 5}, {1, 9}, {15, 15}, {5, 1}, {21, 17}};
    enum { N_SHAPES = sizeof fft_shapes / sizeof *fft_shapes };
    long cases = 0;
    for (int b = OCLCONV_BORDER_CLAMP; b < OCLCONV_BORDER_NORMALIZE; b++)
        for (int p = 0; p < FFT_PAIRS; p++) {
            int cn = 1 + (p + b) % 4, shape = (int)(rng_next(rng) % N_SHAPES);
            int fw = fft_shapes[shape][0], fh = fft_shapes[shape][1];
            const type_pair *tp = &type_pairs[fft_pairs[p]];
            oclconv_filter *f = filter_for(OCLCONV_METHOD_BUFFER, rng, fw, fh);
            oclconv_options opt = fft_options((oclconv_border)b, (float)rng_uniform(rng, -20, 300));
            if (rng_next(rng) % 3 == 0) {
                opt.scale = (float)rng_uniform(rng, 0.5, 2);
                opt.delta = (float)rng_uniform(rng, -10, 10);
            }
            cases += check_sizes(ctx, rng, "fft", tp, cn, f, &opt, 83, 71); /* several tiles */
            oclconv_filter_destroy(f);
        }
    printf("fft: %ld cases\n", cases);
}

/* The bound's own cases: every value at the type's maximum under a 41x41
 * filter of one sign (u8) and a mixed one (u16), and checkerboards of 0 and
 * the maximum under a filter with one dominant tap, one of them larger. */
static void full_scale(oclconv_context *ctx, uint64_t *rng)
{
    for (int c = 0; c < 4; c++) {
        oclconv_type type = c % 2 ? OCLCONV_U16 : OCLCONV_U8;
        int n = c < 2 ? 41 : 25, max = type == OCLCONV_U8 ? 255 : 65535;
        float *w = malloc((size_t)n * n * sizeof *w);
        ASSERT(w != NULL);
        double sum = 0;
        for (int k = 0; k < n * n; k++)
            sum += w[k] = (float)rng_uniform(rng, c == 1 ? -0.5 : 0.01, 1.0);
        if (c >= 2)
            sum += w[n * n / 2] = (float)(20 * sum);
        for (int k = 0; k < n * n; k++)
            w[k] = (float)(w[k] / sum);
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_create(n, n, w, &f));
        free(w);
        oclconv_image src = image_random(rng, c == 3 ? 700 : 90, c == 3 ? 500 : 77, 1 + c % 3,
                                         type, 0);
        size_t values = (size_t)src.width * src.height * (size_t)src.channels;
        for (size_t i = 0; i < values; i++) {
            int on = c < 2 || (i / (size_t)src.channels % (size_t)src.width + i /
                               ((size_t)src.channels * (size_t)src.width)) % 2;
            if (type == OCLCONV_U8)
                ((unsigned char *)src.data)[i] = (unsigned char)(on ? max : 0);
            else
                ((unsigned short *)src.data)[i] = (unsigned short)(on ? max : 0);
        }
        oclconv_options opt = fft_options(c == 1 ? OCLCONV_BORDER_CONSTANT : OCLCONV_BORDER_WRAP,
                                          (float)max);
        char label[160];
        snprintf(label, sizeof label, "fft %dx%d at full scale %s cn=%d %dx%d %s", n, n,
                 type_name(type), src.channels, src.width, src.height, border_name(opt.border));
        check_one(ctx, &src, type, 0, f, &opt, label);
        image_free(&src);
        oclconv_filter_destroy(f);
    }
}

/* Images of more planes than a group holds and some left: on CPUs a 3x3
 * filter takes tiles of 32, 4096 planes a group (3072 of 3 channels:
 * whole tiles'), and these images 4154 planes (gray), 4216 (RGBA) and
 * 3366 (RGB), a pixel's channels a work-item where there are several, so
 * the last group runs through a plan of its own. */
static void group_remainders(oclconv_context *ctx, uint64_t *rng)
{
    static const int remainder_images[3][3] = {{1990, 1850, 1}, {1000, 930, 4}, {1000, 990, 3}};
    oclconv_filter *f = filter_for(OCLCONV_METHOD_BUFFER, rng, 3, 3);
    for (int k = 0; k < 3; k++) {
        oclconv_image src = image_random(rng, remainder_images[k][0], remainder_images[k][1],
                                         remainder_images[k][2], OCLCONV_U8, 0);
        oclconv_options opt = fft_options(OCLCONV_BORDER_REFLECT, 0);
        char label[80];
        snprintf(label, sizeof label, "fft group remainder cn=%d %dx%d", src.channels,
                 src.width, src.height);
        ASSERT_EQ(check_one(ctx, &src, OCLCONV_U8, 0, f, &opt, label), 0);
        image_free(&src);
    }
    oclconv_filter_destroy(f);
}

/* Exact results 2^-9 (twice the contract's window) above and below a tie,
 * which must round as the reference does, and on exact ties (weights of
 * 2^-9 multiples, whose sums the path snaps to their grid). */
static void near_ties(oclconv_context *ctx, uint64_t *rng)
{
    enum { N = 19 };
    for (int k = 0; k < 3; k++) {
        float w[N * N] = {0};
        w[N * N / 2] = 0.5f;
        w[N * N / 2 + 1] = k == 0 ? 0x1p-9f : k == 1 ? -0x1p-9f : 0;
        w[0] = k == 2 ? 0.25f : 0;
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_create(N, N, w, &f));
        oclconv_image src = image_random(rng, 57, 43, 1 + k, OCLCONV_U8, 0);
        unsigned char *v = src.data;
        for (size_t i = 0; i < (size_t)57 * 43 * src.channels; i++)
            v[i] = (unsigned char)(v[i] | 1); /* odd: v / 2 is a half */
        oclconv_options opt = fft_options(OCLCONV_BORDER_REFLECT101, 0);
        char label[80];
        snprintf(label, sizeof label, "fft near ties %d cn=%d", k, src.channels);
        ASSERT_EQ(check_one(ctx, &src, OCLCONV_U8, 0, f, &opt, label), 0);
        image_free(&src);
        oclconv_filter_destroy(f);
    }
}

/* AUTO's rules take the FFT for a random 31x31 filter on every type, for
 * a 27x27 one except on float images in GPU shapes (their direct sums
 * hold out longer), not for a 5x5 one, not for a disc (its runs); forced,
 * it refuses float images, NORMALIZE and filters wider than its tiles,
 * each with a message. */
static void choices(oclconv_context *ctx, uint64_t *rng)
{
    oclconv_filter *large = filter_for(OCLCONV_METHOD_BUFFER, rng, 31, 31);
    oclconv_filter *middle = filter_for(OCLCONV_METHOD_BUFFER, rng, 27, 27);
    oclconv_filter *small = filter_for(OCLCONV_METHOD_BUFFER, rng, 5, 5);
    const oclconv_type types[] = {OCLCONV_U8, OCLCONV_U16, OCLCONV_F32};
    int gpu = gpu_shapes(ctx);
    for (int t = 0; t < 3; t++) {
        oclconv_image src = image_random(rng, 40, 30, 2, types[t], 0);
        oclconv_image dst = image_like(&src, types[t], 0);
        oclconv_options opt = options_for(OCLCONV_METHOD_AUTO, OCLCONV_BORDER_REFLECT, 0);
        ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, large, &opt));
        ASSERT_EQ(oclconv_last_method(ctx), OCLCONV_METHOD_FFT);
        ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, middle, &opt));
        ASSERT_EQ(oclconv_last_method(ctx) == OCLCONV_METHOD_FFT,
                  types[t] != OCLCONV_F32 || !gpu);
        ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, small, &opt));
        ASSERT(oclconv_last_method(ctx) != OCLCONV_METHOD_FFT);
        opt.method = OCLCONV_METHOD_FFT;
        if (types[t] == OCLCONV_F32) {
            oclconv_image bytes = image_like(&src, OCLCONV_U8, 0);
            ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &bytes, large, &opt),
                          OCLCONV_E_UNSUPPORTED);
            ASSERT_CONTAINS(oclconv_errmsg(ctx), "integer results");
            image_free(&bytes);
        }
        opt.border = OCLCONV_BORDER_NORMALIZE;
        ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &dst, large, &opt), OCLCONV_E_UNSUPPORTED);
        ASSERT_CONTAINS(oclconv_errmsg(ctx), "NORMALIZE");
        image_free(&src);
        image_free(&dst);
    }
    float *w = calloc(601 * 3, sizeof *w);
    ASSERT(w != NULL);
    w[601 + 300] = 1;
    oclconv_filter *wide;
    ASSERT_OK(NULL, oclconv_filter_create(601, 3, w, &wide));
    free(w);
    oclconv_image src = image_random(rng, 50, 20, 1, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
    oclconv_options opt = fft_options(OCLCONV_BORDER_CLAMP, 0);
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &dst, wide, &opt), OCLCONV_E_UNSUPPORTED);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "tiles");
    image_free(&src);
    image_free(&dst);
    oclconv_filter_destroy(wide);
    oclconv_filter_destroy(large);
    oclconv_filter_destroy(middle);
    oclconv_filter_destroy(small);
}

/* A batch of images of three sizes and channel counts, one after another
 * and through the parts pipeline (OCLCONV_BANDS), against the reference. */
static void batched(oclconv_context *ctx, uint64_t *rng)
{
    enum { N = 3 };
    oclconv_filter *f = filter_for(OCLCONV_METHOD_BUFFER, rng, 23, 21);
    oclconv_options opt = fft_options(OCLCONV_BORDER_REFLECT101, 0);
    oclconv_image src[N], dst[N];
    ref_result ref[N];
    for (int i = 0; i < N; i++) {
        src[i] = image_random(rng, 45 + 31 * i, 38 + 13 * i, 1 + i, OCLCONV_U8, 0);
        dst[i] = image_like(&src[i], OCLCONV_U8, 0);
        ref[i] = ref_of_filter(&src[i], f, &opt);
    }
    for (int piped = 0; piped < 2; piped++) {
        if (piped)
            setenv("OCLCONV_BANDS", "2", 1);
        size_t failed = 0;
        ASSERT_OK(ctx, oclconv_apply_batch(ctx, N, src, dst, f, &opt, &failed));
        unsetenv("OCLCONV_BANDS");
        ASSERT_EQ(oclconv_last_method(ctx), OCLCONV_METHOD_FFT);
        for (int i = 0; i < N; i++) {
            char why[200] = "";
            if (ref_compare(&dst[i], &ref[i], why, sizeof why) != 0)
                TEST_FAIL_("fft batch image %d%s: %s", i, piped ? " (pipelined)" : "", why);
            memset(dst[i].data, 0, image_bytes(&dst[i]));
        }
    }
    for (int i = 0; i < N; i++) {
        image_free(&src[i]);
        image_free(&dst[i]);
        ref_result_free(&ref[i]);
    }
    oclconv_filter_destroy(f);
}

/* Float results where the transforms' error, which follows the tile's
 * norm, would pass the contract's 1e-5 of a sum's own terms: a black third
 * (exact zeros, whose sums are made again directly) beside bright values,
 * under a filter of both signs and one of one sign; values a million times
 * apart; a NaN and an infinity in one tile each; 8-bit images to float. */
static void float_sums(oclconv_context *ctx, uint64_t *rng)
{
    static const oclconv_border borders[3] = {OCLCONV_BORDER_CLAMP, OCLCONV_BORDER_ZERO,
                                              OCLCONV_BORDER_REFLECT101};
    for (int k = 0; k < 6; k++) {
        int signs = k % 2, n = k < 4 ? 23 : 31, cn = 1 + k % 3;
        oclconv_filter *f;
        float *w = malloc((size_t)n * n * sizeof *w);
        ASSERT(w != NULL);
        for (int i = 0; i < n * n; i++)
            w[i] = (float)rng_uniform(rng, signs ? -1.0 : 0.01, 1.0) / (float)(n * n);
        ASSERT_OK(NULL, oclconv_filter_create(n, n, w, &f));
        free(w);
        oclconv_type in = k == 5 ? OCLCONV_U8 : OCLCONV_F32;
        oclconv_image src = image_random(rng, 150, 97, cn, in, 0);
        size_t values = (size_t)src.width * src.height * (size_t)cn;
        for (size_t i = 0; i < values && in == OCLCONV_F32; i++) {
            float *v = (float *)src.data + i;
            size_t x = i / (size_t)cn % (size_t)src.width, y = i / ((size_t)cn * (size_t)src.width);
            if (k < 2 && x < (size_t)src.width / 3)
                *v = 0;
            else if (k == 2)
                *v = (x + y) % 7 ? *v * 1e-6f : *v * 1e3f;
            else if (k == 3 && x == 20 && y == 30)
                *v = NAN;
            else if (k == 4 && x == 120 && y == 60)
                *v = INFINITY;
        }
        if (k == 5)
            memset(src.data, 0, values / 2);
        oclconv_image dst = image_like(&src, OCLCONV_F32, 0);
        oclconv_options opt = fft_options(borders[k % 3], 0.25f);
        ref_result ref = ref_of_filter(&src, f, &opt);
        char why[200] = "";
        ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, f, &opt));
        if (ref_compare(&dst, &ref, why, sizeof why) != 0)
            TEST_FAIL_("fft float sums, case %d (%dx%d, %d channels): %s", k, n, n, cn, why);
        ref_result_free(&ref);
        image_free(&src);
        image_free(&dst);
        oclconv_filter_destroy(f);
    }
}

static int fft_body(oclconv_context *ctx, uint64_t *rng, int kind, int own_shapes)
{
    (void)kind;
    (void)own_shapes;
    sweep(ctx, rng);
    full_scale(ctx, rng);
    group_remainders(ctx, rng);
    near_ties(ctx, rng);
    float_sums(ctx, rng);
    in_place(ctx, OCLCONV_METHOD_FFT, rng);
    static const oclconv_border borders[4] = {OCLCONV_BORDER_REFLECT, OCLCONV_BORDER_WRAP,
                                              OCLCONV_BORDER_CONSTANT, OCLCONV_BORDER_CLAMP};
    oclconv_filter *f = filter_for(OCLCONV_METHOD_BUFFER, rng, 13, 11);
    in_parts(ctx, OCLCONV_METHOD_FFT, rng, f, borders);
    oclconv_filter_destroy(f);
    batched(ctx, rng);
    choices(ctx, rng);
    return test_failures;
}

static const case_set sets[] = {
    {0, 0, 30, "fft"},
    {1, 0, 31, "fft"},
};

int main(void)
{
    return run_case_sets(sets, sizeof sets / sizeof *sets, fft_body);
}
