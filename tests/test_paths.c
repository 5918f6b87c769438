/*
 * Every path against the CPU reference: each border, type pair and channel
 * count, on images whose sizes are multiples of nothing (1x1, 1xN, Nx1,
 * primes, thinner than the filter), with random filters, strides, scale and
 * delta; plus the worked example of seed 004, conversions, outliers, offset
 * and in-place images, filters far larger than the image and NORMALIZE's
 * edges.  Each path in the device's kernel shapes and the other device
 * type's, a set of cases in a child process each (tests/path_check.c).
 */
#include "path_check.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

static void sweep(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    long cases = 0;
    int fold_shape[TYPE_PAIRS];
    for (int tp = 0; tp < TYPE_PAIRS; tp++)
        fold_shape[tp] = (int)(rng_next(rng) % SHAPES);
    for (int b = OCLCONV_BORDER_CLAMP; b <= OCLCONV_BORDER_NORMALIZE; b++)
        for (size_t tp = 0; tp < sizeof type_pairs / sizeof *type_pairs; tp++) {
            /* Each border meets every channel count, and so does each type
             * pair, without building all their combinations; one filter
             * shape per program, every size through it.  The four borders
             * that fold the image onto itself (k 0), which CPU kernels take
             * at run time (src/program.c oclconv__fold()), share a type
             * pair's shape and channel count, so that on CPUs they go
             * through one program, as users' calls do; ZERO, CONSTANT and
             * NORMALIZE take the other three counts. */
            int k = b == OCLCONV_BORDER_ZERO       ? 1
                    : b == OCLCONV_BORDER_CONSTANT ? 2
                    : b == OCLCONV_BORDER_NORMALIZE ? 3
                                                    : 0;
            int cn = 1 + (int)(tp + (size_t)k) % 4;
            {
                int shape = k == 0 ? fold_shape[tp] : (int)(rng_next(rng) % SHAPES);
                oclconv_filter *f = filter_for(method, rng, shapes[shape][0], shapes[shape][1]);
                oclconv_options opt = options_for(method, (oclconv_border)b,
                                                  (float)rng_uniform(rng, -20, 300));
                if (rng_next(rng) % 3 == 0) {
                    opt.scale = (float)rng_uniform(rng, 0.5, 2);
                    opt.delta = (float)rng_uniform(rng, -10, 10);
                }
                for (size_t sz = 0; sz < sizeof sizes / sizeof *sizes; sz++) {
                    size_t extra = rng_next(rng) % 2 ? rng_next(rng) % 37 : 0;
                    oclconv_image src = image_random(rng, sizes[sz][0], sizes[sz][1], cn,
                                                     type_pairs[tp].src, extra);
                    char label[200];
                    snprintf(label, sizeof label, "%s %s %s->%s cn=%d %dx%d filter %dx%d",
                             oclconv_method_name(method), border_name(opt.border),
                             type_name(src.type), type_name(type_pairs[tp].dst), cn, src.width,
                             src.height, shapes[shape][0], shapes[shape][1]);
                    check_one(ctx, &src, type_pairs[tp].dst, rng_next(rng) % 2 ? 12 : 0, f, &opt,
                              label);
                    image_free(&src);
                    cases++;
                }
                oclconv_filter_destroy(f);
            }
        }
    printf("%s: %ld cases\n", oclconv_method_name(method), cases);
}

/* PMPP's worked example (seed 004): x = [8,2,5,4,1,7,3], f = [1,3,5,3,1],
 * zero borders -> [51,53,52,47,46,51,37], exactly, in u8 and f32. */
static void worked_example(oclconv_context *ctx, oclconv_method method)
{
    static const float f5[5] = {1, 3, 5, 3, 1};
    static const int expect[7] = {51, 53, 52, 47, 46, 51, 37};
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_create(5, 1, f5, &f));
    unsigned char in8[7] = {8, 2, 5, 4, 1, 7, 3}, out8[7] = {0};
    float inf[7], outf[7] = {0};
    for (int i = 0; i < 7; i++)
        inf[i] = in8[i];
    oclconv_options opt = options_for(method, OCLCONV_BORDER_ZERO, 0);
    oclconv_image s8 = {in8, 7, 1, 1, OCLCONV_U8, 0}, d8 = {out8, 7, 1, 1, OCLCONV_U8, 0};
    oclconv_image sf = {inf, 7, 1, 1, OCLCONV_F32, 0}, df = {outf, 7, 1, 1, OCLCONV_F32, 0};
    ASSERT_OK(ctx, oclconv_apply(ctx, &s8, &d8, f, &opt));
    ASSERT_OK(ctx, oclconv_apply(ctx, &sf, &df, f, &opt));
    for (int i = 0; i < 7; i++) {
        ASSERT_EQ(out8[i], expect[i]);
        ASSERT(outf[i] == (float)expect[i]);
    }
    oclconv_filter_destroy(f);
}

