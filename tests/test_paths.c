/*
 * Every path against the CPU reference: each border, type pair and channel
 * count, on images whose sizes are multiples of nothing (1x1, 1xN, Nx1,
 * primes, thinner than the filter), with random filters, strides, scale and
 * delta; plus the worked example of seed 004 and in-place filtering.
 */
#include "test.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct {
    oclconv_type src, dst;
} type_pairs[] = {
    {OCLCONV_U8, OCLCONV_U8},
    {OCLCONV_U16, OCLCONV_U16},
    {OCLCONV_F32, OCLCONV_F32},
    {OCLCONV_U8, OCLCONV_F32},
    {OCLCONV_F32, OCLCONV_U8},
    {OCLCONV_U8, OCLCONV_U16},
};

static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {17, 13}, {3, 2}, {67, 9}, {13, 131}};
static const int shapes[][2] = {{3, 3}, {5, 3}, {1, 5}, {7, 9}, {3, 1}};

/* A filter of the kind `method` runs: any 2-D filter, a separable one
 * (given as factors, or as a 2-D outer product to be detected), a box. */
static oclconv_filter *filter_for(oclconv_method method, uint64_t *rng, int fw, int fh);

static oclconv_filter *random_filter(uint64_t *rng, int fw, int fh)
{
    float w[81];
    double sum = 0;
    for (int k = 0; k < fw * fh; k++) {
        w[k] = (float)rng_uniform(rng, -0.3, 1.0);
        sum += w[k];
    }
    for (int k = 0; k < fw * fh; k++)
        w[k] = (float)(w[k] / sum);
    oclconv_filter *f = NULL;
    if (oclconv_filter_create(fw, fh, w, &f) != OCLCONV_OK) {
        fprintf(stderr, "filter: %s\n", oclconv_errmsg(NULL));
        exit(TEST_HARD_ERROR);
    }
    return f;
}

static oclconv_filter *filter_for(oclconv_method method, uint64_t *rng, int fw, int fh)
{
    oclconv_filter *f = NULL;
    oclconv_status s = OCLCONV_OK;
    if (method == OCLCONV_METHOD_BOX) {
        s = oclconv_filter_box(fw / 2, fh / 2, &f);
    } else if (method == OCLCONV_METHOD_SEPARABLE) {
        float row[9], col[9], w[81];
        double rs = 0, cs = 0;
        for (int i = 0; i < fw; i++)
            rs += row[i] = (float)rng_uniform(rng, -0.2, 1.0);
        for (int j = 0; j < fh; j++)
            cs += col[j] = (float)rng_uniform(rng, -0.2, 1.0);
        for (int i = 0; i < fw; i++)
            row[i] = (float)(row[i] / rs);
        for (int j = 0; j < fh; j++)
            col[j] = (float)(col[j] / cs);
        if (rng_next(rng) % 2) {
            s = oclconv_filter_separable(fw, row, fh, col, &f);
        } else { /* exact products, so the detected factors lose nothing */
            for (int j = 0; j < fh; j++)
                for (int i = 0; i < fw; i++)
                    w[j * fw + i] = col[j] * (i == fw / 2 ? 1.0f : 0.5f);
            s = oclconv_filter_create(fw, fh, w, &f);
        }
    } else {
        return random_filter(rng, fw, fh);
    }
    if (s != OCLCONV_OK) {
        fprintf(stderr, "filter: %s\n", oclconv_errmsg(NULL));
        exit(TEST_HARD_ERROR);
    }
    return f;
}

/* Options of a forced path, a border and its value. */
static oclconv_options options_for(oclconv_method method, oclconv_border border, float value)
{
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = method;
    opt.border = border;
    opt.border_value = value;
    return opt;
}

/* Filters `src` into `dst` and compares `dst` with the reference's result
 * for `ref_src` (src's values as they were, where dst is src itself);
 * returns the number of mismatching values, reported under `label`. */
static long apply_and_compare(oclconv_context *ctx, const oclconv_image *src, oclconv_image *dst,
                              const oclconv_image *ref_src, const oclconv_filter *f,
                              const oclconv_options *opt, const char *label)
{
    int fw, fh;
    oclconv_filter_size(f, &fw, &fh);
    oclconv_status s = oclconv_apply(ctx, src, dst, f, opt);
    if (s != OCLCONV_OK) {
        TEST_FAIL_("%s: %s: %s", label, oclconv_strerror(s), oclconv_errmsg(ctx));
        return 1;
    }
    ref_result ref;
    if (ref_convolve(ref_src, fw, fh, oclconv_filter_weights(f), opt, &ref) != 0) {
        fprintf(stderr, "reference failed\n");
        exit(TEST_HARD_ERROR);
    }
    char why[256];
    long bad = ref_compare(dst, &ref, why, sizeof why);
    if (bad)
        TEST_FAIL_("%s: %ld mismatches, first %s", label, bad, why);
    ref_result_free(&ref);
    return bad;
}

