/*
 * Regions, strips and bands: a call on host images filters a rectangle of
 * a whole image (all of it, for oclconv_apply()) in parts of rows.  A part
 * is filtered as an image of its own: its destination rows and columns
 * grown by the taps' reach, so that every result kept reads real pixels,
 * or, across the whole image's edges, what the border makes there: the
 * part image's edge is the whole image's edge (cut to it), or, for WRAP,
 * the pixels it wraps to are laid beside it (runs, below).  The grown
 * results are made and dropped.
 *
 * Parts exist for three reasons: a region (the caller's rectangle), strips
 * (the buffers of the whole would pass what the call may use on the
 * device), and bands (on a device with memory of its own, the copies of
 * successive parts overlap: every part's upload goes on a second queue,
 * the context's queue runs each part's kernels as soon as its rows are in,
 * then reads its result back: src/pipeline.c).
 */
#include "internal.h"
#include "region.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Without a cap, a band for each 4 MB of the source, at most 4, where
 * copies can overlap: each band adds commands and 2 RY rows (NVIDIA H100,
 * pinned memory: 4K u8 gray best in 2 bands, 4K and 8K RGBA8 and f32 gray
 * in 4, 1.2-1.5x whole). */
#define DEFAULT_BANDS 4
#define MIN_BAND_BYTES ((size_t)4 << 20)
typedef oclconv__span span;
#define MAX_RUNS OCLCONV_MAX_RUNS

/* The span of destination positions d0 .. d1 - 1 of a whole of `whole`,
 * the taps reaching `reach` on each side. */
static void span_of(span *s, int wrap, int whole, int d0, int d1, int reach)
{
    long long e0 = (long long)d0 - reach, e1 = (long long)d1 + reach;
    if (wrap && (d0 > 0 || d1 < whole)) {
        long long p = e0;
        for (s->runs = 0; p < e1 && s->runs < MAX_RUNS; s->runs++) {
            int at = (int)((p % whole + whole) % whole);
            long long len = e1 - p < whole - at ? e1 - p : whole - at;
            s->from[s->runs] = at;
            s->len[s->runs] = (int)len;
            p += len;
        }
        if (p == e1) {
            s->size = (int)(e1 - e0);
            s->out_at = reach;
            return;
        }
        e0 = 0; /* the whole extent: the kernels wrap within it */
        e1 = whole;
    }
    e0 = e0 < 0 ? 0 : e0;
    e1 = e1 > whole ? whole : e1;
    s->runs = 1;
    s->from[0] = (int)e0;
    s->len[0] = s->size = (int)(e1 - e0);
    s->out_at = d0 - (int)e0;
}

/* Whether every run lies in the source's positions first .. first + n - 1. */
static int span_within(const span *s, int first, int n)
{
    for (int i = 0; i < s->runs; i++)
        if (s->from[i] < first || s->from[i] + s->len[i] > first + n)
            return 0;
    return 1;
}

/* Bytes of one pixel of an image. */
size_t oclconv__pixel_bytes(const oclconv_image *img)
{
    return oclconv__type_size(img->type) * (size_t)img->channels;
}

static int reach_x(const oclconv__job *job)
{
    return job->filter->width / 2;
}

int oclconv__reach_y(const oclconv__job *job)
{
    return job->filter->height / 2;
}

/* Part k's rows of the destination, of n. */
void oclconv__part_rows(const oclconv__region *r, int k, int n, int *d0, int *d1)
{
    long long h = r->dst->height;
    *d0 = r->dst_y + (int)(h * k / n);
    *d1 = r->dst_y + (int)(h * (k + 1) / n);
}

span oclconv__row_span(const oclconv__region *r, const oclconv__job *job, int d0, int d1)
{
    span s;
    span_of(&s, job->opt.border == OCLCONV_BORDER_WRAP, r->height, d0, d1, oclconv__reach_y(job));
    return s;
}

span oclconv__col_span(const oclconv__region *r, const oclconv__job *job)
{
    span s;
    span_of(&s, job->opt.border == OCLCONV_BORDER_WRAP, r->width, r->dst_x,
            r->dst_x + r->dst->width, reach_x(job));
    return s;
}

