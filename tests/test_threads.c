/*
 * The threading rule, exercised: 8 threads, each with its own context,
 * 200 applies each on its own image, every result checked against the
 * reference.  One filter is shared by all threads (filters are immutable).
 */
#include "test.h"
#include "util.h"

#include <pthread.h>

#define THREADS 8
#define APPLIES 200

static const oclconv_filter *shared_filter;

typedef struct {
    int index;
    long mismatches;
    int failures;
    char why[256];
} worker;

static void *run(void *arg)
{
    worker *w = arg;
    oclconv_context *ctx = NULL;
    if (oclconv_create(NULL, &ctx) != OCLCONV_OK) {
        snprintf(w->why, sizeof w->why, "create: %s", oclconv_errmsg(NULL));
        w->failures++;
        return NULL;
    }
    uint64_t rng = 0x1234567ull + (uint64_t)w->index * 7919;
    int fw, fh;
    oclconv_filter_size(shared_filter, &fw, &fh);
    for (int i = 0; i < APPLIES && !w->failures; i++) {
        /* A different image each time, sizes that change the work split. */
        oclconv_image src = image_random(&rng, 9 + (int)(rng_next(&rng) % 40),
                                         3 + (int)(rng_next(&rng) % 30), 1 + w->index % 4,
                                         OCLCONV_U8, 0);
        oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
        oclconv_options opt;
        oclconv_options_init(&opt);
        opt.border = (oclconv_border)(i % 7);
        oclconv_status s = oclconv_apply(ctx, &src, &dst, shared_filter, &opt);
        if (s != OCLCONV_OK) {
            snprintf(w->why, sizeof w->why, "apply %d: %s", i, oclconv_errmsg(ctx));
            w->failures++;
        } else {
            ref_result ref;
            if (ref_convolve(&src, fw, fh, oclconv_filter_weights(shared_filter), &opt, &ref) == 0) {
                w->mismatches += ref_compare(&dst, &ref, w->why, sizeof w->why);
                ref_result_free(&ref);
            }
        }
        image_free(&src);
        image_free(&dst);
    }
    oclconv_destroy(ctx);
    return NULL;
}

int main(void)
{
    unoptimised_kernels();
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.2, 0.8, 2, 1, &f));
    shared_filter = f;
    pthread_t threads[THREADS];
    worker workers[THREADS];
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (worker){.index = t};
        ASSERT(pthread_create(&threads[t], NULL, run, &workers[t]) == 0);
    }
    long total = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        if (workers[t].failures || workers[t].mismatches)
            TEST_FAIL_("thread %d: %d failures, %ld mismatching values; %s", t,
                       workers[t].failures, workers[t].mismatches, workers[t].why);
        total += workers[t].mismatches;
    }
    printf("%d threads x %d applies, %ld mismatches\n", THREADS, APPLIES, total);
    oclconv_filter_destroy(f);
    return test_exit();
}
