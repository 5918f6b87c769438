/*
 * oclconv_apply_batch(): images of several shapes, types and channel
 * counts with one filter, each against the reference, on one device
 * image by image and through the pipeline of buffer sets (OCLCONV_BANDS),
 * and over PoCL's two CPU devices; runs of same-shaped images stacked into
 * one launch; a bad pair named by its index with nothing written; in
 * place; an empty batch.
 */
#include "reference.h"
#include "test.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

enum { N = 23 };

typedef struct {
    oclconv_image src[N], dst[N], before[N];
    ref_result ref[N];
} batch;

static void make_batch(uint64_t *rng, const oclconv_filter *f, const oclconv_options *opt,
                       batch *b)
{
    static const oclconv_type types[][2] = {{OCLCONV_U8, OCLCONV_U8},
                                            {OCLCONV_F32, OCLCONV_F32},
                                            {OCLCONV_U16, OCLCONV_U16},
                                            {OCLCONV_U8, OCLCONV_F32}};
    for (int i = 0; i < N; i++) {
        int t = i % 4, cn = 1 + (i * 3) % 4, w = 1 + (i * 37) % 90, h = 1 + (i * 23) % 70;
        b->src[i] = image_random(rng, w, h, cn, types[t][0], i % 3 ? 0 : 12);
        b->dst[i] = image_random(rng, w, h, cn, types[t][1], i % 5 ? 0 : 8);
        b->before[i] = image_like(&b->dst[i], types[t][1], i % 5 ? 0 : 8);
        memcpy(b->before[i].data, b->dst[i].data, image_bytes(&b->dst[i]));
        b->ref[i] = ref_of_filter(&b->src[i], f, opt);
    }
}

static void free_batch(batch *b)
{
    for (int i = 0; i < N; i++) {
        image_free(&b->src[i]);
        image_free(&b->dst[i]);
        image_free(&b->before[i]);
        ref_result_free(&b->ref[i]);
    }
}

/* Every image against the reference; returns the mismatching images. */
static int check_batch(const batch *b, const char *what)
{
    int bad = 0;
    for (int i = 0; i < N; i++) {
        char why[256] = "";
        if (ref_compare(&b->dst[i], &b->ref[i], why, sizeof why) != 0 ||
            !image_padding_intact(&b->dst[i])) {
            TEST_FAIL_("%s: image %d (%dx%d cn=%d %s): %s", what, i, b->src[i].width,
                       b->src[i].height, b->src[i].channels, type_name(b->src[i].type), why);
            bad++;
        }
    }
    return bad;
}

static void one_batch(oclconv_context *ctx, uint64_t *rng, oclconv_border border,
                      const char *bands, const char *what)
{
    oclconv_filter *f = NULL;
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.0, 0.8, 3, 2, &f));
    oclconv_options opt = border_options(border, 11);
    batch b;
    make_batch(rng, f, &opt, &b);
    if (bands)
        setenv("OCLCONV_BANDS", bands, 1);
    size_t failed = 99;
    ASSERT_OK(ctx, oclconv_apply_batch(ctx, N, b.src, b.dst, f, &opt, &failed));
    unsetenv("OCLCONV_BANDS");
    ASSERT_EQ(failed, 0);
    printf("%s %s: %d of %d images right\n", what, border_name(border), N - check_batch(&b, what),
           N);
    free_batch(&b);
    oclconv_filter_destroy(f);
}

/* Runs of same-shaped images (a run cut by another shape; rows padded or
 * packed) through the pipeline, which stacks each run's images in one
 * buffer and one launch: on the buffer, tiled and separable paths (CPUs
 * fuse a separable filter's passes up to 65 rows; 67 takes two), with
 * all the device memory they want (as on a GPU, OCLCONV_BANDS; and as
 * from pageable memory, OCLCONV_STAGE: through pinned staging buffers)
 * and with a budget that cuts the runs into stacks of a few (as on a
 * CPU).  Each image against the reference: a stack whose images read or
 * wrote one another's rows, or a staged image copied to or from the wrong
 * place, fails. */