/* Filters src into a fresh destination and compares with the reference;
 * also that the destination's row padding is untouched and the forced
 * path ran.  Returns the number of mismatching values. */
static long check_one(oclconv_context *ctx, const oclconv_image *src, oclconv_type dst_type,
                      size_t dst_extra, const oclconv_filter *f, const oclconv_options *opt,
                      const char *label)
{
    oclconv_image dst = image_like(src, dst_type, dst_extra);
    long bad = apply_and_compare(ctx, src, &dst, src, f, opt, label);
    if (!image_padding_intact(&dst)) {
        TEST_FAIL_("%s: wrote into the destination's row padding", label);
        bad++;
    }
    if (opt->method != OCLCONV_METHOD_AUTO && oclconv_last_method(ctx) != opt->method)
        TEST_FAIL_("%s: ran %s", label, oclconv_method_name(oclconv_last_method(ctx)));
    image_free(&dst);
    return bad;
}

static void sweep(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    long cases = 0;
    for (int b = OCLCONV_BORDER_CLAMP; b <= OCLCONV_BORDER_NORMALIZE; b++)
        for (size_t tp = 0; tp < sizeof type_pairs / sizeof *type_pairs; tp++) {
            /* Each border meets every channel count, and so does each type
             * pair, without building all their combinations; one filter
             * shape per program, every size through it. */
            int cn = 1 + (int)((size_t)b + tp) % 4;
            {
                int shape = (int)(rng_next(rng) % (sizeof shapes / sizeof *shapes));
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

/* Boxes on rows wider than a row-pass work-group's 512 pixels, with radii
 * from 1 to past the 1024-pixel blocks the GPU row pass scans its line in,
 * and 128, the widest whose 8-bit row sums the GPU keeps in 16 bits: on a
 * white image they reach 65535 exactly.  Float images with the CONSTANT
 * border hold one value of 1e-30 among values up to 300, so no running sum
 * can be exact and the walks sum every window. */
static void wide_box(oclconv_context *ctx, uint64_t *rng)
{
    static const int radii[][2] = {{1, 1}, {40, 3}, {200, 2}, {300, 0}, {128, 1}, {129, 1}};
    static const oclconv_border borders[] = {OCLCONV_BORDER_CLAMP, OCLCONV_BORDER_REFLECT101,
                                             OCLCONV_BORDER_WRAP, OCLCONV_BORDER_CONSTANT,
                                             OCLCONV_BORDER_NORMALIZE};
    for (size_t r = 0; r < sizeof radii / sizeof *radii; r++) {
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_box(radii[r][0], radii[r][1], &f));
        for (size_t b = 0; b < sizeof borders / sizeof *borders; b++) {
            oclconv_options opt = options_for(OCLCONV_METHOD_BOX, borders[b], 77);
            int cn = 1 + (int)(r + b) % 4;
            oclconv_type type = b % 2 ? OCLCONV_F32 : OCLCONV_U8;
            oclconv_image src = image_random(rng, 600, 5, cn, type, 0);
            if (radii[r][0] >= 128 && type == OCLCONV_U8)
                memset(src.data, 255, image_bytes(&src));
            if (type == OCLCONV_F32 && opt.border == OCLCONV_BORDER_CONSTANT)
                ((float *)src.data)[rng_next(rng) % (600 * (size_t)cn)] = 1e-30f;
            char label[160];
            snprintf(label, sizeof label, "box %dx%d on 600x5 %s cn=%d %s", 2 * radii[r][0] + 1,
                     2 * radii[r][1] + 1, type_name(type), cn, border_name(opt.border));
            check_one(ctx, &src, type, 0, f, &opt, label);
            image_free(&src);
        }
        oclconv_filter_destroy(f);
    }
}

/* 8-bit boxes of 2 to 4 channels whose window sums come near 2^16 or
 * reach it: the GPU tiles keep two channels' sums to a uint up to 257
 * taps.  Values of 240-255, and all 255 for the windows of 257 taps, whose
 * sums are then 65535; 19x15 is the first shape past the limit. */
static void near_white_box(oclconv_context *ctx, uint64_t *rng)
{
    static const int radii[][2] = {{8, 7}, {7, 8}, {128, 0}, {0, 128}, {9, 7}};
    static const oclconv_border borders[] = {OCLCONV_BORDER_CLAMP, OCLCONV_BORDER_CONSTANT,
                                             OCLCONV_BORDER_NORMALIZE};
    for (size_t r = 0; r < sizeof radii / sizeof *radii; r++) {
        oclconv_filter *f;
        ASSERT_OK(NULL, oclconv_filter_box(radii[r][0], radii[r][1], &f));
        int taps = (2 * radii[r][0] + 1) * (2 * radii[r][1] + 1);
        for (int cn = 2; cn <= 4; cn++)
            for (size_t b = 0; b < sizeof borders / sizeof *borders; b++) {
                oclconv_options opt = options_for(OCLCONV_METHOD_BOX, borders[b], 250);
                oclconv_image src = image_random(rng, 1100, 40, cn, OCLCONV_U8, 0);
                unsigned char *p = src.data;
                for (size_t i = 0; i < image_bytes(&src); i++)
                    p[i] = taps == 257 ? 255 : (unsigned char)(255 - p[i] % 16);
                char label[160];
                snprintf(label, sizeof label, "box %dx%d on 1100x40 u8 of 240-255 cn=%d %s",
                         2 * radii[r][0] + 1, 2 * radii[r][1] + 1, cn, border_name(opt.border));
                check_one(ctx, &src, OCLCONV_U8, 0, f, &opt, label);
                image_free(&src);
            }
        oclconv_filter_destroy(f);
    }
}

/* Boxes through the separable path, whose GPU tiles add a pass's values
 * when its taps are all equal and weigh the sums after (cl/common.cl's
 * EQUAL_SUMS): rows from 3 to 63 taps against a work-item's values, columns
 * against its rows (from as many taps as a work-item makes rows, 8), every
 * border, type pair and channel count, on rows that fit the aligned
 * windows and rows that do not. */
static void separable_boxes(oclconv_context *ctx, uint64_t *rng)
{
    static const int radii[][2] = {{1, 3}, {2, 7}, {3, 3}, {7, 4}, {9, 15}, {31, 31}};
    static const int box_sizes[][2] = {{64, 37}, {67, 9}, {13, 131}};
    long cases = 0;
    for (int r = 0; r < (int)(sizeof radii / sizeof *radii); r++)
        for (int k = 0; k < 3; k++) {
            int b = (3 * r + k) % (OCLCONV_BORDER_NORMALIZE + 1), tp = (r + 2 * k) % 6;
            int cn = 1 + (r + k) % 4;
            oclconv_filter *f;
            ASSERT_OK(NULL, oclconv_filter_box(radii[r][0], radii[r][1], &f));
            oclconv_options opt = options_for(OCLCONV_METHOD_SEPARABLE, (oclconv_border)b,
                                              (float)rng_uniform(rng, -20, 300));
            for (size_t sz = 0; sz < sizeof box_sizes / sizeof *box_sizes; sz++) {
                oclconv_image src = image_random(rng, box_sizes[sz][0], box_sizes[sz][1], cn,
                                                 type_pairs[tp].src, 0);
                char label[200];
                snprintf(label, sizeof label, "separable box %dx%d %s %s->%s cn=%d %dx%d",
                         2 * radii[r][0] + 1, 2 * radii[r][1] + 1, border_name(opt.border),
                         type_name(src.type), type_name(type_pairs[tp].dst), cn, src.width,
                         src.height);
                check_one(ctx, &src, type_pairs[tp].dst, 0, f, &opt, label);
                image_free(&src);
                cases++;
            }
            oclconv_filter_destroy(f);
        }
    printf("separable boxes: %ld cases\n", cases);
}

/* Boxes of `cn` channels of src_type through `method`, each of the
 * `radii` under every border, with 8-bit and float results and some with
 * a scale and a delta, on images of each of the sizes `images`. */
static void box_cases(oclconv_context *ctx, uint64_t *rng, const char *name,
                      oclconv_method method, int cn, oclconv_type src_type,
                      const int (*radii)[2], int n_radii, const int (*images)[2], int n_images)
{
    long cases = 0;
    for (int r = 0; r < n_radii; r++)
        for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b++) {
            oclconv_filter *f;
            ASSERT_OK(NULL, oclconv_filter_box(radii[r][0], radii[r][1], &f));
            oclconv_options opt = options_for(method, (oclconv_border)b,
                                              (float)rng_uniform(rng, -20, 300));
            if ((r + b) % 3 == 0) {
                opt.scale = (float)rng_uniform(rng, 0.5, 2);
                opt.delta = (float)rng_uniform(rng, -10, 10);
            }
            oclconv_type dst_type = (r + b) % 2 ? OCLCONV_U8 : OCLCONV_F32;
            for (int i = 0; i < n_images; i++) {
                oclconv_image src = image_random(rng, images[i][0], images[i][1], cn, src_type, 0);
                char label[200];
                snprintf(label, sizeof label, "%s: box %dx%d %s %s->%s cn=%d %dx%d", name,
                         2 * radii[r][0] + 1, 2 * radii[r][1] + 1, border_name(opt.border),
                         type_name(src_type), type_name(dst_type), cn, src.width, src.height);
                check_one(ctx, &src, dst_type, 0, f, &opt, label);
                image_free(&src);
                cases++;
            }
            oclconv_filter_destroy(f);
        }
    printf("%s: %ld cases\n", name, cases);
}

/* 8-bit RGBA boxes up to 15x15, which GPUs make in quads of 4 pixels a
 * work-item (cl/box.cl box_quads): rows of whole quads (200 pixels) and
 * not (198), narrower than a window (5, 2), one row and several tiles
 * tall; 17x15 and 11x19, past the quads, for the path beside them. */
static void quad_boxes(oclconv_context *ctx, uint64_t *rng)
{
    static const int radii[][2] = {{1, 1}, {2, 0}, {0, 3}, {3, 3}, {7, 7}, {8, 7}, {5, 9}};
    static const int images[][2] = {{200, 45}, {198, 70}, {5, 131}, {2, 1}, {36, 2}};
    box_cases(ctx, rng, "quad boxes", OCLCONV_METHOD_BOX, 4, OCLCONV_U8, radii, 7, images, 5);
}

/* Gray float boxes from r15, whose GPU tiles add their rows, and columns
 * of 2 PY taps or more, from sums of chunks (cl/separable.cl, EQUAL_ROW 2;
 * rows r15-r18 end their windows 3 to 6 values past the chunks, columns
 * 1 to 7 rows), every border, float and 8-bit results, on rows that fit
 * the aligned windows and rows that do not, in one tile and several.  In
 * a GPU's 48 KB, r37 and r39 keep their chunk sums in one buffer, not two
 * (r37 in the columns' room, r39 in the rows'). */
static void chunked_boxes(oclconv_context *ctx, uint64_t *rng)
{
    static const int radii[][2] = {{15, 15}, {16, 4}, {17, 12}, {18, 8}, {31, 31}, {37, 37},
                                   {39, 30}};
    static const int images[][2] = {{260, 70}, {67, 9}};
    box_cases(ctx, rng, "chunked boxes", OCLCONV_METHOD_SEPARABLE, 1, OCLCONV_F32, radii, 7,
              images, 2);
}

/* 8-bit Gaussians of 4 and 2 channels from r3, whose GPU tiles make
 * their row pass in segments of several work-items' values (RGBA 4
 * pixels, from r5 8; two channels 8) where a work-group's windows lie in
 * rows of whole 16-byte chunks (cl/separable.cl, ROW_SEGMENTS): rows of
 * 200 pixels, whose inner work-groups take them, and of 198, which no
 * work-group does; every border, 8-bit and float results. */
static void row_segments(oclconv_context *ctx, uint64_t *rng)
{
    static const int radii[][2] = {{3, 3}, {4, 6}, {5, 2}, {7, 7}, {11, 4}, {15, 15}};
    static const int widths[] = {200, 198};
    long cases = 0;
    for (int r = 0; r < (int)(sizeof radii / sizeof *radii); r++)
        for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b++) {
            oclconv_filter *f;
            ASSERT_OK(NULL, oclconv_filter_gaussian(radii[r][0] / 3.0, radii[r][1] / 3.0,
                                                    radii[r][0], radii[r][1], &f));
            oclconv_options opt = options_for(OCLCONV_METHOD_SEPARABLE, (oclconv_border)b,
                                              (float)rng_uniform(rng, 0, 255));
            oclconv_type dst_type = (r + b) % 2 ? OCLCONV_U8 : OCLCONV_F32;
            for (int cn = 4; cn >= 2; cn -= 2)
                for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
                    oclconv_image src = image_random(rng, widths[w], 45, cn, OCLCONV_U8, 0);
                    char label[160];
                    snprintf(label, sizeof label, "Gaussian %dx%d %s u8->%s cn=%d %dx%d",
                             2 * radii[r][0] + 1, 2 * radii[r][1] + 1, border_name(opt.border),
                             type_name(dst_type), cn, src.width, src.height);
                    check_one(ctx, &src, dst_type, 0, f, &opt, label);
                    image_free(&src);
                    cases++;
                }
            oclconv_filter_destroy(f);
        }
    printf("row segments: %ld cases\n", cases);
}

