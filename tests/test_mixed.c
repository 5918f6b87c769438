/*
 * The cases that choose their paths themselves, each for what a kernel
 * shape does past the plain sweep (tests/test_paths.c): boxes wide, near
 * white, separable, chunked and in quads; Gaussians in row segments;
 * images larger than a work-group's share; a 101x101 filter; bands of
 * rows.  In the device's kernel shapes and the other device type's, in two
 * halves each, a set of cases in a child process each (tests/path_check.c).
 * The groups aimed at the GPU tiles' code run whole in GPU shapes and
 * thinned in CPU shapes (thinned_out()), where their cases are separable
 * filters and boxes like the sweeps' (on PoCL 3.1 they built 60 % of the
 * CPU shapes' programs).
 */
#include "path_check.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>


/* In the kernel shapes a group of cases is not aimed at (thin), each of
 * its radii (index r) meets one border, a different one for each of the
 * first seven, not all of them. */
static int thinned_out(int thin, int r, int b)
{
    return thin && b != (3 * r + 1) % (OCLCONV_BORDER_NORMALIZE + 1);
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
 * windows and rows that do not.  Thinned: one of each radius's three. */
static void separable_boxes(oclconv_context *ctx, uint64_t *rng, int thin)
{
    static const int radii[][2] = {{1, 3}, {2, 7}, {3, 3}, {7, 4}, {9, 15}, {31, 31}};
    static const int box_sizes[][2] = {{64, 37}, {67, 9}, {13, 131}};
    long cases = 0;
    for (int r = 0; r < (int)(sizeof radii / sizeof *radii); r++)
        for (int k = 0; k < (thin ? 1 : 3); k++) {
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
 * a scale and a delta, on images of each of the sizes `images`; thinned
 * as thinned_out() says. */
static void box_cases(oclconv_context *ctx, uint64_t *rng, const char *name,
                      oclconv_method method, int cn, oclconv_type src_type,
                      const int (*radii)[2], int n_radii, const int (*images)[2], int n_images,
                      int thin)
{
    long cases = 0;
    for (int r = 0; r < n_radii; r++)
        for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b++) {
            if (thinned_out(thin, r, b))
                continue;
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
static void quad_boxes(oclconv_context *ctx, uint64_t *rng, int thin)
{
    static const int radii[][2] = {{1, 1}, {2, 0}, {0, 3}, {3, 3}, {7, 7}, {8, 7}, {5, 9}};
    static const int images[][2] = {{200, 45}, {198, 70}, {5, 131}, {2, 1}, {36, 2}};
    box_cases(ctx, rng, "quad boxes", OCLCONV_METHOD_BOX, 4, OCLCONV_U8, radii, 7, images, 5, thin);
}

/* Gray float boxes from r15, whose GPU tiles add their rows, and columns
 * of 2 PY taps or more, from sums of chunks (cl/separable.cl, EQUAL_ROW 2;
 * rows r15-r18 end their windows 3 to 6 values past the chunks, columns
 * 1 to 7 rows), every border, float and 8-bit results, on rows that fit
 * the aligned windows and rows that do not, in one tile and several.  In
 * a GPU's 48 KB, r37 and r39 keep their chunk sums in one buffer, not two
 * (r37 in the columns' room, r39 in the rows'). */
static void chunked_boxes(oclconv_context *ctx, uint64_t *rng, int thin)
{
    static const int radii[][2] = {{15, 15}, {16, 4}, {17, 12}, {18, 8}, {31, 31}, {37, 37},
                                   {39, 30}};
    static const int images[][2] = {{260, 70}, {67, 9}};
    box_cases(ctx, rng, "chunked boxes", OCLCONV_METHOD_SEPARABLE, 1, OCLCONV_F32, radii, 7,
              images, 2, thin);
}

/* 8-bit Gaussians of 4 and 2 channels from r3, whose GPU tiles make
 * their row pass in segments of several work-items' values (RGBA 4
 * pixels, from r5 8; two channels 8) where a work-group's windows lie in
 * rows of whole 16-byte chunks (cl/separable.cl, ROW_SEGMENTS): rows of
 * 200 pixels, whose inner work-groups take them, and of 198, which no
 * work-group does; every border, 8-bit and float results; thinned as
 * thinned_out() says. */
static void row_segments(oclconv_context *ctx, uint64_t *rng, int thin)
{
    static const int radii[][2] = {{3, 3}, {4, 6}, {5, 2}, {7, 7}, {11, 4}, {15, 15}};
    static const int widths[] = {200, 198};
    long cases = 0;
    for (int r = 0; r < (int)(sizeof radii / sizeof *radii); r++)
        for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b++) {
            if (thinned_out(thin, r, b))
                continue;
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

/* The two halves: wide, near-white, separable, chunked and quad boxes;
 * row segments, large images, bands, and the big filter in the device's
 * own shapes only.  The separable, chunked and quad boxes and the row
 * segments are aimed at the GPU tiles, thinned in CPU shapes. */
static void mixed_boxes(oclconv_context *ctx, uint64_t *rng)
{
    int thin = !gpu_shapes(ctx);
    wide_box(ctx, rng);
    near_white_box(ctx, rng);
    separable_boxes(ctx, rng, thin);
    chunked_boxes(ctx, rng, thin);
    quad_boxes(ctx, rng, thin);
}

static void mixed_rest(oclconv_context *ctx, uint64_t *rng, int own_shapes)
{
    row_segments(ctx, rng, !gpu_shapes(ctx));
    large_images(ctx, rng);
    if (own_shapes)
        big_filter(ctx, rng);
    bands(ctx, rng);
}

enum { MIXED_BOXES, MIXED_REST };

static int mixed_body_of(oclconv_context *ctx, uint64_t *rng, int kind, int own_shapes)
{
    if (kind == MIXED_BOXES)
        mixed_boxes(ctx, rng);
    else
        mixed_rest(ctx, rng, own_shapes);
    return test_failures;
}

/* The sets that build the most programs first.  Seeds as when these sets
 * and test_paths' were one program's, so the cases are the same. */
static const case_set sets[] = {
    {0, MIXED_REST, 0, "mixed paths"},
    {1, MIXED_REST, 1, "mixed paths"},
    {0, MIXED_BOXES, 2, "mixed boxes"},
    {1, MIXED_BOXES, 3, "mixed boxes"},
};

int main(void)
{
    return run_case_sets(sets, sizeof sets / sizeof *sets, mixed_body_of);
}
