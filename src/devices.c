/*
 * A context over several devices: a call on host images is split into
 * shares of the destination's rows, one a device, each a region of the
 * whole image (src/region.c) that the device filters from the caller's
 * memory, its halo rows read there too, on a thread of its own (CPU
 * devices in turn).  Shares follow each device's rate, measured on the
 * calls before.
 */
#include "internal.h"
#include "region.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Below this many destination pixels a call runs on the first device: a
 * thread a device and a split cost more than they give. */
#define SPLIT_MIN_PIXELS 65536

typedef struct {
    oclconv_context *ctx;
    const oclconv_image *src;
    oclconv_region where;
    oclconv_image dst;
    const oclconv_filter *f;
    const oclconv_options *opt;
    oclconv_status status;
    double seconds;
} share;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *run_share(void *arg)
{
    share *sh = arg;
    double t0 = now();
    sh->status =
        oclconv__apply_host(sh->ctx, sh->src, &sh->where, &sh->dst, sh->f, sh->opt, 0);
    sh->seconds = now() - t0;
    return NULL;
}

int oclconv__split_worth(const oclconv_context *ctx, const oclconv_image *dst)
{
    return ctx->peer_count > 0 && dst->height > ctx->peer_count &&
           (size_t)dst->width * (size_t)dst->height >= SPLIT_MIN_PIXELS;
}

void oclconv__split(const double *rates, int n, long long total, long long *first)
{
    double rate[OCLCONV_MAX_DEVICES], sum = 0, run = 0;
    int measured = 1;
    for (int k = 0; k < n; k++)
        measured &= rates[k] > 0;
    for (int k = 0; k < n; k++)
        sum += rate[k] = measured ? rates[k] : 1; /* equal shares until measured */
    first[0] = 0;
    for (int k = 1; k < n; k++) {
        run += rate[k - 1];
        long long at = (long long)((double)total * run / sum + 0.5);
        at = at < first[k - 1] + 1 ? first[k - 1] + 1 : at; /* one each at least */
        first[k] = at > total - (n - k) ? total - (n - k) : at;
    }
    first[n] = total;
}

void oclconv__on_devices(oclconv_context *ctx, void *(*task)(void *), void *args, size_t size)
{
    int n = 1 + ctx->peer_count, started[OCLCONV_MAX_DEVICES] = {0};
    pthread_t thread[OCLCONV_MAX_DEVICES];
    /* Devices that are the host's CPU share its cores: side by side they
     * would only take turns, and PoCL 3.1 asserts (its cache of loaded
     * kernels, pocl_release_dlhandle_cache) when two of its devices in one
     * process first run the same kernel at once.  They run in turn. */
    int side_by_side = !(ctx->facts.type & CL_DEVICE_TYPE_CPU);
    for (int k = 1; k < n; k++)
        side_by_side |= !(ctx->peers[k - 1]->facts.type & CL_DEVICE_TYPE_CPU);
    for (int k = 1; k < n && side_by_side; k++)
        started[k] = pthread_create(&thread[k], NULL, task, (char *)args + size * (size_t)k) == 0;
    task(args);
    for (int k = 1; k < n; k++) {
        if (started[k])
            pthread_join(thread[k], NULL);
        else
            task((char *)args + size * (size_t)k); /* in turn, or no thread to be had */
    }
}

void oclconv__update_rates(double *rates, int k, double done, double seconds)
{
    double rate = done / (seconds > 1e-9 ? seconds : 1e-9);
    rates[k] = rates[k] > 0 ? 0.5 * rates[k] + 0.5 * rate : rate;
}

oclconv_status oclconv__apply_devices(oclconv_context *ctx, const oclconv_image *src,
                                      const oclconv_region *where, oclconv_image *dst,
                                      const oclconv_filter *f, const oclconv_options *opt)
{
    int n = 1 + ctx->peer_count;
    share sh[OCLCONV_MAX_DEVICES];
    oclconv_region whole = {src->width, src->height, 0, 0, 0, 0};
    where = where ? where : &whole;
    /* Shares that overwrite rows another share reads take a copy. */
    oclconv_image copy = *src;
    oclconv_status s = oclconv__overlap(src, dst) ? oclconv__stage(ctx, src, &copy) : OCLCONV_OK;
    if (s != OCLCONV_OK)
        return s;
    long long first[OCLCONV_MAX_DEVICES + 1];
    oclconv__split(ctx->rate, n, dst->height, first);
    size_t stride = oclconv__row_stride(dst);
    for (int k = 0; k < n; k++) {
        sh[k] = (share){k ? ctx->peers[k - 1] : ctx, &copy, *where, *dst, f, opt,
                        OCLCONV_OK, 0};
        sh[k].where.dst_y += (int)first[k];
        sh[k].dst.data = (char *)dst->data + stride * (size_t)first[k];
        sh[k].dst.height = (int)(first[k + 1] - first[k]);
        sh[k].dst.stride = stride;
    }
    oclconv__on_devices(ctx, run_share, sh, sizeof *sh);
    if (copy.data != src->data)
        free(copy.data);
    double kernel_seconds = 0;
    for (int k = 0; k < n; k++) {
        if (sh[k].ctx->last_kernel_seconds > kernel_seconds)
            kernel_seconds = sh[k].ctx->last_kernel_seconds;
        if (sh[k].status != OCLCONV_OK && s == OCLCONV_OK) {
            s = sh[k].status;
            if (k > 0)
                oclconv__fail(ctx, s, "device %d (%s), rows %lld..%lld: %s", k, sh[k].ctx->name,
                              where->dst_y + first[k], where->dst_y + first[k + 1] - 1,
                              oclconv_errmsg(sh[k].ctx));
        }
    }
    if (s != OCLCONV_OK)
        return s;
    /* Rates as rows a second, half from this call: a share that ran cold
     * (building its programs) moves them, and the next calls set them right. */
    for (int k = 0; k < n; k++)
        oclconv__update_rates(ctx->rate, k, sh[k].dst.height, sh[k].seconds);
    ctx->last_kernel_seconds = kernel_seconds;
    ctx->last_method = sh[0].ctx->last_method;
    ctx->last_choice = sh[0].ctx->last_choice;
    return OCLCONV_OK;
}
