/*
 * The parts pipeline: a region's parts, or a batch's images and stacks, go
 * through a ring of buffer sets on a device with memory of its own.  Every
 * upload goes on a second queue; the context's queue runs a unit's kernels
 * as soon as its rows are in, then reads its result back, and the upload
 * of unit k + ring waits for unit k's read-back.  A unit is a part, or a
 * batch's stack (src/batch.c): whole images of one shape and plan, their
 * uploads, one launch, their read-backs.  From pageable memory each unit's
 * source is staged and its upload flushed at once, and its results are
 * copied out while the device works on the next unit's (docs/performance.md,
 * "Staged bands, copied out as they come back").
 */
#include "internal.h"
#include "host_copy.h"
#include "region.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

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

oclconv_status oclconv__read_back(oclconv_context *ctx, const oclconv__region *r, const span *sx,
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

/* A call from pageable memory (a batch, an image's bands) goes through
 * pinned staging: each set's source and results pass through host buffers
 * of the context's (oclconv_host_alloc()), filled and emptied by the
 * copier's threads, so that the link runs at its pinned rate.  `on` for
 * the call; `held[k]` the unit whose results set k's buffer holds, not yet
 * copied out, or -1. */
typedef struct {
    int on;
    oclconv__copier *copier;
    int held[OCLCONV_MAX_BANDS];
} staging;

/* A device with memory of its own and an image outside pinned memory;
 * OCLCONV_STAGE=1 stages any call through the pipeline, 0 none. */
int oclconv__stages(const oclconv_context *ctx, const oclconv_image *src,
                    const oclconv_image *dst)
{
    const char *env = getenv("OCLCONV_STAGE");
    if (env && *env)
        return atoi(env) > 0;
    return !ctx->facts.unified_memory &&
           (!oclconv__host_pinned(ctx, src->data, oclconv__image_span(src)) ||
            !oclconv__host_pinned(ctx, dst->data, oclconv__image_span(dst)));
}

/* A unit's part: its destination rows d0 .. d1 - 1 and its extents. */
typedef struct {
    int d0, d1;
    span sx, sy;
} extent;

static extent extent_of(const oclconv__part *p)
{
    extent e;
    oclconv__part_rows(p->r, p->k, p->r->parts, &e.d0, &e.d1);
    e.sx = oclconv__col_span(p->r, p->job);
    e.sy = oclconv__row_span(p->r, p->job, e.d0, e.d1);
    return e;
}

/* Whether the call stages: an image of it does, and no unit passes
 * OCLCONV_STAGED_MOST. */
static int stages(const oclconv_context *ctx, const oclconv__part *p, int n)
{
    int any = 0;
    for (int i = 0; i < n; i += unit_images(&p[i])) {
        extent e = extent_of(&p[i]);
        size_t px = oclconv__pixel_bytes(p[i].r->src), out = oclconv__pixel_bytes(p[i].r->dst);
        size_t values = (size_t)e.sx.size * (size_t)e.sy.size * (size_t)unit_images(&p[i]);
        if (values * (px > out ? px : out) > OCLCONV_STAGED_MOST)
            return 0;
        for (int k = i; k < i + unit_images(&p[i]) && !any; k++)
            any = oclconv__stages(ctx, p[k].r->src, p[k].r->dst);
    }
    return any;
}

/* Set `set`'s staging buffer for the source (or the results) of at least
 * `bytes`. */
static oclconv_status stage_buffer(oclconv_context *ctx, int set, int source, size_t bytes,
                                   char **out)
{
    int k = 2 * set + !source;
    if (ctx->stage_size[k] < bytes) {
        oclconv_host_free(ctx, ctx->stage[k]);
        ctx->stage[k] = NULL;
        ctx->stage_size[k] = 0;
        oclconv_status s = oclconv_host_alloc(ctx, bytes, &ctx->stage[k]);
        if (s != OCLCONV_OK)
            return s;
        ctx->stage_size[k] = bytes;
    }
    *out = ctx->stage[k];
    return OCLCONV_OK;
}

/* Copies a unit's n sources' runs into `stage` as its device buffer holds
 * them (each image sy.size rows of sx.size pixels), or its results' rows
 * out of what was read back from row sy.out_at; rows that lie one after
 * the other on both sides in one move.  Returns 0, or -1 out of memory. */
static int stage_copy(const staging *st, const oclconv__part *p, int n, const extent *e,
                      int source, char *stage)
{
    const oclconv_image *first = source ? p->r->src : p->r->dst;
    size_t px = oclconv__pixel_bytes(first), row = (size_t)e->sx.size * px;
    size_t most = (size_t)n * (size_t)e->sy.size * (size_t)e->sx.runs;
    oclconv__move *m = malloc(most * sizeof *m);
    if (!m)
        return -1;
    size_t count = 0;
    for (int i = 0; i < n; i++) {
        const oclconv__region *r = p[i].r;
        const oclconv_image *img = source ? r->src : r->dst;
        size_t stride = oclconv__row_stride(img);
        char *at = stage + (size_t)i * (size_t)e->sy.size * row;
        if (source) {
            for (int j = 0; j < e->sy.runs; j++)
                for (int y = e->sy.from[j]; y < e->sy.from[j] + e->sy.len[j]; y++)
                    for (int q = 0; q < e->sx.runs; q++, at += (size_t)e->sx.len[q - 1] * px)
                        m[count++] = (oclconv__move){
                            at, (char *)img->data + (size_t)(y - r->src_y) * stride +
                                    (size_t)(e->sx.from[q] - r->src_x) * px,
                            (size_t)e->sx.len[q] * px};
        } else {
            for (int y = e->d0; y < e->d1; y++, at += row)
                m[count++] = (oclconv__move){(char *)img->data + (size_t)(y - r->dst_y) * stride,
                                             at + (size_t)e->sx.out_at * px,
                                             (size_t)img->width * px};
        }
    }
    /* Moves that continue one another on both sides become one. */
    size_t kept = 0;
    for (size_t k = 0; k < count; k++)
        if (kept && m[kept - 1].to + m[kept - 1].bytes == m[k].to &&
            m[kept - 1].from + m[kept - 1].bytes == m[k].from)
            m[kept - 1].bytes += m[k].bytes;
        else
            m[kept++] = m[k];
    oclconv__copier_run(st->copier, m, kept);
    free(m);
    return 0;
}

/* Copies out the results set `set` holds once its read-back `read` is done. */
static oclconv_status settle(oclconv_context *ctx, staging *st, const oclconv__part *p,
                             const int *unit, int set, cl_event read)
{
    int u = st->held[set];
    st->held[set] = -1;
    if (u < 0)
        return OCLCONV_OK;
    cl_int err = clWaitForEvents(1, &read);
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(ctx, err, "reading the result (clEnqueueReadBuffer)");
    extent e = extent_of(&p[unit[u]]);
    if (stage_copy(st, &p[unit[u]], unit[u + 1] - unit[u], &e, 0, ctx->stage[2 * set + 1]))
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the staged copies");
    return OCLCONV_OK;
}

/* A unit's upload into ring set `set`, after *wait: a stack's images one
 * after the other, each whole; staged, through the set's host buffer. */
static oclconv_status start_part(oclconv_context *ctx, const staging *st, const oclconv__part *p,
                                 int set, const cl_event *wait, cl_event *uploaded)
{
    const oclconv__job *job = p->job;
    int most0, most1, slot = OCLCONV_BAND_SLOT(set), n = unit_images(p);
    extent e = extent_of(p);
    span sx = e.sx, sy = e.sy;
    oclconv__part_rows(p->r, 0, p->r->parts, &most0, &most1);
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
    if (s == OCLCONV_OK && st->on) {
        char *stage;
        size_t bytes = px_in * (size_t)sx.size * (size_t)sy.size * (size_t)n;
        if ((s = stage_buffer(ctx, set, 1, bytes, &stage)) != OCLCONV_OK)
            return s;
        if (stage_copy(st, p, n, &e, 1, stage))
            return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the staged copies");
        cl_int err = clEnqueueWriteBuffer(ctx->upload_queue, in, CL_FALSE, 0, bytes, stage,
                                          wait ? 1 : 0, wait, uploaded);
        return err == CL_SUCCESS ? OCLCONV_OK
                                 : oclconv__cl_fail(ctx, err, "uploading the source "
                                                              "(clEnqueueWriteBuffer)");
    }
    for (int i = 0, k; i < n && s == OCLCONV_OK; i += k) {
        span rows_k = sy;
        k = adjacent(p, i, n, 1);
        if (k > 1) /* whole images: one run of rows each */
            rows_k.len[0] = rows_k.size = sy.size * k;
        s = upload(ctx, p[i].r, &sx, &rows_k, in, i * sy.size, i ? NULL : wait, uploaded);
    }
    return s;
}

/* A unit's kernels after its upload, then its read-back (*read); staged,
 * into the set's host buffer (*held set to 1). */
static oclconv_status finish_part(oclconv_context *ctx, const staging *st, const oclconv__part *p,
                                  int set, const cl_event *uploaded, oclconv__path_fn run,
                                  cl_event *read, int *held)
{
    int slot = OCLCONV_BAND_SLOT(set), n = unit_images(p);
    extent e = extent_of(p);
    int d0 = e.d0, d1 = e.d1;
    span sx = e.sx, sy = e.sy;
    oclconv_image src, dst;
    oclconv__job part = oclconv__part_job(p->job, &sx, &sy, &src, &dst);
    part.stack = n;
    oclconv__io io = {.in = ctx->scratch[slot], .out = ctx->scratch[slot + 1]};
    ctx->wait_list = uploaded;
    ctx->wait_count = 1;
    oclconv_status s = run(ctx, &part, &io);
    ctx->wait_list = NULL;
    ctx->wait_count = 0;
    *held = 0;
    if (s == OCLCONV_OK && st->on) {
        /* Rows sy.out_at .. of the part's result (a stack's images whole). */
        char *stage;
        size_t row = (size_t)dst.width * oclconv__pixel_bytes(&dst);
        size_t rows = (size_t)(n - 1) * (size_t)sy.size + (size_t)(d1 - d0);
        if ((s = stage_buffer(ctx, set, 0, rows * row, &stage)) != OCLCONV_OK)
            return s;
        cl_int err = clEnqueueReadBuffer(ctx->queue, io.out, CL_FALSE, (size_t)sy.out_at * row,
                                         rows * row, stage, 0, NULL, read);
        if (err != CL_SUCCESS)
            return oclconv__cl_fail(ctx, err, "reading the result (clEnqueueReadBuffer)");
        *held = 1;
    } else {
        for (int i = 0, k; i < n && s == OCLCONV_OK; i += k) {
            if (*read)
                clReleaseEvent(*read);
            *read = NULL;
            k = adjacent(p, i, n, 0);
            s = oclconv__read_back(ctx, p[i].r, &sx, &sy, d0, d0 + (d1 - d0) * k, io.out,
                                   i * sy.size, read);
        }
    }
    if (ctx->kernel_event_count > OCLCONV_MAX_EVENTS - OCLCONV_MAX_KERNELS)
        oclconv__bank_kernel_time(ctx);
    return s;
}

/* Threads that copy a staged batch: half the host's cores, 2 to
 * OCLCONV_COPY_THREADS. */
static int copy_threads(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN) / 2;
    return cores < 2 ? 2 : cores > OCLCONV_COPY_THREADS ? OCLCONV_COPY_THREADS : (int)cores;
}