/* Float values to u8 and u16 through a 1x1 separable filter of weight 1 (a box
 * too, so every path takes it): halves round
 * to even, out-of-range values saturate, NaN gives 0 (convert_*_sat_rte),
 * exactly, where the sweep's tolerance would take either neighbour of a tie. */
static void conversions(oclconv_context *ctx, oclconv_method method)
{
    static float in[] = {0.5f,   1.5f,    2.5f,      -0.5f,     -0.49f,    0.49f,
                               254.5f, 255.5f,  253.5f,    300,       -3,        65534.5f,
                               65535.5f, 1e9f,  -1e9f,     NAN,       INFINITY,  -INFINITY};
    static const int u8[] = {0, 2, 2, 0, 0, 0, 254, 255, 254, 255, 0, 255, 255, 255, 0, 0, 255, 0};
    static const int u16[] = {0,     2,     2,     0, 0, 0, 254, 256, 254, 300, 0, 65534,
                              65535, 65535, 0,     0, 65535, 0};
    enum { N = sizeof in / sizeof *in };
    int n = N;
    static const float one = 1;
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_separable(1, &one, 1, &one, &f));
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = method;
    unsigned char out8[N];
    unsigned short out16[N];
    oclconv_image src = {in, n, 1, 1, OCLCONV_F32, 0};
    oclconv_image d8 = {out8, n, 1, 1, OCLCONV_U8, 0}, d16 = {out16, n, 1, 1, OCLCONV_U16, 0};
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &d8, f, &opt));
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &d16, f, &opt));
    for (int i = 0; i < n; i++) {
        if (out8[i] != u8[i] || out16[i] != u16[i])
            fprintf(stderr, "%s: %g became u8 %d (want %d), u16 %d (want %d)\n",
                    oclconv_method_name(method), in[i], out8[i], u8[i], out16[i], u16[i]);
        ASSERT_EQ(out8[i], u8[i]);
        ASSERT_EQ(out16[i], u16[i]);
    }
    oclconv_filter_destroy(f);
}

/* Float images with outliers: NaN, both infinities, +-1e30 and a patch
 * of values near 1e-20.  Each result depends on its own window only: a
 * non-finite value spoils just the windows that hold it, and a window of
 * tiny values next to huge ones is still within 1e-5 of its own terms. */
static void outliers(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    static const oclconv_border borders[] = {OCLCONV_BORDER_CLAMP, OCLCONV_BORDER_CONSTANT,
                                             OCLCONV_BORDER_REFLECT101, OCLCONV_BORDER_NORMALIZE};
    static const float odd[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f};
    for (size_t b = 0; b < sizeof borders / sizeof *borders; b++) {
        int cn = b % 2 ? 3 : 1, fw = b % 2 ? 7 : 3, fh = b < 2 ? 5 : 9;
        oclconv_image src = image_random(rng, 61, 29, cn, OCLCONV_F32, 0);
        float *v = src.data;
        for (int y = 18; y < 29; y++) /* the tiny patch, rows 18.. */
            for (int x = 30 * cn; x < 61 * cn; x++)
                v[(size_t)y * 61 * cn + x] *= 1e-20f;
        /* The outliers in rows 0..9; no +-1e30 for u8 results, where even
         * the reference's double sums cannot cancel them exactly. */
        oclconv_type dst = b == 2 ? OCLCONV_U8 : OCLCONV_F32;
        for (int k = 0; k < 10; k++)
            v[rng_next(rng) % (10 * 61 * (size_t)cn)] = odd[k % (dst == OCLCONV_U8 ? 3 : 5)];
        oclconv_filter *f = filter_for(method, rng, fw, fh);
        oclconv_options opt = options_for(method, borders[b], 2);
        char label[160];
        snprintf(label, sizeof label, "outliers %s %dx%d cn=%d %s", oclconv_method_name(method),
                 fw, fh, cn, border_name(opt.border));
        check_one(ctx, &src, dst, 0, f, &opt, label);
        oclconv_filter_destroy(f);
        image_free(&src);
    }
}

