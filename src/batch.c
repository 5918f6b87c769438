/*
 * oclconv_apply_batch(): many images with one filter.  Every pair is
 * checked and planned before any work; then, on a device with memory of
 * its own, the images go through the parts pipeline of src/region.c (each
 * image one part: its upload on the second queue while the kernels and
 * read-back of the ones before run), and on a device that works in host
 * memory each is filtered where it lies, one after the other.  On a
 * context over several devices the images are shared among them by their
 * rates (images a second).
 */
#include "internal.h"
#include "region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Buffer sets the images go through: a few in flight hide the copies. */
#define BATCH_RING 4
/* A stack's bytes on the device at most (its source, result and
 * intermediate): enough images that a launch's and a flush's costs are
 * shared by many. */
#define STACK_BYTES ((size_t)16 << 20)
/* On a device that works in host memory, the largest image (source and
 * result) a stack takes. */
#define HOST_STACKED ((size_t)512 << 10)

typedef struct {
    oclconv__region r;
    oclconv__job job;
    oclconv_image part[2];
    int piped; /* through the pipeline, else a call of its own */
    int whole; /* planned as the caller's images themselves */
} item;

/* Puts "image i: " before the context's message; returns s. */
static oclconv_status name_image(oclconv_context *ctx, oclconv_status s, size_t i)
{
    char why[1024];
    snprintf(why, sizeof why, "%s", oclconv_errmsg(ctx));
    return oclconv__fail(ctx, s, "image %zu: %s", i, why);
}

/* Checks and plans pair i into it; the message names the image. */
static oclconv_status prepare(oclconv_context *ctx, const oclconv_image *src, oclconv_image *dst,
                              size_t i, const oclconv_filter *f, const oclconv_options *opt,
                              item *it)
{
    memset(it, 0, sizeof *it);
    it->job.src = &src[i];
    it->job.dst = &dst[i];
    it->job.filter = f;
    oclconv_status s = oclconv__validate(ctx, &it->job, opt, 1);
    if (s == OCLCONV_OK)
        s = oclconv__region_of(ctx, &it->r, NULL, &it->job);
    if (s == OCLCONV_OK) {
        it->r.staged = oclconv__overlap(&src[i], &dst[i]);
        it->r.in_batch = 1;
        s = oclconv__region_plan(ctx, &it->r, &it->job, it->part, &it->whole);
    }
    if (s == OCLCONV_OK)
        s = oclconv__region_parts(ctx, &it->r, &it->job);
    if (s != OCLCONV_OK) {
        return name_image(ctx, s, i);
    }
    it->piped = it->r.parts == 1 && !it->r.staged && it->job.method != OCLCONV_METHOD_IMAGE;
    it->r.ring = BATCH_RING;
    return OCLCONV_OK;
}

/* Whether b goes into the stack a starts: both whole images of one shape
 * and one plan, on a path that filters stacks. */
static int stacks_with(const item *a, const item *b)
{
    const oclconv_image *s = a->job.src, *d = a->job.dst, *t = b->job.src, *e = b->job.dst;
    oclconv__job x = a->job, y = b->job;
    x.src = y.src = NULL;
    x.dst = y.dst = NULL;
    return a->piped && b->piped && a->whole && b->whole && oclconv__stackable(&a->job) &&
           s->width == t->width && s->height == t->height && s->channels == t->channels &&
           s->type == t->type && d->channels == e->channels && d->type == e->type &&
           memcmp(&x, &y, sizeof x) == 0;
}

/* Images of it's shape a stack may hold: within STACK_BYTES, the device
 * bytes a call may use over the ring, and the largest allocation, each
 * image's buffers sized as a part's (oclconv__row_bytes()). */
