/*
 * A context over several devices: PoCL's two CPU devices
 * (POCL_DEVICES="pthread pthread").  A call is split into shares of rows,
 * one a device; the result is the reference's and, for integer outputs,
 * one device's to the bit; two such contexts at once on two threads; a
 * device that fails names itself and leaves the others' rows done; specs
 * of several devices that are wrong are refused.
 */
#include "reference.h"
#include "test.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The devices: OCLCONV_TEST_DEVICES (default "cpu*", PoCL's two), and
 * one of them alone: OCLCONV_TEST_DEVICE (default "cpu"). */
static const char *spec_of(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

static oclconv_context *two_devices(void)
{
    oclconv_context *ctx = NULL;
    oclconv_status s = oclconv_create(spec_of("OCLCONV_TEST_DEVICES", "cpu*"), &ctx);
    if (s != OCLCONV_OK || oclconv_device_count(ctx) < 2) {
        fprintf(stderr, "two devices wanted (POCL_DEVICES=\"pthread pthread\"): %s: %s\n",
                oclconv_strerror(s), oclconv_errmsg(NULL));
        exit(TEST_HARD_ERROR);
    }
    return ctx;
}

static oclconv_filter *filter_of(int kind)
{
    oclconv_filter *f = NULL;
    static const float w[9] = {0.1f, -0.2f, 0.3f, 0.25f, 0.4f, 0.05f, -0.1f, 0.15f, 0.05f};
    if (kind == 0)
        ASSERT_OK(NULL, oclconv_filter_create(3, 3, w, &f));
    else if (kind == 1)
        ASSERT_OK(NULL, oclconv_filter_gaussian(1.5, 1.0, 4, 3, &f));
    else
        ASSERT_OK(NULL, oclconv_filter_box(5, 2, &f));
    return f;
}

/* Every border and filter kind on the two devices against the reference,
 * integer results against one device's byte for byte; in place, and a
 * region; both devices built the programs (they ran). */
static void split_cases(oclconv_context *two, oclconv_context *one, uint64_t *rng)
{
    static const oclconv_type types[] = {OCLCONV_U8, OCLCONV_F32, OCLCONV_U16};
    int cases = 0, passed = 0;
    for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b++)
        for (int kind = 0; kind < 3; kind++, cases++) {
            int cn = 1 + (b + kind) % 4, in_place = (b * 3 + kind) % 5 == 0;
            oclconv_type type = types[(b + kind) % 3];
            oclconv_image src = image_random(rng, 300, 240, cn, type, 0);
            oclconv_image alone = image_like(&src, type, 0);
            oclconv_filter *f = filter_of(kind);
            oclconv_options opt = border_options((oclconv_border)b, 17);
            ref_result ref = ref_of_filter(&src, f, &opt);
            ASSERT_OK(one, oclconv_apply(one, &src, &alone, f, &opt));
            oclconv_image out = in_place ? src : image_like(&src, type, 0);
            char why[256] = "";
            oclconv_status s;
            long bad = ref_apply_compare(two, &src, &out, f, &opt, &ref, why, sizeof why, &s);
            int same = type == OCLCONV_F32 || memcmp(out.data, alone.data, image_bytes(&out)) == 0;
            if (s == OCLCONV_OK && bad == 0 && same)
                passed++;
            else
                TEST_FAIL_("two devices %s kind %d %s cn=%d%s: %s (%s) %ld bad %s%s",
                           border_name(opt.border), kind, type_name(type), cn,
                           in_place ? " in place" : "", oclconv_strerror(s), oclconv_errmsg(two),
                           bad, why, same ? "" : "; not one device's bytes");
            ref_result_free(&ref);
            if (!in_place)
                image_free(&out);
            image_free(&alone);
            image_free(&src);
            oclconv_filter_destroy(f);
        }
    printf("two devices: %d of %d cases pass\n", passed, cases);
    /* Each device built about what the one device did: both ran. */
    ASSERT(oclconv_programs_built(two) > oclconv_programs_built(one) * 3 / 2);
    /* A region split too: rows 20..219 of 260 wide, from the whole. */
    oclconv_image src = image_random(rng, 260, 240, 2, OCLCONV_U8, 0);
    oclconv_image dst = image_random(rng, 260, 200, 2, OCLCONV_U8, 0);
    oclconv_filter *f = filter_of(1);
    oclconv_options opt = border_options(OCLCONV_BORDER_REFLECT, 0);
    ref_result ref = ref_of_filter(&src, f, &opt);
    oclconv_region where = {260, 240, 0, 0, 0, 20};
    ASSERT_OK(two, oclconv_apply_region(two, &src, &where, &dst, f, &opt));
    ref_result part = ref;
    part.height = 200;
    part.value += (size_t)20 * 260 * 2;
    part.magnitude += (size_t)20 * 260 * 2;
    ASSERT_EQ(ref_compare(&dst, &part, NULL, 0), 0);
    ref_result_free(&ref);
    image_free(&src);
    image_free(&dst);
    oclconv_filter_destroy(f);
}