/* Images whose data start one value past a 16-byte boundary, as a crop of
 * a larger buffer does: aligned to their type, as the API asks, but not to
 * their 8- or 16-byte pixels, which the kernels load and store whole. */
static void offset_pixels(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    static const struct {
        oclconv_type type;
        int cn;
    } cases[] = {{OCLCONV_F32, 4}, {OCLCONV_F32, 2}, {OCLCONV_U16, 4}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        oclconv_image packed = image_random(rng, 37, 23, cases[c].cn, cases[c].type, 0);
        size_t vs = value_size(cases[c].type);
        size_t bytes = (size_t)packed.width * (size_t)packed.height * (size_t)packed.channels * vs;
        unsigned char *in = malloc(bytes + vs), *out = malloc(bytes + vs);
        ASSERT(in && out);
        memcpy(in + vs, packed.data, bytes);
        oclconv_image src = packed, dst = packed;
        src.data = in + vs;
        dst.data = out + vs;
        oclconv_filter *f = filter_for(method, rng, 5, 5);
        oclconv_options opt;
        oclconv_options_init(&opt);
        opt.method = method;
        char label[96];
        snprintf(label, sizeof label, "%s %s cn=%d one value off a 16-byte boundary",
                 oclconv_method_name(method), type_name(src.type), src.channels);
        apply_and_compare(ctx, &src, &dst, &packed, f, &opt, label);
        oclconv_filter_destroy(f);
        free(in);
        free(out);
        image_free(&packed);
    }
}

/* Filters far larger than the image: reflections repeat, wraps take the
 * modulus, NORMALIZE keeps only the in-image taps. */
static void huge_filter(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    oclconv_filter *f = filter_for(method, rng, 9, 9);
    for (int b = OCLCONV_BORDER_CLAMP; b <= OCLCONV_BORDER_NORMALIZE; b++) {
        oclconv_options opt = options_for(method, (oclconv_border)b, 0);
        oclconv_image src = image_random(rng, 2, 3, 1, OCLCONV_F32, 0);
        char label[128];
        snprintf(label, sizeof label, "%s 9x9 filter on 2x3 %s", oclconv_method_name(method),
                 border_name(opt.border));
        check_one(ctx, &src, OCLCONV_F32, 0, f, &opt, label);
        image_free(&src);
    }
    oclconv_filter_destroy(f);
}

/* Images whose edges the 9x7 filter reaches just past, just to, or just
 * short of, in one direction or both: where one reflection or wrap stops
 * settling every tap (REFLECT and WRAP at a radius of the image's size,
 * REFLECT101 at one less) and the kernels take border_index()'s modulo. */
static void fold_limits(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    const oclconv_border borders[] = {OCLCONV_BORDER_REFLECT, OCLCONV_BORDER_REFLECT101,
                                      OCLCONV_BORDER_WRAP};
    oclconv_filter *f = filter_for(method, rng, 9, 7);
    for (size_t b = 0; b < sizeof borders / sizeof *borders; b++)
        for (int cn = 1; cn <= 4; cn += 3)
            for (int d = -1; d <= 1; d++) {
                const int dims[][2] = {{4 + d, 3 + d}, {4 + d, 40}, {40, 3 + d}};
                for (int k = 0; k < 3; k++) {
                    oclconv_options opt = options_for(method, borders[b], 0);
                    oclconv_type type = cn == 1 ? OCLCONV_F32 : OCLCONV_U8;
                    oclconv_image src = image_random(rng, dims[k][0], dims[k][1], cn, type, 0);
                    char label[128];
                    snprintf(label, sizeof label, "%s 9x7 filter on %dx%d %s cn=%d",
                             oclconv_method_name(method), src.width, src.height,
                             border_name(opt.border), cn);
                    check_one(ctx, &src, type, 0, f, &opt, label);
                    image_free(&src);
                }
            }
    oclconv_filter_destroy(f);
}

/* A sum of floats as the kernels add weights: in float, in order. */
static float float_sum(const float *w, int n)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += w[i];
    return s;
}

