/* oclconv_apply(): validate every argument, plan, run the chosen path. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

void oclconv_options_init(oclconv_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
    opt->border = OCLCONV_BORDER_CLAMP;
    opt->method = OCLCONV_METHOD_AUTO;
    opt->scale = 1;
    opt->delta = 0;
}

/* The first published oclconv_options ended with `delta`. */
#define OPTIONS_V1_SIZE (offsetof(oclconv_options, delta) + sizeof(float))

/* Copies the fields the caller's header knew about over the defaults. */
static oclconv_status read_options(oclconv_context *ctx, const oclconv_options *opt,
                                   oclconv_options *out)
{
    oclconv_options_init(out);
    if (!opt)
        return OCLCONV_OK;
    if (opt->size < OPTIONS_V1_SIZE)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "options.size is %zu: initialise options with oclconv_options_init()",
                             opt->size);
    memcpy(out, opt, opt->size < sizeof *out ? opt->size : sizeof *out);
    out->size = sizeof *out;
    if ((unsigned)out->border > OCLCONV_BORDER_NORMALIZE)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "options.border %d is unknown",
                             (int)out->border);
    if ((unsigned)out->method > OCLCONV_METHOD_BOX)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "options.method %d is unknown",
                             (int)out->method);
    if (!isfinite(out->scale) || !isfinite(out->delta) || !isfinite(out->border_value))
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "options.scale, delta and border_value must be finite");
    if (out->border != OCLCONV_BORDER_CONSTANT) /* the kernels add it for every outside tap */
        out->border_value = 0;
    return OCLCONV_OK;
}

/* Checks the images, the filter and the options; the images' sizes too
 * where they must be the same (all but regions). */
static oclconv_status validate(oclconv_context *ctx, oclconv__job *job, const oclconv_options *opt,
                               int same_size)
{
    oclconv_status s = oclconv__check_image(ctx, job->src, "source");
    if (s == OCLCONV_OK)
        s = oclconv__check_image(ctx, job->dst, "destination");
    if (s != OCLCONV_OK)
        return s;
    if ((same_size && (job->src->width != job->dst->width ||
                       job->src->height != job->dst->height)) ||
        job->src->channels != job->dst->channels)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "source %dx%dx%d and destination %dx%dx%d differ in %s",
                             job->src->width, job->src->height, job->src->channels,
                             job->dst->width, job->dst->height, job->dst->channels,
                             same_size ? "size or channels" : "channels");
    if (!job->filter)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "filter is NULL");
    if ((s = read_options(ctx, opt, &job->opt)) != OCLCONV_OK)
        return s;
    if (job->opt.border == OCLCONV_BORDER_NORMALIZE && job->filter->sum == 0)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "the NORMALIZE border needs a filter whose weights do not sum to 0");
    return OCLCONV_OK;
}

static oclconv_status run_buffer_path(oclconv_context *ctx, const oclconv__job *job,
                                      const oclconv__io *io)
{
    switch (job->method) {
    case OCLCONV_METHOD_TILED: return oclconv__run_tiled(ctx, job, io);
    case OCLCONV_METHOD_SEPARABLE: return oclconv__run_separable(ctx, job, io);
    case OCLCONV_METHOD_BOX: return oclconv__run_box(ctx, job, io);
    default: return oclconv__run_buffer(ctx, job, io);
    }
}

/* A host copy of an image, packed, for a call in parts whose destination
 * shares its memory. */
static oclconv_status stage(oclconv_context *ctx, const oclconv_image *src, oclconv_image *copy)
{
    *copy = *src;
    copy->stride = 0;
    size_t row = oclconv__packed_row(src);
    copy->data = malloc(oclconv__image_bytes(copy));
    if (!copy->data)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM,
                             "out of host memory for a copy of the source (%zu bytes), which the "
                             "destination overwrites part by part",
                             oclconv__image_bytes(copy));
    for (int y = 0; y < src->height; y++)
        memcpy((char *)copy->data + row * (size_t)y,
               (const char *)src->data + oclconv__row_stride(src) * (size_t)y, row);
    return OCLCONV_OK;
}

/* The whole image in one part, as the paths take it. */
static oclconv_status run_whole(oclconv_context *ctx, const oclconv__job *job)
{
    if (job->method == OCLCONV_METHOD_IMAGE)
        return oclconv__run_image(ctx, job);
    oclconv__io io;
    oclconv_status s = oclconv__io_begin(ctx, job, &io);
    if (s == OCLCONV_OK)
        s = run_buffer_path(ctx, job, &io);
    return oclconv__io_end(ctx, job, &io, s);
}