oclconv_status oclconv__run_parts(oclconv_context *ctx, const oclconv__part *p, int n, int ring,
                                  oclconv__path_fn run, int *failed)
{
    cl_event uploaded[OCLCONV_MAX_BANDS] = {0}, read[OCLCONV_MAX_BANDS] = {0};
    int bad = 0, units = 0;
    /* unit[u]: the part unit u starts at (a part, or a stack's first). */
    int *unit = malloc(((size_t)n + 1) * sizeof *unit);
    if (!unit)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for %d parts", n);
    for (int k = 0; k < n; k += unit_images(&p[k]))
        unit[units++] = k;
    unit[units] = n;
    /* Staged, unit k's upload follows unit k - ring + 1's results: the one
     * before them is copied out while the device works on them. */
    staging st = {stages(ctx, p, n), NULL, {0}};
    int lag = st.on && ring > 1;
    for (int j = 0; j < ring; j++)
        st.held[j] = -1;
    if (st.on && !oclconv__copier_ours(ctx->copier)) /* none yet, or a fork's copy */
        ctx->copier = oclconv__copier_start(copy_threads());
    st.copier = ctx->copier;
    oclconv_status s = ensure_upload_queue(ctx);
    for (int j = 0; j < ring - lag && j < units && s == OCLCONV_OK; j++) {
        if ((s = start_part(ctx, &st, &p[unit[j]], j, NULL, &uploaded[j])) != OCLCONV_OK)
            bad = unit[j];
        clFlush(ctx->upload_queue); /* each upload under way as soon as it is staged */
    }
    for (int u = 0; u < units && s == OCLCONV_OK; u++) {
        int set = u % ring, next = u + ring - lag, held = 0;
        s = finish_part(ctx, &st, &p[unit[u]], set, &uploaded[set], run, &read[set], &held);
        st.held[set] = held ? u : -1;
        bad = unit[u];
        clReleaseEvent(uploaded[set]);
        uploaded[set] = NULL;
        if (s == OCLCONV_OK && next < units) {
            set = next % ring;
            int was = st.held[set];
            s = settle(ctx, &st, p, unit, set, read[set]);
            bad = unit[s == OCLCONV_OK ? next : was];
            if (s == OCLCONV_OK)
                s = start_part(ctx, &st, &p[unit[next]], set, read[set] ? &read[set] : NULL,
                               &uploaded[set]);
            if (read[set])
                clReleaseEvent(read[set]);
            read[set] = NULL;
            clFlush(ctx->upload_queue);
            clFlush(ctx->queue);
        }
        /* Staged, the unit before's results are copied out while the
         * device works on this one's, not all at the end. */
        if (s == OCLCONV_OK && st.on && u > 0 && st.held[(u - 1) % ring] == u - 1) {
            clFlush(ctx->queue);
            if ((s = settle(ctx, &st, p, unit, (u - 1) % ring, read[(u - 1) % ring])) != OCLCONV_OK)
                bad = unit[u - 1];
        }
    }
    /* Nothing may still touch the caller's memory, done or failed. */
    cl_int err = ctx->upload_queue ? clFinish(ctx->upload_queue) : CL_SUCCESS;
    cl_int err2 = clFinish(ctx->queue);
    if (s == OCLCONV_OK && (err != CL_SUCCESS || err2 != CL_SUCCESS)) {
        s = oclconv__cl_fail(ctx, err != CL_SUCCESS ? err : err2, "clFinish");
        bad = 0; /* which command failed is not known */
    }
    /* The staged results read back, after a failure too. */
    for (int j = 0; j < ring; j++) {
        cl_int state = CL_COMPLETE;
        if (read[j] && s != OCLCONV_OK)
            clGetEventInfo(read[j], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state,
                           NULL);
        if (state != CL_COMPLETE)
            st.held[j] = -1;
        int was = st.held[j];
        oclconv_status s2 = read[j] ? settle(ctx, &st, p, unit, j, read[j]) : OCLCONV_OK;
        if (s == OCLCONV_OK && s2 != OCLCONV_OK) {
            s = s2;
            bad = unit[was];
        }
        if (uploaded[j])
            clReleaseEvent(uploaded[j]);
        if (read[j])
            clReleaseEvent(read[j]);
    }
    free(unit);
    if (failed)
        *failed = s == OCLCONV_OK ? -1 : bad;
    return s;
}