/* f under NORMALIZE gives CLAMP's results to the bit wherever every tap
 * lies in the image, on f32 images of 1 and 4 channels. */
static void inside_as_clamp(oclconv_context *ctx, oclconv_method method, const oclconv_filter *f,
                            const char *what, uint64_t *rng)
{
    enum { W = 70, H = 37 };
    int fw, fh;
    oclconv_filter_size(f, &fw, &fh);
    for (int cn = 1; cn <= 4; cn += 3) {
        oclconv_image src = image_random(rng, W, H, cn, OCLCONV_F32, 0), dst[2];
        const oclconv_border borders[2] = {OCLCONV_BORDER_CLAMP, OCLCONV_BORDER_NORMALIZE};
        for (int b = 0; b < 2; b++) {
            dst[b] = image_like(&src, OCLCONV_F32, 0);
            oclconv_options opt = options_for(method, borders[b], 0);
            ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst[b], f, &opt));
        }
        long bad = 0;
        for (int y = fh / 2; y < H - fh / 2; y++) {
            size_t at = ((size_t)y * W + (size_t)fw / 2) * (size_t)cn;
            size_t n = (size_t)(W - fw + 1) * (size_t)cn;
            const float *a = (const float *)dst[0].data + at, *b = (const float *)dst[1].data + at;
            for (size_t k = 0; k < n; k++)
                bad += memcmp(a + k, b + k, sizeof *a) != 0;
        }
        if (bad)
            TEST_FAIL_("%s %s cn=%d: NORMALIZE differs from CLAMP inside the image in %ld values",
                       oclconv_method_name(method), what, cn, bad);
        image_free(&dst[0]);
        image_free(&dst[1]);
        image_free(&src);
    }
}

/* NORMALIZE rescales by all the weights over those in the image: by 1
 * where every tap lies in the image, so there its results are CLAMP's to
 * the bit, even where the kernels' float sum of the weights, taken in
 * order, is not their exact sum rounded once (the filter is drawn until it
 * is so, for the row, the column and the 2-D weights); and for a box
 * through the separable path, whose GPU tiles add the values of equal
 * taps in their own order, on every route through a tile. */
static void normalize_inside(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    enum { FW = 7, FH = 5 };
    oclconv_filter *f = NULL;
    if (method == OCLCONV_METHOD_BOX)
        ASSERT_OK(NULL, oclconv_filter_box(FW / 2, FH / 2, &f));
    for (int tries = 0; !f; tries++) {
        float row[FW], col[FH], w[FW * FH];
        double rs = 0, cs = 0, ws = 0;
        for (int i = 0; i < FW; i++)
            rs += row[i] = (float)rng_uniform(rng, 0.05, 1);
        for (int j = 0; j < FH; j++)
            cs += col[j] = (float)rng_uniform(rng, 0.05, 1);
        for (int j = 0; j < FH; j++)
            for (int i = 0; i < FW; i++) {
                ws += (double)col[j] * row[i];
                w[j * FW + i] = (float)((double)col[j] * row[i]);
            }
        if (float_sum(row, FW) != (float)rs && float_sum(col, FH) != (float)cs &&
            float_sum(w, FW * FH) != (float)ws)
            ASSERT_OK(NULL, oclconv_filter_separable(FW, row, FH, col, &f));
        if (tries == 1000) {
            fprintf(stderr, "no filter whose float sums are inexact in 1000 draws\n");
            exit(TEST_HARD_ERROR);
        }
    }
    inside_as_clamp(ctx, method, f, "drawn filter", rng);
    oclconv_filter_destroy(f);
    if (method == OCLCONV_METHOD_SEPARABLE) {
        ASSERT_OK(NULL, oclconv_filter_box(3, 4, &f));
        inside_as_clamp(ctx, method, f, "box 7x9", rng);
        oclconv_filter_destroy(f);
    }
}

/* NORMALIZE with a subnormal centre tap on an image one pixel wide: the
 * rescale, all the taps over the centre's, passes a float's range (2e39),
 * and the result must still be twice the pixel, saturated. */