/* The rows of the whole destination, grown. */
static span dst_rows(const oclconv__region *r, const oclconv__job *job)
{
    return oclconv__row_span(r, job, r->dst_y, r->dst_y + r->dst->height);
}

/* Whether the region's images lie in the whole image and the source
 * holds every pixel the destination's windows read. */
static oclconv_status region_check(oclconv_context *ctx, const oclconv__region *r,
                                   const oclconv__job *job)
{
    const oclconv_image *src = r->src, *dst = r->dst;
    if (r->width <= 0 || r->height <= 0)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "region: the whole image %dx%d is empty",
                             r->width, r->height);
    if (r->src_x < 0 || r->src_y < 0 || r->src_x > r->width - src->width ||
        r->src_y > r->height - src->height)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "region: the source %dx%d at (%d, %d) passes the whole image %dx%d",
                             src->width, src->height, r->src_x, r->src_y, r->width, r->height);
    if (r->dst_x < 0 || r->dst_y < 0 || r->dst_x > r->width - dst->width ||
        r->dst_y > r->height - dst->height)
        return oclconv__fail(
            ctx, OCLCONV_E_INVALID_ARG,
            "region: the destination %dx%d at (%d, %d) passes the whole image %dx%d", dst->width,
            dst->height, r->dst_x, r->dst_y, r->width, r->height);
    span sx = oclconv__col_span(r, job), sy = dst_rows(r, job);
    if (!span_within(&sx, r->src_x, src->width) || !span_within(&sy, r->src_y, src->height))
        return oclconv__fail(
            ctx, OCLCONV_E_INVALID_ARG,
            "region: the source %dx%d at (%d, %d) lacks pixels the destination's windows read: "
            "columns %d..%d and rows %d..%d of the whole image%s",
            src->width, src->height, r->src_x, r->src_y, sx.from[0],
            sx.from[sx.runs - 1] + sx.len[sx.runs - 1] - 1, sy.from[0],
            sy.from[sy.runs - 1] + sy.len[sy.runs - 1] - 1,
            sx.runs > 1 || sy.runs > 1 ? " (with WRAP, across the edges)" : "");
    return OCLCONV_OK;
}

oclconv_status oclconv__region_of(oclconv_context *ctx, oclconv__region *r,
                                  const oclconv_region *where, const oclconv__job *job)
{
    *r = (oclconv__region){job->src, job->dst, job->src->width, job->src->height, 0, 0, 0, 0,
                           0, 1, 1, 0};
    if (!where)
        return OCLCONV_OK;
    r->width = where->width;
    r->height = where->height;
    r->src_x = where->src_x;
    r->src_y = where->src_y;
    r->dst_x = where->dst_x;
    r->dst_y = where->dst_y;
    return region_check(ctx, r, job);
}

oclconv_status oclconv__region_plan(oclconv_context *ctx, const oclconv__region *r,
                                    oclconv__job *job, oclconv_image part[2], int *whole)
{
    span sx = oclconv__col_span(r, job), sy = dst_rows(r, job);
    part[0] = *r->src;
    part[1] = *r->dst;
    for (int k = 0; k < 2; k++) {
        part[k].width = sx.size;
        part[k].height = sy.size;
        part[k].stride = 0;
    }
    *whole = sx.size == r->src->width && sy.size == r->src->height &&
             r->dst->width == r->src->width && r->dst->height == r->src->height;
    job->src = &part[0];
    job->dst = &part[1];
    return oclconv__plan(ctx, job);
}

void oclconv__row_bytes(const oclconv__job *job, int width, size_t *io, size_t *mid)
{
    size_t values = (size_t)width * (size_t)job->src->channels;
    *io = values * (oclconv__type_size(job->src->type) + oclconv__type_size(job->dst->type));
    *mid = !job->fused || job->method == OCLCONV_METHOD_BOX ? (values + 16) * 8 : 0;
    if (job->method == OCLCONV_METHOD_RUNS)
        *mid = oclconv__runs_row_bytes(job, width);
}

/* Bands where copies overlap: 1 (none) unless the device has memory of
 * its own and the images are staged (src/pipeline.c), or OCLCONV_BANDS
 * asks; the image path takes none. */