/* Images larger than a GPU work-group's share in one direction:
 *  - boxes wider than a line of 1024 columns and taller than a band of 32
 *    rows: lines, bands and the rows scanned at once meet inside the
 *    image, windows wider and taller than a band;
 *  - separable filters (Gaussians of sigma rx / 2) many tiles tall and a
 *    few wide: every tile meets the next one down, 8-bit RGBA's two pixels
 *    a work-item meet the right edge, tiles of every width. */
static void large_images(oclconv_context *ctx, uint64_t *rng)
{
    static const struct {
        oclconv_method method;
        int width, height, cn, rx, ry;
        oclconv_type type;
        oclconv_border border;
    } cases[] = {
        {OCLCONV_METHOD_BOX, 2100, 75, 1, 1, 1, OCLCONV_U8, OCLCONV_BORDER_CLAMP},
        {OCLCONV_METHOD_BOX, 2100, 75, 4, 20, 12, OCLCONV_U8, OCLCONV_BORDER_REFLECT101},
        {OCLCONV_METHOD_BOX, 1100, 70, 1, 20, 12, OCLCONV_F32, OCLCONV_BORDER_CONSTANT},
        {OCLCONV_METHOD_BOX, 1100, 70, 2, 3, 40, OCLCONV_F32, OCLCONV_BORDER_NORMALIZE},
        {OCLCONV_METHOD_BOX, 1500, 40, 3, 8, 8, OCLCONV_U16, OCLCONV_BORDER_WRAP},
        {OCLCONV_METHOD_BOX, 2100, 33, 1, 255, 2, OCLCONV_U8, OCLCONV_BORDER_REFLECT},
        /* Float boxes on images of 128 rows or more: the image holds one
         * value of 1e-30, so no running sum is exact and the walks run,
         * their bands of 64 rows (CPUs) or blocks of rows (GPUs: for the
         * third, 320 rows of 16 values on PoCL, 304 on NVIDIA) meeting
         * inside the image. */
        {OCLCONV_METHOD_BOX, 300, 150, 1, 5, 20, OCLCONV_F32, OCLCONV_BORDER_REFLECT},
        {OCLCONV_METHOD_BOX, 200, 140, 3, 2, 70, OCLCONV_F32, OCLCONV_BORDER_CONSTANT},
        {OCLCONV_METHOD_BOX, 70, 400, 2, 3, 30, OCLCONV_F32, OCLCONV_BORDER_REFLECT101},
        {OCLCONV_METHOD_SEPARABLE, 37, 1500, 4, 1, 1, OCLCONV_U8, OCLCONV_BORDER_REFLECT101},
        /* Rows long enough for CPUs' work-items of whole vectors, taken
         * tap by tap across them. */
        {OCLCONV_METHOD_SEPARABLE, 300, 40, 4, 3, 2, OCLCONV_U8, OCLCONV_BORDER_CONSTANT},
        {OCLCONV_METHOD_SEPARABLE, 521, 23, 4, 4, 1, OCLCONV_U16, OCLCONV_BORDER_REFLECT},
        {OCLCONV_METHOD_SEPARABLE, 21, 3000, 1, 9, 9, OCLCONV_F32, OCLCONV_BORDER_CONSTANT},
        /* Gray rows whose windows (13-20 values) take row_pass() at their
         * ends under ZERO and CONSTANT, not the edge windows (GPUs). */
        {OCLCONV_METHOD_SEPARABLE, 301, 90, 1, 6, 5, OCLCONV_F32, OCLCONV_BORDER_ZERO},
        {OCLCONV_METHOD_SEPARABLE, 299, 90, 1, 7, 7, OCLCONV_U8, OCLCONV_BORDER_CONSTANT},
        {OCLCONV_METHOD_SEPARABLE, 45, 2100, 2, 4, 4, OCLCONV_U16, OCLCONV_BORDER_NORMALIZE},
        /* Tiles 8 and 4 work-items wide, the last summing in double; 8-bit
         * Gaussians sum in float up to r30 (src/plan.c), RGBA8 in tiles of
         * two pixels a work-item. */
        {OCLCONV_METHOD_SEPARABLE, 70, 900, 1, 13, 13, OCLCONV_F32, OCLCONV_BORDER_REFLECT},
        {OCLCONV_METHOD_SEPARABLE, 70, 900, 4, 13, 13, OCLCONV_U8, OCLCONV_BORDER_WRAP},
        {OCLCONV_METHOD_SEPARABLE, 50, 700, 1, 31, 31, OCLCONV_U8, OCLCONV_BORDER_ZERO},
        {OCLCONV_METHOD_SEPARABLE, 90, 500, 4, 24, 24, OCLCONV_U8, OCLCONV_BORDER_REFLECT101},
        {OCLCONV_METHOD_SEPARABLE, 60, 600, 1, 30, 30, OCLCONV_U8, OCLCONV_BORDER_CONSTANT},
        /* Two passes through scratch, for row windows wider than a tile's
         * (GPUs) or columns taller than a band's ring (CPUs); every pixel
         * width, rows of a column pass past the last. */
        {OCLCONV_METHOD_SEPARABLE, 90, 300, 4, 40, 40, OCLCONV_U8, OCLCONV_BORDER_REFLECT},
        {OCLCONV_METHOD_SEPARABLE, 101, 123, 3, 45, 45, OCLCONV_U16, OCLCONV_BORDER_NORMALIZE},
        {OCLCONV_METHOD_SEPARABLE, 150, 61, 2, 70, 20, OCLCONV_F32, OCLCONV_BORDER_CONSTANT},
        {OCLCONV_METHOD_SEPARABLE, 301, 40, 1, 130, 3, OCLCONV_F32, OCLCONV_BORDER_WRAP},
        {OCLCONV_METHOD_SEPARABLE, 117, 300, 1, 2, 100, OCLCONV_U8, OCLCONV_BORDER_CLAMP},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int rx = cases[c].rx, ry = cases[c].ry;
        oclconv_filter *f;
        if (cases[c].method == OCLCONV_METHOD_BOX)
            ASSERT_OK(NULL, oclconv_filter_box(rx, ry, &f));
        else
            ASSERT_OK(NULL, oclconv_filter_gaussian(rx / 2.0, 0, rx, ry, &f));
        oclconv_options opt = options_for(cases[c].method, cases[c].border, 77);
        oclconv_image src = image_random(rng, cases[c].width, cases[c].height, cases[c].cn,
                                         cases[c].type, 0);
        if (opt.method == OCLCONV_METHOD_BOX && src.type == OCLCONV_F32 && src.height >= 128)
            ((float *)src.data)[rng_next(rng) % (size_t)(src.width * src.height)] = 1e-30f;
        char label[160];
        snprintf(label, sizeof label, "%s %dx%d on %dx%d %s cn=%d %s",
                 oclconv_method_name(opt.method), 2 * rx + 1, 2 * ry + 1, src.width, src.height,
                 type_name(src.type), src.channels, border_name(opt.border));
        check_one(ctx, &src, src.type, 0, f, &opt, label);
        image_free(&src);
        oclconv_filter_destroy(f);
    }
}

