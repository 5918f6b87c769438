/*
 * The parts pipeline: a region's parts, or a batch's images and stacks, go
 * through a ring of buffer sets on a device with memory of its own.  Every
 * upload goes on a second queue; the context's queue runs a unit's kernels
 * as soon as its rows are in, then reads its result back, and the upload
 * of unit k + ring waits for unit k's read-back.  A unit is a part, or a
 * batch's stack (src/batch.c): whole images of one shape and plan, their
 * uploads, one launch, their read-backs.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>

typedef oclconv__span span;

/* Copies the part's source runs to the device buffer `in`, on the upload
 * queue after *wait; *done is the last copy's event. */
static oclconv_status upload(oclconv_context *ctx, const oclconv__region *r, const span *sx,
                             const span *sy, cl_mem in, int row0, const cl_event *wait,
                             cl_event *done)
{
    const oclconv_image *src = r->src;
    size_t px = oclconv__pixel_bytes(src), stride = oclconv__row_stride(src);
    size_t pitch = (size_t)sx->size * px;
    oclconv_status s = OCLCONV_OK;
    int at_y = 0;
    for (int j = 0; j < sy->runs && s == OCLCONV_OK; at_y += sy->len[j++]) {
        int at_x = 0;
        for (int i = 0; i < sx->runs && s == OCLCONV_OK; at_x += sx->len[i++]) {
            const char *host = (const char *)src->data +
                               (size_t)(sy->from[j] - r->src_y) * stride +
                               (size_t)(sx->from[i] - r->src_x) * px;
            oclconv__rect rect = {in, pitch, (size_t)at_x * px, row0 + at_y,
                                  (char *)(uintptr_t)host, stride, (size_t)sx->len[i] * px,
                                  sy->len[j]};
            cl_event e = NULL;
            s = oclconv__copy(ctx, ctx->upload_queue, &rect, 1, j + i == 0 ? wait : NULL, &e);
            if (*done)
                clReleaseEvent(*done);
            *done = e;
        }
    }
    return s;
}

/* The part's results from the device buffer `out`, its image from row
 * row0, into the destination. */
static oclconv_status read_back(oclconv_context *ctx, const oclconv__region *r, const span *sx,
                                const span *sy, int d0, int d1, cl_mem out, int row0,
                                cl_event *done)
{
    const oclconv_image *dst = r->dst;
    size_t px = oclconv__pixel_bytes(dst), stride = oclconv__row_stride(dst);
    oclconv__rect rect = {out, (size_t)sx->size * px, (size_t)sx->out_at * px, row0 + sy->out_at,
                          (char *)dst->data + (size_t)(d0 - r->dst_y) * stride, stride,
                          (size_t)dst->width * px, d1 - d0};
    return oclconv__copy(ctx, ctx->queue, &rect, 0, NULL, done);
}

static oclconv_status ensure_upload_queue(oclconv_context *ctx)
{
    if (ctx->upload_queue)
        return OCLCONV_OK;
    cl_int err;
    ctx->upload_queue = clCreateCommandQueue(ctx->cl, ctx->device, 0, &err);
    if (err == CL_SUCCESS)
        return OCLCONV_OK;
    ctx->upload_queue = NULL;
    return oclconv__cl_fail(ctx, err, "clCreateCommandQueue (uploads)");
}

/* Images a unit of the pipeline holds: a part, or a batch's stack. */
static int unit_images(const oclconv__part *p)
{
    return p->stack > 1 ? p->stack : 1;
}

/* How many of a stack's images from i lie one after the other in host
 * memory, packed (the source's, else the destination's): one copy each
 * way takes them all. */
static int adjacent(const oclconv__part *p, int i, int n, int source)
{
    const oclconv_image *a = source ? p[i].r->src : p[i].r->dst;
    size_t bytes = oclconv__image_bytes(a);
    int k = 1;
    while (i + k < n && oclconv__row_stride(a) == oclconv__packed_row(a)) {
        const oclconv_image *b = source ? p[i + k].r->src : p[i + k].r->dst;
        if (b->data != (const char *)a->data + bytes * (size_t)k ||
            oclconv__row_stride(b) != oclconv__packed_row(b))
            break;
        k++;
    }
    return k;
}

/* A unit's upload into ring set `set`, after *wait: a stack's images one
 * after the other, each whole. */