int oclconv__region_bands(const oclconv_context *ctx, const oclconv__region *r)
{
    if (r->staged || r->in_batch)
        return 1;
    const char *env = getenv("OCLCONV_BANDS");
    int n;
    if (env && *env) {
        n = atoi(env);
    } else if (ctx->facts.unified_memory || !oclconv__stages(ctx, r->src, r->dst) ||
               oclconv__image_bytes(r->src) > DEFAULT_BANDS * OCLCONV_STAGED_MOST) {
        return 1; /* unstaged, from pageable memory the copies each way do not overlap */
    } else {
        n = (int)(oclconv__image_bytes(r->src) / MIN_BAND_BYTES);
        n = n > DEFAULT_BANDS ? DEFAULT_BANDS : n;
    }
    n = n > OCLCONV_MAX_BANDS ? OCLCONV_MAX_BANDS : n;
    return n < 1 ? 1 : n > r->dst->height ? r->dst->height : n;
}

oclconv_status oclconv__region_parts(oclconv_context *ctx, oclconv__region *r,
                                     const oclconv__job *job)
{
    size_t budget, io, mid;
    oclconv_status s = oclconv__device_budget(ctx, job, &budget);
    if (s != OCLCONV_OK)
        return s;
    span sx = oclconv__col_span(r, job), sy = dst_rows(r, job);
    oclconv__row_bytes(job, sx.size, &io, &mid);
    size_t rows = (size_t)sy.size, max_alloc = ctx->facts.max_alloc;
    size_t buffer_rows = max_alloc / (io > mid ? io : mid); /* each buffer <= max_alloc */
    int bands = job->method == OCLCONV_METHOD_IMAGE ? 1 : oclconv__region_bands(ctx, r);
    if (rows * (io + mid) <= budget && rows <= buffer_rows) {
        r->parts = r->ring = bands;
        return OCLCONV_OK;
    }
    /* Strips in two buffer sets, one filtering while the other's copies run. */
    size_t most = budget / (2 * io + mid), halo = 2 * (size_t)oclconv__reach_y(job);
    most = most < buffer_rows ? most : buffer_rows;
    if (most <= halo)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "a strip of one row of %d pixels and its %zu rows of halo needs %zu "
                             "bytes of device memory; the call may use %zu (%s)",
                             sx.size, halo, (halo + 1) * (2 * io + mid), budget,
                             job->opt.max_device_bytes ? "options.max_device_bytes"
                             : getenv("OCLCONV_DEVICE_BYTES") ? "OCLCONV_DEVICE_BYTES"
                                                              : "half the device's memory");
    size_t per = most - halo, n = ((size_t)r->dst->height + per - 1) / per;
    r->parts = n > (size_t)bands ? (int)n : bands;
    r->ring = 2;
    return OCLCONV_OK;
}

/* The job for a part image of sx.size x sy.size. */
oclconv__job oclconv__part_job(const oclconv__job *job, const span *sx, const span *sy,
                               oclconv_image *src, oclconv_image *dst)
{
    oclconv__job part = *job;
    *src = *job->src;
    *dst = *job->dst;
    src->width = dst->width = sx->size;
    src->height = dst->height = sy->size;
    src->stride = dst->stride = 0;
    part.src = src;
    part.dst = dst;
    return part;
}

/* Gathers a part's source runs into packed host memory at `to`. */
static void gather(const oclconv__region *r, const span *sx, const span *sy, char *to)
{
    const oclconv_image *src = r->src;
    size_t px = oclconv__pixel_bytes(src), stride = oclconv__row_stride(src);
    for (int j = 0; j < sy->runs; j++)
        for (int y = sy->from[j]; y < sy->from[j] + sy->len[j]; y++)
            for (int i = 0; i < sx->runs; i++) {
                const char *row = (const char *)src->data + (size_t)(y - r->src_y) * stride;
                size_t n = (size_t)sx->len[i] * px;
                memcpy(to, row + (size_t)(sx->from[i] - r->src_x) * px, n);
                to += n;
            }
}