/* src and dst the same memory: the result is as if they were not. */
static void in_place(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    for (int cn = 1; cn <= 4; cn++) {
        oclconv_image img = image_random(rng, 23, 11, cn, OCLCONV_U8, 5);
        oclconv_image copy = image_like(&img, OCLCONV_U8, 5);
        memcpy(copy.data, img.data, image_bytes(&img));
        oclconv_filter *f = filter_for(method, rng, 5, 5);
        oclconv_options opt = options_for(method, OCLCONV_BORDER_REFLECT101, 0);
        char label[64];
        snprintf(label, sizeof label, "in place %s cn=%d", oclconv_method_name(method), cn);
        apply_and_compare(ctx, &img, &img, &copy, f, &opt, label);
        oclconv_filter_destroy(f);
        image_free(&img);
        image_free(&copy);
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

/* A 101x101 filter: its weights overflow __constant memory on most
 * devices (they go through global memory then) and its halo a local-memory
 * tile; every path either gives the reference's answer or says it cannot. */
static void big_filter(oclconv_context *ctx, uint64_t *rng)
{
    enum { N = 101 };
    static float w[N * N];
    for (int k = 0; k < N * N; k++)
        w[k] = (float)rng_uniform(rng, 0, 1) / (N * N / 2);
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_create(N, N, w, &f));
    const oclconv_method methods[] = {OCLCONV_METHOD_BUFFER, OCLCONV_METHOD_TILED,
                                      OCLCONV_METHOD_IMAGE};
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        oclconv_image src = image_random(rng, 37, 23, 4, OCLCONV_U16, 0);
        oclconv_image dst = image_like(&src, OCLCONV_U16, 0);
        oclconv_options opt;
        oclconv_options_init(&opt);
        opt.method = methods[m];
        opt.border = OCLCONV_BORDER_REFLECT101;
        oclconv_status s = oclconv_apply(ctx, &src, &dst, f, &opt);
        if (s == OCLCONV_E_UNSUPPORTED) {
            ASSERT(strlen(oclconv_errmsg(ctx)) > 0);
        } else {
            ASSERT_OK(ctx, s);
            ref_result ref;
            char why[256] = "";
            ASSERT(ref_convolve(&src, N, N, oclconv_filter_weights(f), &opt, &ref) == 0);
            long bad = ref_compare(&dst, &ref, why, sizeof why);
            if (bad)
                TEST_FAIL_("101x101 %s: %ld mismatches, %s", oclconv_method_name(methods[m]),
                           bad, why);
            ref_result_free(&ref);
        }
        image_free(&src);
        image_free(&dst);
    }
    oclconv_filter_destroy(f);
}

