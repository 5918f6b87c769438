/* oclconv_apply_cl() and oclconv_apply_region_cl(): images the application
 * holds in OpenCL buffers, filtered without host copies or waits. */
#include "internal.h"
#include "region.h"

#include <stdint.h>

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

/* oclconv_apply_cl() and oclconv_apply_region_cl() (`where` NULL: the whole). */
static oclconv_status apply_cl(oclconv_context *ctx, const oclconv_cl_image *src,
                               const oclconv_region *where, const oclconv_cl_image *dst,
                               const oclconv_filter *f, const oclconv_options *opt,
                               cl_uint num_events, const cl_event *wait_list, cl_event *done)
{
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
    s = oclconv__validate(ctx, &job, opt, where == NULL);
    oclconv__region r;
    if (s == OCLCONV_OK)
        s = oclconv__region_of(ctx, &r, where, &job);
    if (s != OCLCONV_OK)
        return s;
    oclconv_image part[2];
    int whole;
    s = oclconv__region_plan(ctx, &r, &job, part, &whole);
    if (s == OCLCONV_OK && job.method == OCLCONV_METHOD_IMAGE)
        s = oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                          "the image path needs images, not buffers; use another method");
    if (s != OCLCONV_OK)
        return s;
    ctx->wait_list = wait_list;
    ctx->wait_count = num_events;
    cl_event copied = NULL;
    if (!whole) {
        /* Through scratch both ways: buffers that share memory need nothing more. */
        s = oclconv__region_cl(ctx, &r, &job, src->mem, dst->mem, &copied);
    } else {
        /* In place, or on buffers that share memory, the kernels write to
         * scratch and a copy follows. */
        int in_place = buffers_overlap(src, dst);
        size_t bytes = oclconv__packed_row(&dst_d) * (size_t)dst_d.height;
        oclconv__io io = {.in = src->mem, .out = dst->mem};
        if (in_place)
            s = oclconv__scratch(ctx, 1, bytes, &io.out);
        if (s == OCLCONV_OK)
            s = oclconv__run_buffer_path(ctx, &job, &io);
        if (s == OCLCONV_OK && in_place) {
            cl_int err = clEnqueueCopyBuffer(ctx->queue, io.out, dst->mem, 0, 0, bytes, 0,
                                             NULL, &copied);
            if (err != CL_SUCCESS)
                s = oclconv__cl_fail(ctx, err, "clEnqueueCopyBuffer");
        }
    }
    ctx->wait_list = NULL;
    ctx->wait_count = 0;
    cl_event last = oclconv__forget_kernel_events(ctx, s == OCLCONV_OK && !copied);
    if (s != OCLCONV_OK) {
        /* Whatever was enqueued must not outlive the failure unseen. */
        clFinish(ctx->queue);
        if (copied)
            clReleaseEvent(copied);
        return s;
    }
    if (copied)
        last = copied;
    if (done)
        *done = last;
    else if (last)
        clReleaseEvent(last);
    ctx->last_method = job.method;
    ctx->last_choice = job.choice;
    return OCLCONV_OK;
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
    return apply_cl(ctx, src, NULL, dst, f, opt, num_events, wait_list, done);
}

oclconv_status oclconv_apply_region_cl(oclconv_context *ctx, const oclconv_cl_image *src,
                                       const oclconv_region *region,
                                       const oclconv_cl_image *dst, const oclconv_filter *f,
                                       const oclconv_options *opt, cl_uint num_events,
                                       const cl_event *wait_list, cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "oclconv_apply_region_cl: context is NULL");
    if (!region) {
        oclconv__clear_error(ctx);
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "oclconv_apply_region_cl: region is NULL");
    }
    return apply_cl(ctx, src, region, dst, f, opt, num_events, wait_list, done);
}