oclconv_status oclconv__stage(oclconv_context *ctx, const oclconv_image *src, oclconv_image *copy)
{
    *copy = *src;
    copy->stride = 0;
    copy->data = malloc(oclconv__image_bytes(copy));
    if (!copy->data)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM,
                             "out of host memory for a copy of the source (%zu bytes), which "
                             "the destination overwrites", oclconv__image_bytes(copy));
    oclconv__region r = {src, NULL, src->width, src->height, 0, 0, 0, 0, 0, 1, 1, 0};
    span sx = {1, {0}, {src->width}, src->width, 0}, sy = {1, {0}, {src->height}, src->height, 0};
    gather(&r, &sx, &sy, copy->data);
    return OCLCONV_OK;
}

int oclconv__region_in_place(const oclconv_context *ctx, const oclconv__region *r,
                             const oclconv__job *job)
{
    if (!ctx->facts.unified_memory || r->parts != 1 || job->method == OCLCONV_METHOD_IMAGE)
        return 0;
    span sx = oclconv__col_span(r, job), sy = dst_rows(r, job);
    return sx.runs == 1 && sy.runs == 1 &&
           (oclconv__reads_pitched(job) ||
            (sx.from[0] == r->src_x && sx.size == r->src->width &&
             oclconv__row_stride(r->src) == oclconv__packed_row(r->src)));
}

oclconv_status oclconv__run_region_in_place(oclconv_context *ctx, const oclconv__region *r,
                                            const oclconv__job *job)
{
    span sx = oclconv__col_span(r, job), sy = dst_rows(r, job);
    oclconv_image in, out;
    oclconv__job part = oclconv__part_job(job, &sx, &sy, &in, &out);
    in.stride = oclconv__row_stride(r->src); /* the part's rows where they lie */
    in.data = (char *)r->src->data + (size_t)(sy.from[0] - r->src_y) * in.stride +
              (size_t)(sx.from[0] - r->src_x) * oclconv__pixel_bytes(r->src);
    /* Pitched kernels make only the kept rectangle, into the destination;
     * others leave the whole part's result on the device, its kept
     * rectangle read below. */
    int window = oclconv__reads_pitched(job);
    if (window)
        part.dst = r->dst;
    else
        out.data = NULL;
    oclconv__io io;
    oclconv_status s = oclconv__io_begin(ctx, &part, &io);
    if (window) {
        io.keep_x = sx.out_at;
        io.keep_y = sy.out_at;
    }
    if (s == OCLCONV_OK)
        s = oclconv__run_buffer_path(ctx, &part, &io);
    if (window)
        return oclconv__io_end(ctx, &part, &io, s);
    /* The source's buffer goes first (its kernels done before it does),
     * so the copy out may write memory the source shares. */
    cl_mem result = io.out; /* scratch: it stays */
    s = oclconv__io_end(ctx, &part, &io, s);
    if (s == OCLCONV_OK)
        s = oclconv__read_back(ctx, r, &sx, &sy, r->dst_y, r->dst_y + r->dst->height, result, 0,
                               NULL);
    return s;
}

/* The image path's part: through host images of the part's size. */
static oclconv_status image_part(oclconv_context *ctx, const oclconv__region *r,
                                 const oclconv__job *job, const span *sx, const span *sy, int d0,
                                 int d1)
{
    oclconv_image src, dst;
    oclconv__job part = oclconv__part_job(job, sx, sy, &src, &dst);
    src.data = malloc(oclconv__image_bytes(&src));
    dst.data = malloc(oclconv__image_bytes(&dst));
    oclconv_status s = OCLCONV_OK;
    if (!src.data || !dst.data)
        s = oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of host memory for a part of the image");
    if (s == OCLCONV_OK) {
        gather(r, sx, sy, src.data);
        s = oclconv__run_image(ctx, &part);
    }
    size_t px = oclconv__pixel_bytes(&dst);
    for (int y = d0; s == OCLCONV_OK && y < d1; y++)
        memcpy((char *)r->dst->data + (size_t)(y - r->dst_y) * oclconv__row_stride(r->dst),
               (char *)dst.data + ((size_t)(sy->out_at + y - d0) * (size_t)dst.width +
                                   (size_t)sx->out_at) * px,
               (size_t)r->dst->width * px);
    free(src.data);
    free(dst.data);
    return s;
}

