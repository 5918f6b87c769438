/*
 * The reach rows: RGBA8 Gaussian r3 and a random 2-D 7x7, end to end, as
 * one call on the whole image, in strips under a device-memory cap of a
 * quarter of the images' bytes, and split over the devices of
 * OCLCONV_BENCH_DEVICES (default "gpu*" where the bench's device is a
 * GPU); with the 2-device rate the kernel-only rates (the longest
 * device's kernel time).  --huge WxH adds one image of that size (65536x65536
 * RGBA8: 16 GiB), whole where it fits half the device's memory, and in
 * strips of a 4 GiB cap.  Images live in pinned memory where the device
 * has memory of its own.  Then the batch rows: many 256x256 RGBA8 images,
 * Gaussian r3, through oclconv_apply_batch() against a loop of
 * oclconv_apply() over the same images, from pinned and pageable memory,
 * and what the copies alone allow.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pixels and their home: pinned memory of `ctx` where it has memory of
 * its own, else malloc. */
typedef struct {
    oclconv_context *owner;
    oclconv_image src, dst;
} pair;

static int pair_make(oclconv_context *ctx, int w, int h, pair *p)
{
    size_t bytes = (size_t)w * (size_t)h * 4;
    cl_bool unified = CL_TRUE;
    clGetDeviceInfo(oclconv_cl_device(ctx), CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified,
                    &unified, NULL);
    p->owner = unified ? NULL : ctx;
    void *a = NULL, *b = NULL;
    if (p->owner) {
        if (oclconv_host_alloc(ctx, bytes, &a) != OCLCONV_OK ||
            oclconv_host_alloc(ctx, bytes, &b) != OCLCONV_OK) {
            oclconv_host_free(ctx, a);
            return -1;
        }
    } else if (!(a = malloc(bytes)) || !(b = malloc(bytes))) {
        free(a);
        return -1;
    }
    uint64_t x = 88172645463325252u; /* xorshift, a word at a time (16 GiB in seconds) */
    for (size_t i = 0; i < bytes / 8; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy((char *)a + 8 * i, &x, 8);
    }
    p->src = (oclconv_image){a, w, h, 4, OCLCONV_U8, 0};
    p->dst = (oclconv_image){b, w, h, 4, OCLCONV_U8, 0};
    return 0;
}

static void pair_free(pair *p)
{
    if (p->owner) {
        oclconv_host_free(p->owner, p->src.data);
        oclconv_host_free(p->owner, p->dst.data);
    } else {
        free(p->src.data);
        free(p->dst.data);
    }
}

/* The best of `runs` calls after one more: e2e MP/s, and the kernel MP/s. */
static double rate(oclconv_context *ctx, pair *p, const oclconv_filter *f, size_t cap, int runs,
                   double *kernel)
{
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.max_device_bytes = cap;
    double best = 0, best_k = 0, mp = (double)p->src.width * p->src.height / 1e6;
    for (int i = 0; i <= runs; i++) {
        double t0 = now();
        if (oclconv_apply(ctx, &p->src, &p->dst, f, &opt) != OCLCONV_OK) {
            fprintf(stderr, "bench: reach: %s\n", oclconv_errmsg(ctx));
            return 0;
        }
        double t = now() - t0, k = oclconv_last_kernel_seconds(ctx);
        if (i > 0 && mp / t > best)
            best = mp / t;
        if (i > 0 && k > 0 && mp / k > best_k)
            best_k = mp / k;
    }
    if (kernel)
        *kernel = best_k;
    return best;
}