static void stacks(oclconv_context *ctx, uint64_t *rng)
{
    static const struct {
        int w, h, cn, count;
        oclconv_type in, out;
    } runs[] = {{33, 17, 1, 7, OCLCONV_U8, OCLCONV_U8},   {5, 40, 4, 2, OCLCONV_F32, OCLCONV_F32},
                {64, 9, 3, 5, OCLCONV_U16, OCLCONV_U16}, {12, 12, 2, 1, OCLCONV_U8, OCLCONV_F32},
                {33, 17, 1, 3, OCLCONV_U8, OCLCONV_U8}};
    static const struct {
        oclconv_method method;
        oclconv_border border;
        int tall;
    } cases[] = {{OCLCONV_METHOD_SEPARABLE, OCLCONV_BORDER_CLAMP, 0},
                 {OCLCONV_METHOD_SEPARABLE, OCLCONV_BORDER_REFLECT, 0},
                 {OCLCONV_METHOD_SEPARABLE, OCLCONV_BORDER_NORMALIZE, 0},
                 {OCLCONV_METHOD_SEPARABLE, OCLCONV_BORDER_REFLECT101, 1},
                 {OCLCONV_METHOD_BUFFER, OCLCONV_BORDER_WRAP, 0},
                 {OCLCONV_METHOD_TILED, OCLCONV_BORDER_CONSTANT, 0}};
    enum { M = 18 };
    oclconv_filter *small = NULL, *tall = NULL;
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.0, 0.8, 3, 2, &small));
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.0, 9.0, 1, 33, &tall));
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int mode = 0; mode < 3; mode++) {
            const oclconv_filter *f = cases[c].tall ? tall : small;
            /* Through buffer sets as on a GPU, from pinned memory and then
             * from pageable memory through staging; then as on a CPU. */
            if (mode == 2)
                unsetenv("OCLCONV_BANDS");
            else
                setenv("OCLCONV_BANDS", "3", 1);
            setenv("OCLCONV_STAGE", mode == 1 ? "1" : "0", 1);
            oclconv_options opt = border_options(cases[c].border, 11);
            opt.method = cases[c].method;
            opt.max_device_bytes = mode == 2 ? 24 << 10 : 0;
            oclconv_image src[M], dst[M];
            ref_result ref[M];
            int n = 0;
            for (size_t r = 0; r < sizeof runs / sizeof *runs; r++)
                for (int k = 0; k < runs[r].count; k++, n++) {
                    src[n] = image_random(rng, runs[r].w, runs[r].h, runs[r].cn, runs[r].in,
                                          k % 3 ? 0 : 8);
                    dst[n] = image_random(rng, runs[r].w, runs[r].h, runs[r].cn, runs[r].out,
                                          k % 2 ? 0 : 4);
                    ref[n] = ref_of_filter(&src[n], f, &opt);
                }
            ASSERT_EQ(n, M);
            size_t failed = 99;
            ASSERT_OK(ctx, oclconv_apply_batch(ctx, M, src, dst, f, &opt, &failed));
            ASSERT_EQ(failed, 0);
            int bad = 0;
            for (int i = 0; i < M; i++) {
                char why[256] = "";
                if (ref_compare(&dst[i], &ref[i], why, sizeof why) != 0 ||
                    !image_padding_intact(&dst[i])) {
                    TEST_FAIL_("stacks, %s %s%s: image %d: %s",
                               oclconv_method_name(cases[c].method), border_name(cases[c].border),
                               mode == 2 ? ", 24 KiB" : mode ? ", staged" : "", i, why);
                    bad++;
                }
                image_free(&src[i]);
                image_free(&dst[i]);
                ref_result_free(&ref[i]);
            }
            printf("stacks, %s %s%s: %d of %d images right\n",
                   oclconv_method_name(cases[c].method), border_name(cases[c].border),
                   mode == 2 ? ", 24 KiB" : mode ? ", staged" : "", M - bad, M);
        }
    unsetenv("OCLCONV_BANDS");
    unsetenv("OCLCONV_STAGE");
    oclconv_filter_destroy(small);
    oclconv_filter_destroy(tall);
}