typedef struct {
    uint64_t seed;
    int failures;
} worker;

/* Two contexts over the same two devices at once. */
static void *work(void *arg)
{
    worker *w = arg;
    oclconv_context *ctx = two_devices();
    for (int i = 0; i < 6; i++) {
        oclconv_image src = image_random(&w->seed, 280, 250, 1 + i % 4, OCLCONV_U8, 0);
        oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
        oclconv_filter *f = filter_of(i % 3);
        oclconv_options opt = border_options((oclconv_border)(i % 7), 0);
        ref_result ref = ref_of_filter(&src, f, &opt);
        if (oclconv_apply(ctx, &src, &dst, f, &opt) != OCLCONV_OK ||
            ref_compare(&dst, &ref, NULL, 0) != 0)
            w->failures++;
        ref_result_free(&ref);
        image_free(&src);
        image_free(&dst);
        oclconv_filter_destroy(f);
    }
    oclconv_destroy(ctx);
    return NULL;
}

/* Their kernels first run on one thread: PoCL 3.1 asserts when two of
 * its devices in one process first run the same kernel at once (see
 * src/devices.c). */
static void two_threads(void)
{
    pthread_t t[2];
    worker w[2] = {{11, 0}, {12, 0}}, first = {11, 0};
    work(&first);
    ASSERT_EQ(first.failures, 0);
    for (int k = 0; k < 2; k++)
        ASSERT(pthread_create(&t[k], NULL, work, &w[k]) == 0);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    ASSERT_EQ(w[0].failures + w[1].failures, 0);
}

/* The second device may use too little memory for a strip: its failure
 * is the call's, named; the first device's rows hold their results and
 * the second's what they held. */
static void one_device_fails(oclconv_context *two, uint64_t *rng)
{
    oclconv_image src = image_random(rng, 300, 240, 1, OCLCONV_U8, 0);
    oclconv_image dst = image_random(rng, 300, 240, 1, OCLCONV_U8, 0);
    oclconv_image before = image_like(&dst, OCLCONV_U8, 0);
    memcpy(before.data, dst.data, image_bytes(&dst));
    oclconv_filter *f = filter_of(1);
    oclconv_options opt = border_options(OCLCONV_BORDER_CLAMP, 0);
    ref_result ref = ref_of_filter(&src, f, &opt);
    setenv("OCLCONV_DEVICE_BYTES", "1G,100", 1);
    ASSERT_STATUS(two, oclconv_apply(two, &src, &dst, f, &opt), OCLCONV_E_UNSUPPORTED);
    unsetenv("OCLCONV_DEVICE_BYTES");
    ASSERT_CONTAINS(oclconv_errmsg(two), "device 1 (");
    ASSERT_CONTAINS(oclconv_errmsg(two), "the call may use 100 (OCLCONV_DEVICE_BYTES)");
    /* Where the second share began: the first row the first device left. */
    int split = 0;
    while (split < 240 && memcmp((char *)dst.data + (size_t)split * 300,
                                 (char *)before.data + (size_t)split * 300, 300) != 0)
        split++;
    ASSERT(split > 0 && split < 240);
    ASSERT(memcmp((char *)dst.data + (size_t)split * 300, (char *)before.data + (size_t)split * 300,
                  (size_t)(240 - split) * 300) == 0);
    oclconv_image done = dst;
    done.height = split;
    ref_result part = ref;
    part.height = split;
    ASSERT_EQ(ref_compare(&done, &part, NULL, 0), 0);
    ref_result_free(&ref);
    image_free(&src);
    image_free(&dst);
    image_free(&before);
    oclconv_filter_destroy(f);
}

static void specs(void)
{
    oclconv_context *ctx = NULL;
    ASSERT_STATUS(NULL, oclconv_create("0,0", &ctx), OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "names device 0 twice");
    ASSERT_STATUS(NULL, oclconv_create("0,no such device", &ctx), OCLCONV_E_NO_DEVICE);
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "matches no OpenCL device");
    ASSERT_STATUS(NULL, oclconv_create("0,", &ctx), OCLCONV_E_NO_DEVICE);
    ASSERT(ctx == NULL);
    ASSERT_OK(NULL, oclconv_create("*", &ctx));
    ASSERT(oclconv_device_count(ctx) >= 2);
    ASSERT_CONTAINS(oclconv_device_name(ctx), " + ");
    oclconv_destroy(ctx);
}

int main(void)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    unoptimised_kernels();
    specs();
    oclconv_context *two = two_devices(), *one = NULL;
    ASSERT_OK(NULL, oclconv_create(spec_of("OCLCONV_TEST_DEVICE", "cpu"), &one));
    uint64_t rng = 77;
    printf("devices: %s\n", oclconv_device_name(two));
    split_cases(two, one, &rng);
    one_device_fails(two, &rng);
    two_threads();
    oclconv_destroy(one);
    oclconv_destroy(two);
    return test_exit();
}