static void normalize_tiny_centre(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    const float row[3] = {1, 1e-39f, 1};
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_create(3, 1, row, &f));
    oclconv_options opt = options_for(method, OCLCONV_BORDER_NORMALIZE, 0);
    oclconv_image src = image_random(rng, 1, 9, 1, OCLCONV_U8, 0);
    char label[96];
    snprintf(label, sizeof label, "%s NORMALIZE with a subnormal centre tap on 1x9",
             oclconv_method_name(method));
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(oclconv_cl_device(ctx), CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    if (fp64) {
        check_one(ctx, &src, OCLCONV_U8, 0, f, &opt, label);
    } else { /* floats cannot hold the rescale: a clear refusal */
        oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
        ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &dst, f, &opt), OCLCONV_E_UNSUPPORTED);
        ASSERT_CONTAINS(oclconv_errmsg(ctx), "float's range");
        image_free(&dst);
    }
    image_free(&src);
    oclconv_filter_destroy(f);
}

/* A path's cases, in the device's own kernel shapes (own_shapes), or in
 * the other device type's (OCLCONV_TUNE) all but the worked example and
 * the huge filter. */
/* Random 13x13 and 15x15 filters of positive weights on 8-bit images, past
 * what one float sum's bound allows: the tiled and buffer paths sum each
 * tap row in float and the rows' sums in double (test_plan pins that
 * choice), under four borders, 1, 2 and 4 channels, every size and 67x45;
 * and so do float results, of 8-bit and of float images (weights of both
 * signs there). */
static void row_sums(oclconv_context *ctx, oclconv_method m, uint64_t *rng)
{
    static const struct {
        oclconv_border border;
        int n, cn, pair;
    } cases[] = {{OCLCONV_BORDER_CLAMP, 13, 1, 0},      {OCLCONV_BORDER_CONSTANT, 15, 4, 0},
                 {OCLCONV_BORDER_WRAP, 13, 2, 0},       {OCLCONV_BORDER_REFLECT101, 15, 4, 0},
                 {OCLCONV_BORDER_REFLECT, 15, 1, 2},    {OCLCONV_BORDER_CONSTANT, 13, 3, 2},
                 {OCLCONV_BORDER_REFLECT101, 15, 4, 3}};
    long count = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int n = cases[c].n;
        float w[15 * 15];
        int pair = cases[c].pair;
        for (int k = 0; k < n * n; k++)
            w[k] = (float)rng_uniform(rng, pair == 2 ? -0.5 : 0.01, 1.0) / (float)(n * n);
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_create(n, n, w, &f));
        oclconv_options opt = options_for(m, cases[c].border, (float)rng_uniform(rng, 0, 255));
        if (cases[c].border == OCLCONV_BORDER_CONSTANT) {
            opt.scale = 1.5f;
            opt.delta = -3.25f;
        }
        count += check_sizes(ctx, rng, "row sums", &type_pairs[pair], cases[c].cn, f, &opt, 67,
                             45);
        oclconv_filter_destroy(f);
    }
    printf("row sums: %ld cases\n", count);
}

static void path_cases(oclconv_context *ctx, oclconv_method m, uint64_t *rng, int own_shapes)
{
    if (m == OCLCONV_METHOD_TILED || m == OCLCONV_METHOD_BUFFER)
        row_sums(ctx, m, rng);
    if (own_shapes && m != OCLCONV_METHOD_BOX) /* the example's filter is no box */
        worked_example(ctx, m);
    conversions(ctx, m);
    outliers(ctx, m, rng);
    in_place(ctx, m, rng);
    offset_pixels(ctx, m, rng);
    if (own_shapes)
        huge_filter(ctx, m, rng);
    fold_limits(ctx, m, rng);
    normalize_inside(ctx, m, rng);
    if (m != OCLCONV_METHOD_BOX)
        normalize_tiny_centre(ctx, m, rng);
    sweep(ctx, m, rng);
}

static int path_body(oclconv_context *ctx, uint64_t *rng, int method, int own_shapes)
{
    path_cases(ctx, (oclconv_method)method, rng, own_shapes);
    return test_failures;
}

/* The image kernel has no other shape; the tiled kernel's CPU shape (one
 * row a work-item, as its GPU shape past 15x15 and for most float filters)
 * is left to test_edges, test_mixed and test_batch.  Seeds as when these
 * sets and test_mixed's were one program's. */