/* A stack's images that lie one after the other in memory, slices of one
 * block as in an N x H x W x C array, go up and down in one copy each way:
 * each against the reference, with a slice from elsewhere in the middle
 * and a row after the block's last image that stays as it was. */
static void adjacent_images(oclconv_context *ctx, uint64_t *rng)
{
    enum { K = 9, W = 20, H = 11, CN = 4 };
    size_t bytes = (size_t)W * H * CN;
    oclconv_image block_src = image_random(rng, W, H * K, CN, OCLCONV_U8, 0);
    oclconv_image block_dst = image_random(rng, W, H * K + 1, CN, OCLCONV_U8, 0);
    oclconv_image other = image_random(rng, W, H, CN, OCLCONV_U8, 0);
    oclconv_image other_dst = image_like(&other, OCLCONV_U8, 0);
    unsigned char guard[W * CN];
    memcpy(guard, (char *)block_dst.data + bytes * K, sizeof guard);
    oclconv_image src[K], dst[K];
    for (int i = 0; i < K; i++) {
        src[i] = (oclconv_image){(char *)block_src.data + bytes * (size_t)i, W, H, CN,
                                 OCLCONV_U8, 0};
        dst[i] = (oclconv_image){(char *)block_dst.data + bytes * (size_t)i, W, H, CN,
                                 OCLCONV_U8, 0};
    }
    src[5] = other;
    dst[5] = other_dst;
    oclconv_filter *f = NULL;
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.0, 0.8, 3, 2, &f));
    oclconv_options opt = border_options(OCLCONV_BORDER_REFLECT101, 0);
    setenv("OCLCONV_BANDS", "3", 1);
    ASSERT_OK(ctx, oclconv_apply_batch(ctx, K, src, dst, f, &opt, NULL));
    unsetenv("OCLCONV_BANDS");
    for (int i = 0; i < K; i++) {
        ref_result ref = ref_of_filter(&src[i], f, &opt);
        char why[256] = "";
        if (ref_compare(&dst[i], &ref, why, sizeof why) != 0)
            TEST_FAIL_("adjacent images: image %d: %s", i, why);
        ref_result_free(&ref);
    }
    ASSERT(memcmp(guard, (char *)block_dst.data + bytes * K, sizeof guard) == 0);
    printf("adjacent images: checked %d\n", K);
    image_free(&block_src);
    image_free(&block_dst);
    image_free(&other);
    image_free(&other_dst);
    oclconv_filter_destroy(f);
}

/* Staged stacks of more than 1 MiB, which the copier shares among its
 * threads (their shares cut through images and rows), rows packed and
 * padded: each image against the reference. */
static void staged_large(oclconv_context *ctx, uint64_t *rng)
{
    enum { K = 9 };
    oclconv_image src[K], dst[K];
    oclconv_filter *f = NULL;
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.0, 0.8, 3, 2, &f));
    oclconv_options opt = border_options(OCLCONV_BORDER_REFLECT, 0);
    for (int i = 0; i < K; i++) {
        src[i] = image_random(rng, 256, 200, 4, OCLCONV_U8, i % 2 ? 12 : 0);
        dst[i] = image_random(rng, 256, 200, 4, OCLCONV_U8, i % 3 ? 0 : 4);
    }
    setenv("OCLCONV_BANDS", "3", 1);
    setenv("OCLCONV_STAGE", "1", 1);
    ASSERT_OK(ctx, oclconv_apply_batch(ctx, K, src, dst, f, &opt, NULL));
    unsetenv("OCLCONV_STAGE");
    unsetenv("OCLCONV_BANDS");
    for (int i = 0; i < K; i++) {
        ref_result ref = ref_of_filter(&src[i], f, &opt);
        char why[256] = "";
        if (ref_compare(&dst[i], &ref, why, sizeof why) != 0 || !image_padding_intact(&dst[i]))
            TEST_FAIL_("staged, large: image %d: %s", i, why);
        ref_result_free(&ref);
        image_free(&src[i]);
        image_free(&dst[i]);
    }
    printf("staged, large: checked %d\n", K);
    oclconv_filter_destroy(f);
}

