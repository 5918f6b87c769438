/*
 * Host images on a device with memory of its own, in bands of rows: every
 * band's upload goes on a second queue, and the context's queue runs each
 * band's kernels as soon as its rows are in, then reads its result back,
 * so the copies to the device overlap those from it (PCIe carries both
 * ways at once) and the kernels hide between them.
 *
 * A band is filtered as an image of its own: its rows and the RY rows on
 * each side that its taps reach.  Those extra rows' results are made and
 * dropped; the band's own rows read only real rows, except across the
 * image's top and bottom, where the band image's edge is the image's, so
 * every border but WRAP (whose taps there reach the far end) comes out as
 * if the image were filtered whole.
 */
#include "internal.h"

#include <stdlib.h>

/* By default, a band for each 4 MB of the source, at most 4: each band
 * adds commands and 2 RY rows (NVIDIA H100, pinned memory: 4K u8 gray
 * best in 2 bands, 4K and 8K RGBA8 and f32 gray in 4, 1.2-1.5x whole). */
#define DEFAULT_BANDS 4
#define MIN_BAND_BYTES ((size_t)4 << 20)

/* The bytes an image spans in host memory. */
static size_t span(const oclconv_image *img)
{
    return oclconv__row_stride(img) * (size_t)(img->height - 1) + oclconv__packed_row(img);
}

int oclconv__band_count(const oclconv_context *ctx, const oclconv__job *job)
{
    /* Images near the device's largest allocation run whole, where one
     * past it gets io_begin's refusal. */
    if (job->method == OCLCONV_METHOD_IMAGE || job->opt.border == OCLCONV_BORDER_WRAP ||
        oclconv__overlap(job->src, job->dst) ||
        2 * oclconv__largest_image(job) > ctx->facts.max_alloc)
        return 1;
    const char *env = getenv("OCLCONV_BANDS");
    size_t n, cap = OCLCONV_MAX_BANDS;
    if (env && *env) {
        int asked = atoi(env);
        n = asked > 0 ? (size_t)asked : 1;
    } else if (ctx->facts.unified_memory ||
               !oclconv__host_pinned(ctx, job->src->data, span(job->src)) ||
               !oclconv__host_pinned(ctx, job->dst->data, span(job->dst))) {
        return 1; /* from pageable memory the copies each way do not overlap */
    } else {
        n = oclconv__image_bytes(job->src) / MIN_BAND_BYTES;
        cap = DEFAULT_BANDS;
    }
    /* A band of fewer rows than the filter's height could leave a
     * reflection at the image's edge outside the band's rows. */
    size_t most = (size_t)(job->src->height / job->filter->height);
    if (n > most)
        n = most;
    if (n > cap)
        n = cap;
    return n < 1 ? 1 : (int)n;
}

typedef struct {
    int first, rows;     /* the band image: rows first .. first + rows - 1 */
    int y0, y1;          /* the rows it delivers */
    cl_mem in, out;      /* its scratch buffers */
    cl_event uploaded;
} band;

/* Finds each band's rows and buffers and starts every upload. */
static oclconv_status start(oclconv_context *ctx, const oclconv__job *job, band *b, int n)
{
    int height = job->src->height, ry = job->filter->height / 2;
    size_t in_row = oclconv__packed_row(job->src), out_row = oclconv__packed_row(job->dst);
    oclconv_status s = OCLCONV_OK;
    for (int k = 0; k < n; k++) {
        b[k].y0 = (int)((long long)height * k / n);
        b[k].y1 = (int)((long long)height * (k + 1) / n);
        b[k].first = b[k].y0 > ry ? b[k].y0 - ry : 0;
        b[k].rows = (b[k].y1 + ry < height ? b[k].y1 + ry : height) - b[k].first;
        if (s == OCLCONV_OK)
            s = oclconv__scratch(ctx, OCLCONV_BAND_SLOT(k), in_row * (size_t)b[k].rows, &b[k].in);
        if (s == OCLCONV_OK)
            s = oclconv__scratch(ctx, OCLCONV_BAND_SLOT(k) + 1, out_row * (size_t)b[k].rows,
                                 &b[k].out);
    }
    if (s == OCLCONV_OK && !ctx->upload_queue) {
        cl_int err;
        ctx->upload_queue = clCreateCommandQueue(ctx->cl, ctx->device, 0, &err);
        if (err != CL_SUCCESS) {
            ctx->upload_queue = NULL;
            s = oclconv__cl_fail(ctx, err, "clCreateCommandQueue (uploads)");
        }
    }
    for (int k = 0; k < n && s == OCLCONV_OK; k++)
        s = oclconv__copy_rows(ctx, ctx->upload_queue, b[k].in, 0, job->src, b[k].first,
                               b[k].rows, 1, NULL, &b[k].uploaded);
    if (s == OCLCONV_OK)
        clFlush(ctx->upload_queue);
    return s;
}

oclconv_status oclconv__run_bands(oclconv_context *ctx, const oclconv__job *job, int n,
                                  oclconv__path_fn run)
{
    band b[OCLCONV_MAX_BANDS] = {{0}};
    oclconv_status s = start(ctx, job, b, n);
    for (int k = 0; k < n && s == OCLCONV_OK; k++) {
        oclconv_image src = *job->src, dst = *job->dst;
        src.height = dst.height = b[k].rows;
        oclconv__job part = *job;
        part.src = &src;
        part.dst = &dst;
        oclconv__io io = {b[k].in, b[k].out, 0, 0};
        ctx->wait_list = &b[k].uploaded;
        ctx->wait_count = 1;
        s = run(ctx, &part, &io);
        ctx->wait_list = NULL;
        ctx->wait_count = 0;
        if (s == OCLCONV_OK) {
            cl_event read;
            s = oclconv__copy_rows(ctx, ctx->queue, b[k].out, b[k].y0 - b[k].first, job->dst,
                                   b[k].y0, b[k].y1 - b[k].y0, 0, NULL, &read);
            if (s == OCLCONV_OK)
                clReleaseEvent(read);
        }
    }
    /* Nothing may still touch the caller's memory, done or failed. */
    cl_int err = ctx->upload_queue ? clFinish(ctx->upload_queue) : CL_SUCCESS;
    if (err == CL_SUCCESS)
        err = clFinish(ctx->queue);
    if (s == OCLCONV_OK && err != CL_SUCCESS)
        s = oclconv__cl_fail(ctx, err, "clFinish");
    for (int k = 0; k < n; k++)
        if (b[k].uploaded)
            clReleaseEvent(b[k].uploaded);
    return s;
}