/* In bands of rows (OCLCONV_BANDS), each band filtered as an image of its
 * rows and those its taps reach: every path and border (WRAP and images
 * sharing memory run whole), type pair and channel count, strided rows,
 * bands of unequal height, and more bands asked than the filter's height
 * allows. */
static void bands(oclconv_context *ctx, uint64_t *rng)
{
    static const char *const counts[] = {"2", "3", "8"};
    const oclconv_method methods[] = {OCLCONV_METHOD_AUTO, OCLCONV_METHOD_BUFFER,
                                      OCLCONV_METHOD_TILED, OCLCONV_METHOD_SEPARABLE,
                                      OCLCONV_METHOD_BOX};
    for (int m = 0; m < (int)(sizeof methods / sizeof *methods); m++)
        for (int b = OCLCONV_BORDER_CLAMP; b <= OCLCONV_BORDER_NORMALIZE; b++) {
            setenv("OCLCONV_BANDS", counts[(m + b) % 3], 1);
            int cn = 1 + (m + b) % 4, tp = (m * 3 + b) % 6, shape = (m + b) % 5;
            int fw = shapes[shape][0], fh = shapes[shape][1];
            oclconv_filter *f = filter_for(methods[m], rng, fw, fh);
            oclconv_options opt = options_for(methods[m], (oclconv_border)b,
                                              (float)rng_uniform(rng, -20, 300));
            oclconv_image src =
                image_random(rng, 29, 47, cn, type_pairs[tp].src, (size_t)b % 2 * 9);
            char label[200];
            snprintf(label, sizeof label, "OCLCONV_BANDS=%s %s %s %s->%s cn=%d filter %dx%d",
                     counts[(m + b) % 3], oclconv_method_name(methods[m]),
                     border_name(opt.border), type_name(src.type), type_name(type_pairs[tp].dst),
                     cn, fw, fh);
            check_one(ctx, &src, type_pairs[tp].dst, (size_t)m % 2 * 12, f, &opt, label);
            image_free(&src);
            oclconv_filter_destroy(f);
        }
    in_place(ctx, OCLCONV_METHOD_SEPARABLE, rng);
    unsetenv("OCLCONV_BANDS");
}