static oclconv_status start_part(oclconv_context *ctx, const oclconv__part *p, int set,
                                 const cl_event *wait, cl_event *uploaded)
{
    const oclconv__region *r = p->r;
    const oclconv__job *job = p->job;
    int d0, d1, most0, most1, slot = OCLCONV_BAND_SLOT(set), n = unit_images(p);
    oclconv__part_rows(r, p->k, r->parts, &d0, &d1);
    oclconv__part_rows(r, 0, r->parts, &most0, &most1);
    span sx = oclconv__col_span(r, job), sy = oclconv__row_span(r, job, d0, d1);
    /* Every part of the ring's set fits: the largest part's rows. */
    size_t rows = (size_t)(most1 - most0 + 1) + 2 * (size_t)oclconv__reach_y(job);
    rows = rows > (size_t)sy.size ? rows : (size_t)sy.size;
    if (n > 1)
        rows = (size_t)sy.size * (size_t)n;
    cl_mem in, out;
    size_t px_in = oclconv__pixel_bytes(job->src), px_out = oclconv__pixel_bytes(job->dst);
    oclconv_status s = oclconv__scratch(ctx, slot, px_in * sx.size * rows, &in);
    if (s == OCLCONV_OK)
        s = oclconv__scratch(ctx, slot + 1, px_out * sx.size * rows, &out);
    for (int i = 0, k; i < n && s == OCLCONV_OK; i += k) {
        span rows_k = sy;
        k = adjacent(p, i, n, 1);
        if (k > 1) /* whole images: one run of rows each */
            rows_k.len[0] = rows_k.size = sy.size * k;
        s = upload(ctx, p[i].r, &sx, &rows_k, in, i * sy.size, i ? NULL : wait, uploaded);
    }
    return s;
}

/* A unit's kernels after its upload, then its read-back (*read). */
static oclconv_status finish_part(oclconv_context *ctx, const oclconv__part *p, int set,
                                  const cl_event *uploaded, oclconv__path_fn run, cl_event *read)
{
    const oclconv__region *r = p->r;
    int d0, d1, slot = OCLCONV_BAND_SLOT(set), n = unit_images(p);
    oclconv__part_rows(r, p->k, r->parts, &d0, &d1);
    span sx = oclconv__col_span(r, p->job), sy = oclconv__row_span(r, p->job, d0, d1);
    oclconv_image src, dst;
    oclconv__job part = oclconv__part_job(p->job, &sx, &sy, &src, &dst);
    part.stack = n;
    oclconv__io io = {ctx->scratch[slot], ctx->scratch[slot + 1], 0, 0};
    ctx->wait_list = uploaded;
    ctx->wait_count = 1;
    oclconv_status s = run(ctx, &part, &io);
    ctx->wait_list = NULL;
    ctx->wait_count = 0;
    for (int i = 0, k; i < n && s == OCLCONV_OK; i += k) {
        if (*read)
            clReleaseEvent(*read);
        *read = NULL;
        k = adjacent(p, i, n, 0);
        s = read_back(ctx, p[i].r, &sx, &sy, d0, d0 + (d1 - d0) * k, io.out, i * sy.size, read);
    }
    if (ctx->kernel_event_count > OCLCONV_MAX_EVENTS - OCLCONV_MAX_KERNELS)
        oclconv__bank_kernel_time(ctx);
    return s;
}

oclconv_status oclconv__run_parts(oclconv_context *ctx, const oclconv__part *p, int n, int ring,
                                  oclconv__path_fn run, int *failed)
{
    cl_event uploaded[OCLCONV_MAX_BANDS] = {0};
    int bad = 0, units = 0;
    /* unit[u]: the part unit u starts at (a part, or a stack's first). */
    int *unit = malloc(((size_t)n + 1) * sizeof *unit);
    if (!unit)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for %d parts", n);
    for (int k = 0; k < n; k += unit_images(&p[k]))
        unit[units++] = k;
    unit[units] = n;
    oclconv_status s = ensure_upload_queue(ctx);
    for (int j = 0; j < ring && j < units && s == OCLCONV_OK; j++)
        if ((s = start_part(ctx, &p[unit[j]], j, NULL, &uploaded[j])) != OCLCONV_OK)
            bad = unit[j];
    if (s == OCLCONV_OK)
        clFlush(ctx->upload_queue);
    for (int u = 0; u < units && s == OCLCONV_OK; u++) {
        cl_event read = NULL;
        s = finish_part(ctx, &p[unit[u]], u % ring, &uploaded[u % ring], run, &read);
        bad = unit[u];
        clReleaseEvent(uploaded[u % ring]);
        uploaded[u % ring] = NULL;
        if (s == OCLCONV_OK && u + ring < units) {
            s = start_part(ctx, &p[unit[u + ring]], u % ring, &read, &uploaded[u % ring]);
            bad = unit[u + ring];
            clFlush(ctx->upload_queue);
            clFlush(ctx->queue);
        }
        if (read)
            clReleaseEvent(read);
    }
    free(unit);
    /* Nothing may still touch the caller's memory, done or failed. */
    cl_int err = ctx->upload_queue ? clFinish(ctx->upload_queue) : CL_SUCCESS;
    cl_int err2 = clFinish(ctx->queue);
    if (s == OCLCONV_OK && (err != CL_SUCCESS || err2 != CL_SUCCESS)) {
        s = oclconv__cl_fail(ctx, err != CL_SUCCESS ? err : err2, "clFinish");
        bad = 0; /* which command failed is not known */
    }
    for (int j = 0; j < ring; j++)
        if (uploaded[j])
            clReleaseEvent(uploaded[j]);
    if (failed)
        *failed = s == OCLCONV_OK ? -1 : bad;
    return s;
}

