/*
 * oclconv_apply_batch(): images of several shapes, types and channel
 * counts with one filter, each against the reference, on one device
 * image by image and through the pipeline of buffer sets (OCLCONV_BANDS),
 * and over PoCL's two CPU devices; a bad pair named by its index with
 * nothing written; in place; an empty batch.
 */
#include "reference.h"
#include "test.h"
#include "util.h"

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
    uint64_t rng = 5150;
    oclconv_context *ctx = test_context();
    printf("device: %s\n", oclconv_device_name(ctx));
    for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b += 3) {
        one_batch(ctx, &rng, (oclconv_border)b, NULL, "one device");
        one_batch(ctx, &rng, (oclconv_border)b, "3", "pipelined");
    }
    bad_pairs(ctx, &rng);
    oclconv_destroy(ctx);
    oclconv_context *two = NULL;
    ASSERT_OK(NULL, oclconv_create("cpu*", &two));
    ASSERT(oclconv_device_count(two) == 2);
    one_batch(two, &rng, OCLCONV_BORDER_REFLECT101, NULL, "two devices");
    one_batch(two, &rng, OCLCONV_BORDER_WRAP, "3", "two devices pipelined");
    oclconv_destroy(two);
    return test_exit();
}