/* The threads of this process (Linux: /proc/self/task). */
static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* A context's copy threads: started by its first staged call, kept for the
 * next, ended by oclconv_destroy(). */
static void copier_threads(uint64_t *rng)
{
    oclconv_context *own = test_context();
    oclconv_filter *f = NULL;
    ASSERT_OK(NULL, oclconv_filter_box(1, 1, &f));
    oclconv_image src = image_random(rng, 64, 64, 1, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
    ASSERT_OK(own, oclconv_apply(own, &src, &dst, f, NULL)); /* the runtime's own threads */
    int before = threads_now();
    staged_large(own, rng);
    int started = threads_now();
    staged_large(own, rng);
    ASSERT(started > before);
    ASSERT_EQ(threads_now(), started);
    oclconv_destroy(own);
    ASSERT(threads_now() <= before);
    printf("copy threads: %d started, kept, ended\n", started - before);
    image_free(&src);
    image_free(&dst);
    oclconv_filter_destroy(f);
}

/* A bad pair: refused with its index, no destination touched. */
static void bad_pairs(oclconv_context *ctx, uint64_t *rng)
{
    oclconv_filter *f = NULL;
    ASSERT_OK(NULL, oclconv_filter_box(2, 1, &f));
    batch b;
    make_batch(rng, f, NULL, &b);
    size_t failed = 0;
    b.dst[17].width--;
    ASSERT_STATUS(ctx, oclconv_apply_batch(ctx, N, b.src, b.dst, f, NULL, &failed),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_EQ(failed, 17);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "image 17: source");
    b.dst[17].width++;
    void *data = b.src[4].data;
    b.src[4].data = NULL;
    ASSERT_STATUS(ctx, oclconv_apply_batch(ctx, N, b.src, b.dst, f, NULL, &failed),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_EQ(failed, 4);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "image 4: source image has no data");
    b.src[4].data = data;
    for (int i = 0; i < N; i++)
        ASSERT(memcmp(b.dst[i].data, b.before[i].data, image_bytes(&b.dst[i])) == 0);
    ASSERT_STATUS(ctx, oclconv_apply_batch(ctx, 3, NULL, b.dst, f, NULL, NULL),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_OK(ctx, oclconv_apply_batch(ctx, 0, NULL, NULL, f, NULL, &failed));
    /* In place: the results as if not. */
    oclconv_image same[3];
    for (int i = 0; i < 3; i++)
        same[i] = b.src[i];
    ASSERT_OK(ctx, oclconv_apply_batch(ctx, 3, same, same, f, NULL, NULL));
    for (int i = 0; i < 3; i++)
        ASSERT_EQ(ref_compare(&same[i], &b.ref[i], NULL, 0), 0);
    free_batch(&b);
    oclconv_filter_destroy(f);
}

int main(void)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    unoptimised_kernels();
    uint64_t rng = 5150;
    oclconv_context *ctx = test_context();
    printf("device: %s\n", oclconv_device_name(ctx));
    for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b += 3) {
        one_batch(ctx, &rng, (oclconv_border)b, NULL, "one device");
        one_batch(ctx, &rng, (oclconv_border)b, "3", "pipelined");
    }
    stacks(ctx, &rng);
    adjacent_images(ctx, &rng);
    staged_large(ctx, &rng);
    bad_pairs(ctx, &rng);
    oclconv_destroy(ctx);
    copier_threads(&rng);
    oclconv_context *two = NULL;
    ASSERT_OK(NULL, oclconv_create("cpu*", &two));
    ASSERT(oclconv_device_count(two) == 2);
    one_batch(two, &rng, OCLCONV_BORDER_REFLECT101, NULL, "two devices");
    one_batch(two, &rng, OCLCONV_BORDER_WRAP, "3", "two devices pipelined");
    oclconv_destroy(two);
    return test_exit();
}
