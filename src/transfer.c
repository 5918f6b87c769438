/* Moving pixels and weights between the host and the device, and running a range. */
#include "internal.h"

#include <stdlib.h>

oclconv_status oclconv__arg(oclconv_context *ctx, cl_kernel k, cl_uint i, size_t size,
                            const void *value)
{
    cl_int err = clSetKernelArg(k, i, size, value);
    if (err != CL_SUCCESS)
        return oclconv__fail(ctx, OCLCONV_E_OPENCL, "clSetKernelArg(%u) failed: %s (%d)", i,
                             oclconv__cl_error_name(err), (int)err);
    return OCLCONV_OK;
}

oclconv_status oclconv__scratch(oclconv_context *ctx, int slot, size_t bytes, cl_mem *out)
{
    if (bytes > ctx->facts.max_alloc)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "%zu bytes exceed the device's largest allocation (%llu bytes)", bytes,
                             (unsigned long long)ctx->facts.max_alloc);
    if (ctx->scratch[slot] && ctx->scratch_size[slot] >= bytes) {
        *out = ctx->scratch[slot];
        return OCLCONV_OK;
    }
    if (ctx->scratch[slot]) {
        clReleaseMemObject(ctx->scratch[slot]);
        ctx->scratch[slot] = NULL;
        ctx->scratch_size[slot] = 0;
    }
    cl_int err;
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(ctx, err, "clCreateBuffer");
    ctx->scratch[slot] = m;
    ctx->scratch_size[slot] = bytes;
    *out = m;
    return OCLCONV_OK;
}

/* Host rows (any stride) <-> a packed device buffer. */
static oclconv_status copy_rect(oclconv_context *ctx, cl_mem buf, const oclconv_image *img,
                                int to_device)
{
    size_t row = oclconv__packed_row(img), stride = oclconv__row_stride(img);
    cl_int err;
    if (stride == row) {
        size_t bytes = row * (size_t)img->height;
        err = to_device ? clEnqueueWriteBuffer(ctx->queue, buf, CL_TRUE, 0, bytes, img->data, 0,
                                               NULL, NULL)
                        : clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, 0, bytes, img->data, 0,
                                              NULL, NULL);
    } else {
        const size_t origin[3] = {0, 0, 0}, region[3] = {row, (size_t)img->height, 1};
        err = to_device ? clEnqueueWriteBufferRect(ctx->queue, buf, CL_TRUE, origin, origin,
                                                   region, row, 0, stride, 0, img->data, 0,
                                                   NULL, NULL)
                        : clEnqueueReadBufferRect(ctx->queue, buf, CL_TRUE, origin, origin,
                                                  region, row, 0, stride, 0, img->data, 0, NULL,
                                                  NULL);
    }
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(ctx, err, to_device ? "uploading the source (clEnqueueWriteBuffer)"
                                                    : "reading the result (clEnqueueReadBuffer)");
    return OCLCONV_OK;
}

oclconv_status oclconv__upload(oclconv_context *ctx, const oclconv_image *img, cl_mem buf)
{
    return copy_rect(ctx, buf, img, 1);
}

oclconv_status oclconv__download(oclconv_context *ctx, cl_mem buf, oclconv_image *img)
{
    return copy_rect(ctx, buf, img, 0);
}

oclconv_status oclconv__weights_buffer(oclconv_context *ctx, const void *w, size_t bytes,
                                       cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)(uintptr_t)w, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return oclconv__cl_fail(ctx, err, "clCreateBuffer (weights)");
    }
    return OCLCONV_OK;
}

oclconv_status oclconv__run_2d(oclconv_context *ctx, cl_kernel k, size_t gx, size_t gy,
                               const size_t local_wanted[2])
{
    size_t limit = ctx->facts.max_work_group, kernel_limit = 0;
    if (clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_limit,
                                 &kernel_limit, NULL) == CL_SUCCESS &&
        kernel_limit && kernel_limit < limit)
        limit = kernel_limit;
    size_t local[2] = {local_wanted[0], local_wanted[1]};
    if (local[0] > ctx->facts.max_work_item[0] && ctx->facts.max_work_item[0])
        local[0] = ctx->facts.max_work_item[0];
    if (local[1] > ctx->facts.max_work_item[1] && ctx->facts.max_work_item[1])
        local[1] = ctx->facts.max_work_item[1];
    while (local[0] * local[1] > limit)
        if (local[1] > 1)
            local[1] /= 2;
        else
            local[0] /= 2;
    if (!local[0])
        local[0] = 1;
    size_t global[2] = {(gx + local[0] - 1) / local[0] * local[0],
                        (gy + local[1] - 1) / local[1] * local[1]};
    int slot = ctx->kernel_event_count;
    cl_event *event = slot < 4 ? &ctx->kernel_events[slot] : NULL;
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, global, local, 0, NULL, event);
    if (err == CL_SUCCESS && event)
        ctx->kernel_event_count++;
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(ctx, err, "clEnqueueNDRangeKernel");
    return OCLCONV_OK;
}

oclconv_status oclconv__filter_args(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                                    cl_uint first, cl_mem *weights)
{
    const oclconv_filter *f = job->filter;
    size_t n = (size_t)f->width * (size_t)f->height;
    size_t size = job->acc_double ? sizeof(double) : sizeof(float);
    void *w = malloc(n * size);
    if (!w)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the weights");
    for (size_t i = 0; i < n; i++) {
        if (job->acc_double)
            ((double *)w)[i] = f->weights[i];
        else
            ((float *)w)[i] = (float)f->weights[i];
    }
    oclconv_status s = oclconv__weights_buffer(ctx, w, n * size, weights);
    free(w);
    if (s != OCLCONV_OK)
        return s;
    double scalars[4] = {job->opt.border == OCLCONV_BORDER_CONSTANT ? job->opt.border_value : 0,
                         job->opt.scale, job->opt.delta, f->sum};
    s = oclconv__arg(ctx, k, first, sizeof(cl_mem), weights);
    for (int i = 0; i < 4 && s == OCLCONV_OK; i++) {
        float single = (float)scalars[i];
        s = job->acc_double ? oclconv__arg(ctx, k, first + 1 + (cl_uint)i, sizeof(double), &scalars[i])
                            : oclconv__arg(ctx, k, first + 1 + (cl_uint)i, sizeof(float), &single);
    }
    return s;
}

void oclconv__collect_kernel_time(oclconv_context *ctx)
{
    double total = 0;
    for (int i = 0; i < ctx->kernel_event_count; i++) {
        cl_ulong start = 0, end = 0;
        if (clWaitForEvents(1, &ctx->kernel_events[i]) == CL_SUCCESS &&
            clGetEventProfilingInfo(ctx->kernel_events[i], CL_PROFILING_COMMAND_START,
                                    sizeof start, &start, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(ctx->kernel_events[i], CL_PROFILING_COMMAND_END, sizeof end,
                                    &end, NULL) == CL_SUCCESS &&
            end > start)
            total += (double)(end - start) * 1e-9;
        clReleaseEvent(ctx->kernel_events[i]);
    }
    ctx->kernel_event_count = 0;
    ctx->last_kernel_seconds = total;
}