static const case_set sets[] = {
    {0, OCLCONV_METHOD_SEPARABLE, 4, "separable"}, {1, OCLCONV_METHOD_TILED, 5, "tiled"},
    {0, OCLCONV_METHOD_IMAGE, 6, "image"},         {0, OCLCONV_METHOD_BOX, 7, "box"},
    {0, OCLCONV_METHOD_BUFFER, 8, "buffer"},       {1, OCLCONV_METHOD_SEPARABLE, 9, "separable"},
    {1, OCLCONV_METHOD_BUFFER, 10, "buffer"},      {1, OCLCONV_METHOD_BOX, 11, "box"},
};

/* Filters of few-bit weights put 8-bit results on exact halves, which every
 * path and AUTO round half to even as the reference does, at every pixel
 * and in both kernel shapes: bilinear (exact factors only through its
 * 0.25), [1 2 1] squared, and one of rank one without exact factors, which
 * the separable path refuses and AUTO runs directly.  NORMALIZE's rescale
 * is not of few bits, and is left to the sweeps. */
static void exact_halves(void)
{
    static const float kernels[3][9] = {
        {0, 0, 0, 0, 0.25f, 0.75f, 0, 0, 0},
        {0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f, 0.125f, 0.0625f, 0.125f, 0.0625f},
        {9 / 64.f, 15 / 64.f, 0, 15 / 64.f, 25 / 64.f, 0, 0, 0, 0}};
    static const oclconv_method methods[] = {OCLCONV_METHOD_AUTO, OCLCONV_METHOD_BUFFER,
                                             OCLCONV_METHOD_IMAGE, OCLCONV_METHOD_TILED,
                                             OCLCONV_METHOD_SEPARABLE, OCLCONV_METHOD_RUNS,
                                             OCLCONV_METHOD_FFT};
    oclconv_context *ctx = test_context();
    uint64_t rng = 12;
    for (int other = 0; other < 2; other++) {
        const char *shape_name = use_shapes(ctx, other);
        for (int k = 0; k < 3; k++) {
            oclconv_filter *f;
            ASSERT_OK(NULL, oclconv_filter_create(3, 3, kernels[k], &f));
            for (int b = OCLCONV_BORDER_CLAMP; b < OCLCONV_BORDER_NORMALIZE; b++) {
                /* A border's channel count the same for the three filters,
                 * whose calls then share its programs. */
                int cn = 1 + b % 4;
                oclconv_image src = image_random(&rng, 61, 37, cn, OCLCONV_U8, 0);
                oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
                oclconv_options opt = border_options((oclconv_border)b, 7);
                ref_result ref = ref_of_filter(&src, f, &opt);
                for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
                    opt.method = methods[m];
                    oclconv_status s = oclconv_apply(ctx, &src, &dst, f, &opt);
                    if (k == 2 && opt.method == OCLCONV_METHOD_SEPARABLE) {
                        ASSERT_EQ(s, OCLCONV_E_UNSUPPORTED);
                        continue;
                    }
                    if (k == 2 && opt.method == OCLCONV_METHOD_AUTO)
                        ASSERT(oclconv_last_method(ctx) != OCLCONV_METHOD_SEPARABLE);
                    if (s != OCLCONV_OK) {
                        TEST_FAIL_("filter %d %s by %s (%s): %s", k, border_name(opt.border),
                                   oclconv_method_name(opt.method), shape_name, oclconv_errmsg(ctx));
                        continue;
                    }
                    long off = 0, ties = 0;
                    const unsigned char *got = dst.data;
                    for (size_t i = 0; i < (size_t)src.width * src.height * cn; i++) {
                        double v = ref.value[i], want = fmin(fmax(rint(v), 0), 255);
                        ties += v - floor(v) == 0.5;
                        off += got[i] != want;
                    }
                    if (off || !ties)
                        TEST_FAIL_("filter %d %s by %s (%s): %ld of %ld values off the "
                                   "reference's rounding (%ld exact halves)", k,
                                   border_name(opt.border), oclconv_method_name(opt.method),
                                   shape_name, off, (long)src.width * src.height * cn, ties);
                }
                ref_result_free(&ref);
                image_free(&src);
                image_free(&dst);
            }
            oclconv_filter_destroy(f);
        }
    }
    oclconv_destroy(ctx);
}

int main(void)
{
    int failed = run_case_sets(sets, sizeof sets / sizeof *sets, path_body);
    exact_halves();
    return failed ? failed : test_exit();
}