static oclconv_context *several(oclconv_context *ctx)
{
    const char *spec = getenv("OCLCONV_BENCH_DEVICES");
    cl_device_type type = 0;
    clGetDeviceInfo(oclconv_cl_device(ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (!spec || !*spec)
        spec = type & CL_DEVICE_TYPE_GPU ? "gpu*" : NULL;
    oclconv_context *multi = NULL;
    if (spec && oclconv_create(spec, &multi) != OCLCONV_OK)
        fprintf(stderr, "bench: reach: devices \"%s\": %s\n", spec, oclconv_errmsg(NULL));
    if (multi && oclconv_device_count(multi) < 2) {
        oclconv_destroy(multi);
        multi = NULL;
    }
    return multi;
}

static void reach_row(oclconv_context *ctx, oclconv_context *multi, const char *name,
                const oclconv_filter *f, int w, int h, int runs)
{
    pair p;
    if (pair_make(ctx, w, h, &p) != 0) {
        printf("%-14s %5dx%-5d  no memory for the images\n", name, w, h);
        return;
    }
    double k1 = 0, k2 = 0, whole = rate(ctx, &p, f, 0, runs, &k1);
    double strips = rate(ctx, &p, f, (size_t)w * h * 4 / 2, runs, NULL);
    pair_free(&p);
    printf("%-14s %5dx%-5d %9.0f %9.0f", name, w, h, whole, strips);
    if (multi && pair_make(multi, w, h, &p) == 0) {
        double two = rate(multi, &p, f, 0, runs, &k2);
        pair_free(&p);
        printf(" %9.0f %6.2fx %9.0f %9.0f %6.2fx\n", two, two / whole, k1, k2, k2 / k1);
    } else {
        printf(" %9s\n", "n/a");
    }
    fflush(stdout);
}

void reach_rows(oclconv_context *ctx, int nsizes, int sizes[][2], const int *huge, int quick)
{
    static const float seven[49] = {
        0.01f, 0.02f, -0.01f, 0.03f, 0.02f, 0.01f, -0.02f, 0.02f, 0.04f, 0.01f, 0.02f,
        0.03f, -0.01f, 0.01f, 0.01f, 0.02f, 0.05f, 0.06f, 0.01f, 0.02f, 0.02f, 0.03f,
        0.01f, 0.04f, 0.08f, 0.04f, 0.01f, 0.03f, 0.02f, 0.02f, 0.01f, 0.06f, 0.05f,
        0.02f, 0.01f, 0.01f, -0.01f, 0.03f, 0.02f, 0.01f, 0.04f, 0.02f, -0.02f, 0.01f,
        0.02f, 0.03f, -0.01f, 0.02f, 0.01f};
    oclconv_filter *gauss = NULL, *dense = NULL;
    if (oclconv_filter_gaussian(1.0, 1.0, 3, 3, &gauss) != OCLCONV_OK ||
        oclconv_filter_create(7, 7, seven, &dense) != OCLCONV_OK)
        return;
    oclconv_context *multi = several(ctx);
    int runs = quick ? 2 : 5;
    printf("\nreach, RGBA8, clamp, e2e MP/s (best of %d calls): whole = one call; strips = "
           "options.max_device_bytes of half an image's bytes; devices = %s\n",
           runs, multi ? oclconv_device_name(multi) : "n/a (OCLCONV_BENCH_DEVICES names no 2)");
    printf("%-14s %11s %9s %9s %9s %7s %9s %9s %7s\n", "case", "size", "whole", "strips",
           "devices", "ratio", "kern 1", "kern all", "ratio");
    for (int i = 0; i < nsizes; i++) {
        reach_row(ctx, multi, "Gaussian r3", gauss, sizes[i][0], sizes[i][1], runs);
        reach_row(ctx, multi, "2-D 7x7", dense, sizes[i][0], sizes[i][1], runs);
    }
    if (huge && huge[0] > 0) {
        pair p;
        if (pair_make(ctx, huge[0], huge[1], &p) == 0) {
            double whole = rate(ctx, &p, gauss, 0, 1, NULL);
            double strips = rate(ctx, &p, gauss, (size_t)4 << 30, 1, NULL);
            printf("%-14s %5dx%-5d %9.0f %9.0f   (strips: a 4 GiB cap; best of 1 call)\n",
                   "Gaussian r3", huge[0], huge[1], whole, strips);
            pair_free(&p);
        } else {
            printf("Gaussian r3    %dx%d  no memory for the images\n", huge[0], huge[1]);
        }
    }
    oclconv_destroy(multi);
    oclconv_filter_destroy(gauss);
    oclconv_filter_destroy(dense);
}

/* Seconds for one pass over the images: a loop of calls, or one batch. */
static double batch_pass(oclconv_context *ctx, oclconv_image *src, oclconv_image *dst, int n,
                         const oclconv_filter *f, int batched)
{
    double t0 = now();
    if (batched) {
        if (oclconv_apply_batch(ctx, (size_t)n, src, dst, f, NULL, NULL) != OCLCONV_OK)
            return -1;
    } else {
        for (int i = 0; i < n; i++)
            if (oclconv_apply(ctx, &src[i], &dst[i], f, NULL) != OCLCONV_OK)
                return -1;
    }
    return now() - t0;
}

/* Seconds for the copies alone: `bytes` from a to the device and back into
 * b in chunks of 16 MiB, through a ring of 4 device buffers, the uploads
 * on a queue of their own so that both ways overlap (as the batch's
 * pipeline has them); a negative value where a call failed. */
#define CHUNK ((size_t)16 << 20)
static double copy_pass(oclconv_context *ctx, const char *a, char *b, size_t bytes)
{
    cl_context cl = oclconv_cl_context(ctx);
    cl_command_queue down = oclconv_cl_queue(ctx), up;
    cl_int err;
    cl_mem buf[4] = {0};
    cl_event read[4] = {0};
    up = clCreateCommandQueue(cl, oclconv_cl_device(ctx), 0, &err);
    for (int k = 0; k < 4 && err == CL_SUCCESS; k++)
        buf[k] = clCreateBuffer(cl, CL_MEM_READ_WRITE, CHUNK, NULL, &err);
    double t0 = now();
    for (size_t at = 0, c = 0; at < bytes && err == CL_SUCCESS; at += CHUNK, c++) {
        size_t n = bytes - at < CHUNK ? bytes - at : CHUNK;
        cl_event written = NULL, *last = &read[c % 4];
        err = clEnqueueWriteBuffer(up, buf[c % 4], CL_FALSE, 0, n, a + at, *last ? 1 : 0,
                                   *last ? last : NULL, &written);
        if (*last)
            clReleaseEvent(*last);
        *last = NULL;
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(down, buf[c % 4], CL_FALSE, 0, n, b + at, 1, &written,
                                      last);
        if (written)
            clReleaseEvent(written);
        clFlush(up);
        clFlush(down);
    }
    if (up && clFinish(up) != CL_SUCCESS)
        err = CL_OUT_OF_RESOURCES;
    if (clFinish(down) != CL_SUCCESS)
        err = CL_OUT_OF_RESOURCES;
    double t = now() - t0;
    for (int k = 0; k < 4; k++) {
        if (read[k])
            clReleaseEvent(read[k]);
        if (buf[k])
            clReleaseMemObject(buf[k]);
    }
    if (up)
        clReleaseCommandQueue(up);
    return err == CL_SUCCESS ? t : -1;
}

void batch_rows(oclconv_context *ctx, int quick)
{
    const int n = quick ? 500 : 10000, side = 256, runs = quick ? 1 : 3;
    size_t bytes = (size_t)side * side * 4;
    oclconv_filter *f = NULL;
    oclconv_image *src = calloc((size_t)n, sizeof *src), *dst = calloc((size_t)n, sizeof *dst);
    if (!src || !dst || oclconv_filter_gaussian(1.0, 1.0, 3, 3, &f) != OCLCONV_OK) {
        free(src);
        free(dst);
        return;
    }
    printf("\nbatch, %d images of %dx%d RGBA8, Gaussian r3, images a second (the best of %d "
           "passes after one; copies: the images' bytes up and back alone):\n"
           "%-10s %12s %12s %7s %12s %9s\n",
           n, side, side, runs, "memory", "loop", "batch", "ratio", "copies", "of copies");
    for (int pinned = 0; pinned < 2; pinned++) {
        void *a = NULL, *b = NULL;
        int ok = pinned ? oclconv_host_alloc(ctx, bytes * (size_t)n, &a) == OCLCONV_OK &&
                              oclconv_host_alloc(ctx, bytes * (size_t)n, &b) == OCLCONV_OK
                        : (a = malloc(bytes * (size_t)n)) != NULL &&
                              (b = malloc(bytes * (size_t)n)) != NULL;
        if (ok) {
            memset(a, 77, bytes * (size_t)n);
            for (int i = 0; i < n; i++) {
                src[i] = (oclconv_image){(char *)a + bytes * (size_t)i, side, side, 4, OCLCONV_U8, 0};
                dst[i] = (oclconv_image){(char *)b + bytes * (size_t)i, side, side, 4, OCLCONV_U8, 0};
            }
            double best[3] = {1e30, 1e30, 1e30};
            for (int r = 0; r <= runs; r++)
                for (int k = 0; k < 3; k++) {
                    double t = k < 2 ? batch_pass(ctx, src, dst, n, f, k)
                                     : copy_pass(ctx, a, b, bytes * (size_t)n);
                    if (r > 0 && t > 0 && t < best[k])
                        best[k] = t;
                }
            printf("%-10s %12.0f %12.0f %6.2fx %12.0f %8.0f%%\n", pinned ? "pinned" : "pageable",
                   n / best[0], n / best[1], best[0] / best[1], n / best[2],
                   100 * best[2] / best[1]);
        } else {
            printf("%-10s no memory for the images\n", pinned ? "pinned" : "pageable");
        }
        if (pinned) {
            oclconv_host_free(ctx, a);
            oclconv_host_free(ctx, b);
        } else {
            free(a);
            free(b);
        }
        fflush(stdout);
    }
    oclconv_filter_destroy(f);
    free(src);
    free(dst);
}