/* A path's cases, in the device's own kernel shapes (own_shapes), or in
 * the other device type's (OCLCONV_TUNE) all but the worked example and
 * the huge filter. */
static void path_cases(oclconv_context *ctx, oclconv_method m, uint64_t *rng, int own_shapes)
{
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

/* The cases that choose their paths themselves, each for what it tests,
 * in two halves: wide, near-white, separable and chunked boxes; row
 * segments, large images, bands, and the big filter in the device's own
 * shapes only. */
static void mixed_boxes(oclconv_context *ctx, uint64_t *rng)
{
    wide_box(ctx, rng);
    near_white_box(ctx, rng);
    separable_boxes(ctx, rng);
    chunked_boxes(ctx, rng);
    quad_boxes(ctx, rng);
}

static void mixed_rest(oclconv_context *ctx, uint64_t *rng, int own_shapes)
{
    row_segments(ctx, rng);
    large_images(ctx, rng);
    if (own_shapes)
        big_filter(ctx, rng);
    bands(ctx, rng);
}

/* A set of cases: one path's (method), or half of the mixed ones (MIXED_
 * below), in the device's own kernel shapes or in the other device type's
 * (OCLCONV_TUNE); the image and tiled kernels have no other shape.  The
 * sets that build the most programs first. */
#define MIXED_BOXES (-1)
#define MIXED_REST (-2)
typedef struct {
    int other_shapes;
    int method;
} case_set;

static const case_set sets[] = {
    {0, MIXED_REST},    {1, MIXED_REST},    {0, MIXED_BOXES}, {1, MIXED_BOXES},
    {0, OCLCONV_METHOD_SEPARABLE}, {0, OCLCONV_METHOD_TILED}, {0, OCLCONV_METHOD_IMAGE},
    {0, OCLCONV_METHOD_BOX},       {0, OCLCONV_METHOD_BUFFER}, {1, OCLCONV_METHOD_SEPARABLE},
    {1, OCLCONV_METHOD_BUFFER},    {1, OCLCONV_METHOD_BOX},
};

static const char *set_name(const case_set *set)
{
    return set->method == MIXED_BOXES  ? "mixed boxes"
           : set->method == MIXED_REST ? "mixed paths"
                                       : oclconv_method_name((oclconv_method)set->method);
}
enum { SETS = sizeof sets / sizeof *sets };

/* Runs set k from a random stream of its own, in a context of its own. */
static void run_set(size_t k)
{
    const case_set *set = &sets[k];
    uint64_t rng = 0x9E3779B97F4A7C15ull * (k + 1) ^ 0xD1B54A32D192ED03ull;
    oclconv_context *ctx = test_context();
    const char *tune = "its own";
    if (set->other_shapes) {
        tune = other_shapes(ctx);
        setenv("OCLCONV_TUNE", tune, 1);
    }
    printf("device: %s, kernel shapes: %s, %s\n", oclconv_device_name(ctx), tune,
           set_name(set));
    if (set->method == MIXED_BOXES)
        mixed_boxes(ctx, &rng);
    else if (set->method == MIXED_REST)
        mixed_rest(ctx, &rng, !set->other_shapes);
    else
        path_cases(ctx, (oclconv_method)set->method, &rng, !set->other_shapes);
    printf("programs built: %zu\n", oclconv_programs_built(ctx));
    oclconv_destroy(ctx);
    unsetenv("OCLCONV_TUNE");
}

/* Waits for one child and keeps its status; returns its index in pid[],
 * or -1 for none. */
static int wait_child(const pid_t *pid, int *status)
{
    int st = 0;
    pid_t done;
    while ((done = waitpid(-1, &st, 0)) < 0 && errno == EINTR)
        ;
    for (int k = 0; done > 0 && k < SETS; k++)
        if (pid[k] == done) {
            status[k] = st;
            return k;
        }
    return -1;
}

/* The sets are independent, so each runs in a child process of its own,
 * as many at once as the machine has processors (the builds take most of
 * the time, each on one core), forked before any process makes an OpenCL
 * call; their output follows in the sets' order.  Where a fork fails, the
 * sets not yet started run in this process, after the children. */
int main(void)
{
    pid_t pid[SETS] = {0};
    FILE *log[SETS] = {0};
    int status[SETS] = {0}, running = 0, k = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    fflush(NULL);
    for (; k < SETS; k++) {
        if (running >= cpus && running > 0 && wait_child(pid, status) >= 0)
            running--;
        log[k] = tmpfile();
        pid[k] = log[k] ? fork() : -1;
        if (pid[k] < 0)
            break;
        if (pid[k] == 0) {
            dup2(fileno(log[k]), STDOUT_FILENO);
            dup2(fileno(log[k]), STDERR_FILENO);
            run_set((size_t)k);
            fflush(NULL);
            _exit(test_failures ? 1 : 0);
        }
        running++;
    }
    while (running > 0 && wait_child(pid, status) >= 0)
        running--;
    fflush(NULL);
    for (int i = 0; i < SETS; i++) {
        if (log[i] && pid[i] > 0) {
            char buf[4096];
            rewind(log[i]);
            for (size_t n; (n = fread(buf, 1, sizeof buf, log[i])) > 0;)
                fwrite(buf, 1, n, stdout);
        }
        if (log[i])
            fclose(log[i]);
        if (!WIFEXITED(status[i]) || WEXITSTATUS(status[i]) != 0) {
            fprintf(stderr, "set %d (%s) failed (%s %d)\n", i, set_name(&sets[i]),
                    WIFEXITED(status[i]) ? "exit" : "signal",
                    WIFEXITED(status[i]) ? WEXITSTATUS(status[i]) : WTERMSIG(status[i]));
            test_failures++;
        }
    }
    fflush(NULL);
    for (; k < SETS; k++) /* no fork: in this process */
        run_set((size_t)k);
    return test_exit();
}