oclconv_status oclconv__apply_host(oclconv_context *ctx, const oclconv_image *src,
                                   const oclconv_region *where, oclconv_image *dst,
                                   const oclconv_filter *f, const oclconv_options *opt,
                                   int split)
{
    oclconv__clear_error(ctx);
    oclconv__job job = {0};
    job.src = src;
    job.dst = dst;
    job.filter = f;
    oclconv_status s = validate(ctx, &job, opt, where == NULL);
    if (s != OCLCONV_OK)
        return s;
    oclconv__region r = {src, dst, src->width, src->height, 0, 0, 0, 0, 0, 1, 1};
    if (where) {
        r.width = where->width;
        r.height = where->height;
        r.src_x = where->src_x;
        r.src_y = where->src_y;
        r.dst_x = where->dst_x;
        r.dst_y = where->dst_y;
        if ((s = oclconv__region_check(ctx, &r, &job)) != OCLCONV_OK)
            return s;
    }
    if (split && oclconv__split_worth(ctx, dst))
        return oclconv__apply_devices(ctx, src, where, dst, f, opt);
    /* Planned as the image filtered in one part; parts of it take the plan. */
    oclconv_image part_src, part_dst;
    oclconv__region_image(&r, &job, 0, &part_src);
    oclconv__region_image(&r, &job, 1, &part_dst);
    int whole = part_src.width == src->width && part_src.height == src->height &&
                dst->width == src->width && dst->height == src->height;
    r.staged = oclconv__overlap(src, dst);
    job.src = &part_src;
    job.dst = &part_dst;
    s = oclconv__plan(ctx, &job);
    if (s == OCLCONV_OK)
        s = oclconv__region_parts(ctx, &r, &job);
    if (s != OCLCONV_OK)
        return s;
    oclconv_image staged = {0};
    if (whole && r.parts == 1) {
        job.src = src;
        job.dst = dst;
        s = run_whole(ctx, &job);
    } else {
        if (r.staged && (s = stage(ctx, src, &staged)) == OCLCONV_OK)
            r.src = &staged;
        if (s == OCLCONV_OK)
            s = oclconv__run_region(ctx, &r, &job, run_buffer_path);
        free(staged.data);
    }
    oclconv__collect_kernel_time(ctx);
    if (s == OCLCONV_OK)
        ctx->last_method = job.method;
    return s;
}

oclconv_status oclconv_apply(oclconv_context *ctx, const oclconv_image *src, oclconv_image *dst,
                             const oclconv_filter *f, const oclconv_options *opt)
{
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_apply: context is NULL");
    return oclconv__apply_host(ctx, src, NULL, dst, f, opt, 1);
}

oclconv_status oclconv_apply_region(oclconv_context *ctx, const oclconv_image *src,
                                    const oclconv_region *region, oclconv_image *dst,
                                    const oclconv_filter *f, const oclconv_options *opt)
{
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_apply_region: context is NULL");
    if (!region) {
        oclconv__clear_error(ctx);
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "oclconv_apply_region: region is NULL");
    }
    return oclconv__apply_host(ctx, src, region, dst, f, opt, 1);
}

/* ====== Device-resident images ======================================= */

/* An oclconv_image describing a device buffer, for the checks every image
 * gets; its data pointer is a stand-in the library never reads. */
static oclconv_image describe(const oclconv_cl_image *img)
{
    static const double stand_in;
    oclconv_image d = {(void *)(uintptr_t)&stand_in, img->width, img->height, img->channels,
                       img->type, 0};
    return d;
}

static oclconv_status check_cl_image(oclconv_context *ctx, const oclconv_cl_image *img,
                                     const char *what)
{
    if (!img || !img->mem)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "%s buffer is NULL", what);
    cl_context owner = NULL;
    size_t size = 0;
    cl_mem_object_type type = 0;
    cl_int err = clGetMemObjectInfo(img->mem, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(img->mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(img->mem, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "%s buffer is not a memory object: %s",
                             what, oclconv__cl_error_name(err));
    if (type != CL_MEM_OBJECT_BUFFER || owner != ctx->cl)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "%s must be a buffer of the context's cl_context", what);
    oclconv_image d = describe(img);
    oclconv_status s = oclconv__check_image(ctx, &d, what);
    if (s == OCLCONV_OK && oclconv__packed_row(&d) * (size_t)d.height > size)
        s = oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                          "%s buffer holds %zu bytes, fewer than a %dx%dx%d image needs", what,
                          size, d.width, d.height, d.channels);
    return s;
}

/* Every event of the wait list must be an event of the context that has
 * not failed: commands waiting on a failed one never run (OpenCL leaves
 * them to the implementation; PoCL's never complete), so the call's event
 * would never complete either. */