oclconv_status oclconv__run_region(oclconv_context *ctx, const oclconv__region *r,
                                   const oclconv__job *job, oclconv__path_fn run)
{
    int n = r->parts;
    oclconv_status s = OCLCONV_OK;
    if (job->method == OCLCONV_METHOD_IMAGE) {
        for (int k = 0; k < n && s == OCLCONV_OK; k++) {
            int d0, d1;
            oclconv__part_rows(r, k, n, &d0, &d1);
            span sx = oclconv__col_span(r, job), sy = oclconv__row_span(r, job, d0, d1);
            s = image_part(ctx, r, job, &sx, &sy, d0, d1);
        }
        return s;
    }
    oclconv__part *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for %d parts", n);
    for (int k = 0; k < n; k++)
        p[k] = (oclconv__part){r, job, k, 0};
    s = oclconv__run_parts(ctx, p, n, r->ring, run, NULL);
    free(p);
    return s;
}

/* Device-resident: the grown rectangle gathered from the source buffer
 * into scratch (after the context's wait list), the kernels, and the
 * destination's rectangle copied out of their result (*done). */
oclconv_status oclconv__region_cl(oclconv_context *ctx, const oclconv__region *r,
                                  const oclconv__job *job, cl_mem src, cl_mem dst,
                                  cl_event *done)
{
    span sx = oclconv__col_span(r, job), sy = dst_rows(r, job);
    size_t px_in = oclconv__pixel_bytes(r->src), px_out = oclconv__pixel_bytes(r->dst);
    size_t in_pitch = (size_t)sx.size * px_in, out_pitch = (size_t)sx.size * px_out;
    oclconv__io io = {.in = NULL};
    oclconv_status s = oclconv__scratch(ctx, 0, in_pitch * (size_t)sy.size, &io.in);
    if (s == OCLCONV_OK)
        s = oclconv__scratch(ctx, 1, out_pitch * (size_t)sy.size, &io.out);
    int at_y = 0;
    for (int j = 0; j < sy.runs && s == OCLCONV_OK; at_y += sy.len[j++]) {
        int at_x = 0;
        for (int i = 0; i < sx.runs && s == OCLCONV_OK; at_x += sx.len[i++]) {
            const size_t from[3] = {(size_t)(sx.from[i] - r->src_x) * px_in,
                                    (size_t)(sy.from[j] - r->src_y), 0};
            const size_t to[3] = {(size_t)at_x * px_in, (size_t)at_y, 0};
            const size_t size[3] = {(size_t)sx.len[i] * px_in, (size_t)sy.len[j], 1};
            cl_int err = clEnqueueCopyBufferRect(
                ctx->queue, src, io.in, from, to, size, oclconv__packed_row(r->src), 0,
                in_pitch, 0, ctx->wait_count, ctx->wait_count ? ctx->wait_list : NULL, NULL);
            ctx->wait_count = 0; /* the queue is in order: the rest follow */
            ctx->wait_list = NULL;
            if (err != CL_SUCCESS)
                s = oclconv__cl_fail(ctx, err, "clEnqueueCopyBufferRect (the source's rectangle)");
        }
    }
    oclconv_image part_src, part_dst;
    oclconv__job part = oclconv__part_job(job, &sx, &sy, &part_src, &part_dst);
    if (s == OCLCONV_OK)
        s = oclconv__run_buffer_path(ctx, &part, &io);
    if (s == OCLCONV_OK) {
        const size_t from[3] = {(size_t)sx.out_at * px_out, (size_t)sy.out_at, 0}, to[3] = {0};
        const size_t size[3] = {(size_t)r->dst->width * px_out, (size_t)r->dst->height, 1};
        cl_int err = clEnqueueCopyBufferRect(ctx->queue, io.out, dst, from, to, size, out_pitch,
                                             0, oclconv__packed_row(r->dst), 0, 0, NULL, done);
        if (err != CL_SUCCESS)
            s = oclconv__cl_fail(ctx, err, "clEnqueueCopyBufferRect (the result's rectangle)");
    }
    return s;
}