static int stack_most(oclconv_context *ctx, const item *it)
{
    const oclconv__job *job = &it->job;
    size_t io, mid, rows = (size_t)job->src->height, budget = STACK_BYTES;
    oclconv__row_bytes(job, job->src->width, &io, &mid);
    if (oclconv__device_budget(ctx, job, &budget) != OCLCONV_OK)
        oclconv__clear_error(ctx);
    budget = budget / BATCH_RING < STACK_BYTES ? budget / BATCH_RING : STACK_BYTES;
    size_t n = budget / (rows * (io + mid));
    size_t by_alloc = ctx->facts.max_alloc / (rows * (io > mid ? io : mid));
    n = n < by_alloc ? n : by_alloc;
    return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

/* Whether images go through the pipeline on this device: it has memory of
 * its own, or OCLCONV_BANDS asks (any device). */
static int pipelined(const oclconv_context *ctx)
{
    const char *env = getenv("OCLCONV_BANDS");
    return !ctx->facts.unified_memory || (env && atoi(env) > 1);
}

/* The n pairs on one device; *failed the first image not done. */
static oclconv_status batch_one(oclconv_context *ctx, size_t n, const oclconv_image *src,
                                oclconv_image *dst, const oclconv_filter *f,
                                const oclconv_options *opt, size_t *failed)
{
    item *it = calloc(n ? n : 1, sizeof *it);
    oclconv__part *p = calloc(n ? n : 1, sizeof *p);
    oclconv_status s = it && p ? OCLCONV_OK
                               : oclconv__fail(ctx, OCLCONV_E_NOMEM,
                                               "out of memory for a batch of %zu images", n);
    int pipe = pipelined(ctx);
    size_t i = 0;
    for (; i < n && s == OCLCONV_OK; i++)
        s = prepare(ctx, src, dst, i, f, opt, &it[i]);
    if (s != OCLCONV_OK) {
        *failed = i ? i - 1 : 0;
        free(it);
        free(p);
        return s;
    }
    /* On a device that works in host memory an image is filtered where it
     * lies, unless it is small and stacks with a neighbour: there one launch
     * for many saves more than the copies cost. */
    for (int with_next = 0, with_last; !pipe && i-- > 0; with_next = with_last) {
        with_last = i > 0 && stacks_with(&it[i - 1], &it[i]) &&
                    oclconv__image_bytes(it[i].job.src) + oclconv__image_bytes(it[i].job.dst) <=
                        HOST_STACKED && stack_most(ctx, &it[i]) > 1;
        it[i].piped = it[i].piped && (with_last || with_next);
    }
    /* Runs of piped images through the pipeline, the others alone. */
    for (i = 0; i < n && s == OCLCONV_OK;) {
        /* Same-shaped images in stacks, one launch each. */
        size_t run = 0, first = 0;
        int most = 1;
        for (; i + run < n && it[i + run].piped; run++) {
            p[run] = (oclconv__part){&it[i + run].r, &it[i + run].job, 0, 1};
            if (run > first && p[first].stack < most && stacks_with(&it[i + first], &it[i + run])) {
                p[first].stack++;
            } else {
                first = run;
                most = stack_most(ctx, &it[i + run]);
            }
        }
        if (run) {
            int bad = -1;
            s = oclconv__run_parts(ctx, p, (int)run, BATCH_RING, oclconv__run_buffer_path, &bad);
            *failed = i + (size_t)(bad > 0 ? bad : 0);
            i += run;
        } else {
            s = oclconv__apply_host(ctx, &src[i], NULL, &dst[i], f, opt, 0);
            *failed = i++;
        }
    }
    oclconv__collect_kernel_time(ctx);
    if (s != OCLCONV_OK) {
        name_image(ctx, s, *failed);
    } else if (n) {
        ctx->last_method = it[n - 1].job.method;
        ctx->last_choice = it[n - 1].job.choice;
    }
    free(it);
    free(p);
    return s;
}

typedef struct {
    oclconv_context *ctx;
    size_t first, count;
    const oclconv_image *src;
    oclconv_image *dst;
    const oclconv_filter *f;
    const oclconv_options *opt;
    oclconv_status status;
    size_t failed;
    double seconds;
} share;

static void *run_share(void *arg)
{
    share *sh = arg;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sh->status = batch_one(sh->ctx, sh->count, sh->src + sh->first, sh->dst + sh->first, sh->f,
                           sh->opt, &sh->failed);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    sh->failed += sh->first;
    sh->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return NULL;
}

oclconv_status oclconv_apply_batch(oclconv_context *ctx, size_t n, const oclconv_image *src,
                                   oclconv_image *dst, const oclconv_filter *f,
                                   const oclconv_options *opt, size_t *failed)
{
    if (failed)
        *failed = 0;
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_apply_batch: context is NULL");
    oclconv__clear_error(ctx);
    if (n && (!src || !dst))
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "oclconv_apply_batch: %zu images but no %s array", n,
                             !src ? "source" : "destination");
    if (n > (size_t)1 << 30)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "oclconv_apply_batch: %zu images; at most 2^30 a call", n);
    int devices = 1 + ctx->peer_count;
    share sh[OCLCONV_MAX_DEVICES];
    long long first[OCLCONV_MAX_DEVICES + 1];
    if ((size_t)devices > n)
        devices = 1;
    /* Every pair is checked before any device starts. */
    for (size_t i = 0; i < n && devices > 1; i++) {
        oclconv__job job = {0};
        job.src = &src[i];
        job.dst = &dst[i];
        job.filter = f;
        oclconv_status s = oclconv__validate(ctx, &job, opt, 1);
        if (s != OCLCONV_OK) {
            if (failed)
                *failed = i;
            return name_image(ctx, s, i);
        }
    }
    oclconv__split(ctx->batch_rate, devices, (long long)n, first);
    for (int k = 0; k < devices; k++)
        sh[k] = (share){k ? ctx->peers[k - 1] : ctx, (size_t)first[k],
                        (size_t)(first[k + 1] - first[k]), src, dst, f, opt, OCLCONV_OK, 0, 0};
    if (devices > 1)
        oclconv__on_devices(ctx, run_share, sh, sizeof *sh);
    else
        run_share(&sh[0]);
    oclconv_status s = OCLCONV_OK;
    for (int k = 0; k < devices && s == OCLCONV_OK; k++)
        if ((s = sh[k].status) != OCLCONV_OK) {
            if (failed)
                *failed = sh[k].failed;
            if (k > 0)
                oclconv__fail(ctx, s, "device %d (%s): %s", k, sh[k].ctx->name,
                              oclconv_errmsg(sh[k].ctx));
        }
    for (int k = 0; k < devices && s == OCLCONV_OK && devices > 1; k++)
        oclconv__update_rates(ctx->batch_rate, k, (double)sh[k].count, sh[k].seconds);
    if (s == OCLCONV_OK && n) {
        ctx->last_method = sh[0].ctx->last_method;
        ctx->last_choice = sh[0].ctx->last_choice;
    }
    return s;
}