static oclconv_status check_wait_list(oclconv_context *ctx, cl_uint n, const cl_event *events)
{
    for (cl_uint i = 0; i < n; i++) {
        cl_context owner = NULL;
        cl_int status = 0;
        cl_int err = events[i] ? clGetEventInfo(events[i], CL_EVENT_CONTEXT, sizeof owner,
                                                &owner, NULL)
                               : CL_INVALID_EVENT;
        if (err == CL_SUCCESS)
            err = clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                                 &status, NULL);
        if (err != CL_SUCCESS)
            return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "wait_list[%u] is not an event: %s",
                                 i, oclconv__cl_error_name(err));
        if (owner != ctx->cl)
            return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                                 "wait_list[%u] is an event of another cl_context", i);
        if (status < 0)
            return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                                 "wait_list[%u] has failed (execution status %s): nothing "
                                 "waiting on it would run", i, oclconv__cl_error_name(status));
    }
    return OCLCONV_OK;
}

/* The buffer a buffer's memory belongs to (itself, or a sub-buffer's
 * parent) and where in it the image's bytes lie. */
static cl_mem memory_of(const oclconv_cl_image *img, size_t *first, size_t *end)
{
    cl_mem parent = NULL;
    size_t offset = 0;
    clGetMemObjectInfo(img->mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
    if (parent)
        clGetMemObjectInfo(img->mem, CL_MEM_OFFSET, sizeof offset, &offset, NULL);
    oclconv_image d = describe(img);
    *first = offset;
    *end = offset + oclconv__packed_row(&d) * (size_t)d.height;
    return parent ? parent : img->mem;
}

/* Whether two buffers' images share bytes: the same buffer, sub-buffers
 * of one buffer whose ranges meet, or a buffer and a sub-buffer of it. */
static int buffers_overlap(const oclconv_cl_image *a, const oclconv_cl_image *b)
{
    size_t a0, a1, b0, b1;
    cl_mem ma = memory_of(a, &a0, &a1), mb = memory_of(b, &b0, &b1);
    return a->mem == b->mem || (ma == mb && a0 < b1 && b0 < a1);
}

oclconv_status oclconv_apply_cl(oclconv_context *ctx, const oclconv_cl_image *src,
                                const oclconv_cl_image *dst, const oclconv_filter *f,
                                const oclconv_options *opt, cl_uint num_events,
                                const cl_event *wait_list, cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_apply_cl: context is NULL");
    oclconv__clear_error(ctx);
    if ((num_events > 0) != (wait_list != NULL))
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "wait_list and num_events must be both given or both empty");
    oclconv_status s = check_wait_list(ctx, num_events, wait_list);
    if (s == OCLCONV_OK)
        s = check_cl_image(ctx, src, "source");
    if (s == OCLCONV_OK)
        s = check_cl_image(ctx, dst, "destination");
    if (s != OCLCONV_OK)
        return s;
    oclconv_image src_d = describe(src), dst_d = describe(dst);
    oclconv__job job = {0};
    job.src = &src_d;
    job.dst = &dst_d;
    job.filter = f;
    s = validate(ctx, &job, opt, 1);
    if (s == OCLCONV_OK)
        s = oclconv__plan(ctx, &job);
    if (s == OCLCONV_OK && job.method == OCLCONV_METHOD_IMAGE)
        s = oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                          "the image path needs images, not buffers; use another method");
    if (s != OCLCONV_OK)
        return s;
    /* In place, or on buffers that share memory, the kernels write to
     * scratch and a copy follows. */
    int in_place = buffers_overlap(src, dst);
    size_t bytes = oclconv__packed_row(&dst_d) * (size_t)dst_d.height;
    oclconv__io io = {src->mem, dst->mem, 0, 0};
    if (in_place)
        s = oclconv__scratch(ctx, 1, bytes, &io.out);
    ctx->wait_list = wait_list;
    ctx->wait_count = num_events;
    if (s == OCLCONV_OK)
        s = run_buffer_path(ctx, &job, &io);
    cl_event copied = NULL;
    if (s == OCLCONV_OK && in_place) {
        cl_int err = clEnqueueCopyBuffer(ctx->queue, io.out, dst->mem, 0, 0, bytes, 0, NULL,
                                         &copied);
        if (err != CL_SUCCESS)
            s = oclconv__cl_fail(ctx, err, "clEnqueueCopyBuffer");
    }
    ctx->wait_list = NULL;
    ctx->wait_count = 0;
    cl_event last = oclconv__forget_kernel_events(ctx, s == OCLCONV_OK && !copied);
    if (s != OCLCONV_OK) {
        /* Whatever was enqueued must not outlive the failure unseen. */
        clFinish(ctx->queue);
        return s;
    }
    if (copied)
        last = copied;
    if (done)
        *done = last;
    else if (last)
        clReleaseEvent(last);
    ctx->last_method = job.method;
    return OCLCONV_OK;
}
