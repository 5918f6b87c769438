/* Moving pixels and weights between the host and the device, and running kernels. */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

oclconv_status oclconv__args(oclconv_context *ctx, cl_kernel k, cl_uint first, int count, ...)
{
    va_list ap;
    va_start(ap, count);
    oclconv_status s = OCLCONV_OK;
    for (int i = 0; i < count; i++) {
        size_t size = va_arg(ap, size_t);
        const void *value = va_arg(ap, const void *);
        cl_int err = clSetKernelArg(k, first + (cl_uint)i, size, value);
        if (err != CL_SUCCESS) {
            s = oclconv__fail(ctx, OCLCONV_E_OPENCL, "clSetKernelArg(%d) failed: %s (%d)",
                              (int)first + i, oclconv__cl_error_name(err), (int)err);
            break;
        }
    }
    va_end(ap);
    return s;
}

oclconv__acc oclconv__to_acc(const oclconv__job *job, double v)
{
    oclconv__acc a;
    if (job->acc_double)
        a.d = v;
    else
        a.f = (float)v;
    return a;
}

size_t oclconv__acc_size(const oclconv__job *job)
{
    return job->acc_double ? sizeof(double) : sizeof(float);
}

size_t oclconv__sum_size(const oclconv__job *job)
{
    return job->sum_int ? sizeof(cl_uint) : oclconv__acc_size(job);
}

int oclconv__sums_fit16(const oclconv__job *job, size_t taps)
{
    return job->src->type == OCLCONV_U8 && taps * 255 <= 65535;
}

cl_mem_flags oclconv__alloc_flags(const oclconv_context *ctx)
{
    return ctx->facts.unified_memory || (ctx->facts.type & CL_DEVICE_TYPE_CPU)
               ? CL_MEM_ALLOC_HOST_PTR
               : 0;
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
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | oclconv__alloc_flags(ctx),
                              bytes ? bytes : 1, NULL, &err);
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(ctx, err, "clCreateBuffer");
    ctx->scratch[slot] = m;
    ctx->scratch_size[slot] = bytes;
    *out = m;
    return OCLCONV_OK;
}

oclconv_status oclconv__copy(oclconv_context *ctx, cl_command_queue q, const oclconv__rect *r,
                            int to_device, const cl_event *wait, cl_event *done)
{
    cl_bool blocking = done ? CL_FALSE : CL_TRUE;
    cl_uint waits = wait ? 1 : 0;
    cl_int err;
    if (r->buf_x == 0 && r->buf_pitch == r->width && r->host_pitch == r->width) {
        size_t at = r->buf_pitch * (size_t)r->buf_row, bytes = r->width * (size_t)r->rows;
        err = to_device ? clEnqueueWriteBuffer(q, r->buf, blocking, at, bytes, r->host, waits,
                                               wait, done)
                        : clEnqueueReadBuffer(q, r->buf, blocking, at, bytes, r->host, waits,
                                              wait, done);
    } else {
        const size_t at[3] = {r->buf_x, (size_t)r->buf_row, 0}, host[3] = {0, 0, 0},
                     region[3] = {r->width, (size_t)r->rows, 1};
        err = to_device ? clEnqueueWriteBufferRect(q, r->buf, blocking, at, host, region,
                                                   r->buf_pitch, 0, r->host_pitch, 0, r->host,
                                                   waits, wait, done)
                        : clEnqueueReadBufferRect(q, r->buf, blocking, at, host, region,
                                                  r->buf_pitch, 0, r->host_pitch, 0, r->host,
                                                  waits, wait, done);
    }
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(ctx, err, to_device ? "uploading the source (clEnqueueWriteBuffer)"
                                                    : "reading the result (clEnqueueReadBuffer)");
    return OCLCONV_OK;
}

/* The whole image <-> a packed device buffer, on the context's queue. */
static oclconv_status copy_rect(oclconv_context *ctx, cl_mem buf, const oclconv_image *img,
                                int to_device)
{
    size_t row = oclconv__packed_row(img);
    oclconv__rect r = {buf, row, 0, 0, img->data, oclconv__row_stride(img), row, img->height};
    return oclconv__copy(ctx, ctx->queue, &r, to_device, NULL, NULL);
}

size_t oclconv__image_bytes(const oclconv_image *img)
{
    return oclconv__packed_row(img) * (size_t)img->height;
}

size_t oclconv__image_span(const oclconv_image *img)
{
    return oclconv__row_stride(img) * (size_t)(img->height - 1) + oclconv__packed_row(img);
}

/* Whether the device can work on the image's own memory: it shares the
 * host's memory, the rows are packed (or the kernels take them strided),
 * and every row starts at a multiple of a pixel's size where a pixel is 2
 * or 4 values, which the kernels load and store whole (PoCL, f32 RGBA one
 * value off: a crash).  Else the image goes through a buffer of the
 * runtime's, which aligns it. */
static int zero_copy(const oclconv_context *ctx, const oclconv_image *img, int strided)
{
    size_t px = oclconv__type_size(img->type) * (img->channels == 3 ? 1 : (size_t)img->channels);
    size_t stride = oclconv__row_stride(img);
    return ctx->facts.unified_memory && img->data &&
           (stride == oclconv__packed_row(img) || (strided && stride % px == 0)) &&
           (uintptr_t)img->data % px == 0;
}

int oclconv__reads_pitched(const oclconv__job *job)
{
    return (job->method == OCLCONV_METHOD_SEPARABLE && job->fused == OCLCONV_FUSED_BANDS) ||
           (job->method == OCLCONV_METHOD_BUFFER && job->cpu_shapes) ||
           (job->method == OCLCONV_METHOD_BOX && job->fused == OCLCONV_FUSED_BANDS &&
            job->sum_int);
}

void oclconv__io_layout(const oclconv__job *job, const oclconv__io *io, cl_int layout[6])
{
    int cn = job->src->channels;
    layout[0] = io->in_pitch ? io->in_pitch : job->src->width * cn;
    layout[4] = job->dst->width * cn;
    layout[5] = job->dst->height;
    layout[1] = io->out_pitch ? io->out_pitch : layout[4];
    layout[2] = io->keep_x * cn;
    layout[3] = io->keep_y;
}

oclconv_status oclconv__layout_args(oclconv_context *ctx, cl_kernel k, cl_uint first,
                                    const cl_int layout[6])
{
    oclconv_status s = OCLCONV_OK;
    for (cl_uint i = 0; i < 6 && s == OCLCONV_OK; i++)
        s = oclconv__args(ctx, k, first + i, 1, sizeof(cl_int), &layout[i]);
    return s;
}

int oclconv__overlap(const oclconv_image *a, const oclconv_image *b)
{
    const char *a0 = a->data, *b0 = b->data;
    size_t an = oclconv__row_stride(a) * (size_t)a->height;
    size_t bn = oclconv__row_stride(b) * (size_t)b->height;
    return (uintptr_t)a0 < (uintptr_t)b0 + bn && (uintptr_t)b0 < (uintptr_t)a0 + an;
}

static oclconv_status wrap_host(oclconv_context *ctx, const oclconv_image *img, cl_mem_flags flags,
                                cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->cl, flags | CL_MEM_USE_HOST_PTR, oclconv__image_span(img),
                          img->data, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return oclconv__cl_fail(ctx, err, "clCreateBuffer (host memory)");
    }
    return OCLCONV_OK;
}

oclconv_status oclconv__io_begin(oclconv_context *ctx, const oclconv__job *job, oclconv__io *io)
{
    io->in = io->out = NULL;
    io->in_owned = io->out_owned = io->in_pitch = io->out_pitch = io->keep_x = io->keep_y = 0;
    /* Each image fits the device's largest allocation: oclconv__region_parts()
     * runs one that would not in strips. */
    oclconv_status s;
    int pitched = oclconv__reads_pitched(job);
    if (zero_copy(ctx, job->src, pitched)) {
        s = wrap_host(ctx, job->src, CL_MEM_READ_ONLY, &io->in);
        io->in_owned = 1;
        io->in_pitch = (int)(oclconv__row_stride(job->src) / oclconv__type_size(job->src->type));
    } else {
        s = oclconv__scratch(ctx, 0, oclconv__image_bytes(job->src), &io->in);
        if (s == OCLCONV_OK)
            s = copy_rect(ctx, io->in, job->src, 1);
    }
    if (s != OCLCONV_OK)
        return s;
    /* Writing straight into the destination is safe only when it does not
     * share memory with the source the kernels still read. */
    if (zero_copy(ctx, job->dst, pitched) && !oclconv__overlap(job->src, job->dst)) {
        s = wrap_host(ctx, job->dst, CL_MEM_WRITE_ONLY, &io->out);
        io->out_owned = 1;
        io->out_pitch = (int)(oclconv__row_stride(job->dst) / oclconv__type_size(job->dst->type));
    } else {
        s = oclconv__scratch(ctx, 1, oclconv__image_bytes(job->dst), &io->out);
    }
    return s;
}

oclconv_status oclconv__io_end(oclconv_context *ctx, const oclconv__job *job, oclconv__io *io,
                               oclconv_status status)
{
    if (status == OCLCONV_OK && io->out && job->dst->data) {
        if (io->out_owned) { /* a map makes the kernels' writes visible in host memory;
                                * not blocking: the clFinish() after it waits for both */
            cl_int err;
            void *p = clEnqueueMapBuffer(ctx->queue, io->out, CL_FALSE, CL_MAP_READ, 0,
                                         oclconv__image_span(job->dst), 0, NULL, NULL, &err);
            if (err == CL_SUCCESS)
                err = clEnqueueUnmapMemObject(ctx->queue, io->out, p, 0, NULL, NULL);
            if (err == CL_SUCCESS)
                err = clFinish(ctx->queue);
            if (err != CL_SUCCESS)
                status = oclconv__cl_fail(ctx, err, "reading the result (clEnqueueMapBuffer)");
        } else {
            status = copy_rect(ctx, io->out, job->dst, 0);
        }
    }
    if (status != OCLCONV_OK)
        clFinish(ctx->queue); /* nothing may still touch the caller's memory */
    if (io->in_owned && io->in)
        clReleaseMemObject(io->in);
    if (io->out_owned && io->out)
        clReleaseMemObject(io->out);
    io->in = io->out = NULL;
    return status;
}

/* The context's upload of these bytes of weights, retained, or NULL. */
static cl_mem reuse_weights(oclconv_context *ctx, const void *values, size_t bytes)
{
    for (int i = 0; i < OCLCONV_WEIGHT_SETS; i++)
        if (ctx->weights[i].mem && ctx->weights[i].bytes == bytes &&
            memcmp(ctx->weights[i].values, values, bytes) == 0) {
            clRetainMemObject(ctx->weights[i].mem);
            return ctx->weights[i].mem;
        }
    return NULL;
}

/* Keeps an upload for reuse (taking `values`), in place of the oldest. */
static void keep_weights(oclconv_context *ctx, void *values, size_t bytes, cl_mem mem)
{
    int i = ctx->weights_next;
    ctx->weights_next = (i + 1) % OCLCONV_WEIGHT_SETS;
    oclconv__forget_weights(ctx, i);
    clRetainMemObject(mem);
    ctx->weights[i].values = values;
    ctx->weights[i].bytes = bytes;
    ctx->weights[i].mem = mem;
}

void oclconv__forget_weights(oclconv_context *ctx, int i)
{
    if (ctx->weights[i].mem)
        clReleaseMemObject(ctx->weights[i].mem);
    free(ctx->weights[i].values);
    ctx->weights[i].values = NULL;
    ctx->weights[i].mem = NULL;
}

/* n weights times 2^-shift (exact: a power of two) as the job's acc_t
 * values, into out (n * acc_size bytes). */
static void acc_values(const oclconv__job *job, const double *w, size_t n, int shift, void *out)
{
    for (size_t i = 0; i < n; i++) {
        double v = ldexp(w[i], -shift);
        if (job->acc_double)
            ((double *)out)[i] = v;
        else
            ((float *)out)[i] = (float)v;
    }
}

oclconv_status oclconv__upload_bytes(oclconv_context *ctx, void *values, size_t bytes,
                                     cl_mem *out)
{
    if ((*out = reuse_weights(ctx, values, bytes)) != NULL) {
        free(values);
        return OCLCONV_OK;
    }
    cl_int err;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, values, &err);
    if (err != CL_SUCCESS) {
        free(values);
        *out = NULL;
        return oclconv__cl_fail(ctx, err, "clCreateBuffer (weights)");
    }
    if (bytes <= OCLCONV_WEIGHT_SET_BYTES)
        keep_weights(ctx, values, bytes, *out);
    else
        free(values);
    return OCLCONV_OK;
}

/* Uploads `n` weights times 2^-shift, or finds them uploaded lately. */
static oclconv_status upload_shifted(oclconv_context *ctx, const oclconv__job *job,
                                     const double *w, size_t n, int shift, cl_mem *out)
{
    size_t bytes = n * oclconv__acc_size(job);
    void *buf = malloc(bytes);
    if (!buf)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the weights");
    acc_values(job, w, n, shift, buf);
    return oclconv__upload_bytes(ctx, buf, bytes, out);
}

oclconv_status oclconv__upload_weights(oclconv_context *ctx, const oclconv__job *job,
                                       const double *w, size_t n, cl_mem *out)
{
    return upload_shifted(ctx, job, w, n, 0, out);
}

oclconv_status oclconv__taps_arg(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                                cl_uint index, const double *w, size_t n, int shift, cl_mem *mem)
{
    oclconv_status s;
    if (!job->taps_by_value) {
        s = upload_shifted(ctx, job, w, n, shift, mem);
        return s == OCLCONV_OK ? oclconv__args(ctx, k, index, 1, sizeof *mem, mem) : s;
    }
    size_t bytes = n * oclconv__acc_size(job);
    void *values = malloc(bytes);
    if (!values)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the weights");
    acc_values(job, w, n, shift, values);
    s = oclconv__args(ctx, k, index, 1, bytes, (const void *)values);
    free(values);
    return s;
}

oclconv_status oclconv__run_2d(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                               size_t gx, size_t gy)
{
    return oclconv__run_2d_local(ctx, job, k, gx, gy, (size_t)job->local[0],
                                 (size_t)job->local[1]);
}

int oclconv__stackable(const oclconv__job *job)
{
    return job->method == OCLCONV_METHOD_BUFFER || job->method == OCLCONV_METHOD_TILED ||
           job->method == OCLCONV_METHOD_SEPARABLE;
}

/* The third dimension: a stack's images, past the fold's offset. */
oclconv_status oclconv__launch(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                               size_t gx, size_t gy, size_t lx, size_t ly, cl_event *event)
{
    int fold = oclconv__fold(ctx, job), dims = fold >= 0 || job->stack > 1 ? 3 : 2;
    size_t local[3] = {lx, ly, 1}, global[3] = {gx, gy, oclconv__stack_of(job)},
           offset[3] = {0, 0, (size_t)fold + 1};
    const size_t *local_arg = NULL;
    if (local[0] && local[1]) {
        global[0] = (gx + local[0] - 1) / local[0] * local[0];
        global[1] = (gy + local[1] - 1) / local[1] * local[1];
        local_arg = local;
    }
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, (cl_uint)dims, fold >= 0 ? offset : NULL,
                                        global, local_arg,
                                        ctx->wait_count, ctx->wait_count ? ctx->wait_list : NULL,
                                        event);
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(ctx, err, "clEnqueueNDRangeKernel");
    ctx->wait_count = 0; /* the queue is in order: the rest follow */
    ctx->wait_list = NULL;
    return OCLCONV_OK;
}

oclconv_status oclconv__run_2d_local(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                                     size_t gx, size_t gy, size_t lx, size_t ly)
{
    int slot = ctx->kernel_event_count;
    cl_event *event = slot < OCLCONV_MAX_EVENTS ? &ctx->kernel_events[slot] : NULL;
    oclconv_status s = oclconv__launch(ctx, job, k, gx, gy, lx, ly, event);
    if (s == OCLCONV_OK && event)
        ctx->kernel_event_count++;
    return s;
}

/* The device time of one finished kernel's event. */
static double event_time(cl_event e)
{
    cl_ulong start = 0, end = 0;
    if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
            CL_SUCCESS &&
        end > start)
        return (double)(end - start) * 1e-9;
    return 0;
}

/* The device time of the kernels enqueued so far, waiting for them; forgets
 * their events. */
static double kernel_time(oclconv_context *ctx)
{
    double total = 0;
    for (int i = 0; i < ctx->kernel_event_count; i++) {
        if (clWaitForEvents(1, &ctx->kernel_events[i]) == CL_SUCCESS)
            total += event_time(ctx->kernel_events[i]);
        clReleaseEvent(ctx->kernel_events[i]);
    }
    ctx->kernel_event_count = 0;
    return total;
}

void oclconv__bank_kernel_time(oclconv_context *ctx)
{
    /* The kernels that have finished, without waiting for the others: the
     * queue keeps working on the parts behind them. */
    int kept = 0;
    for (int i = 0; i < ctx->kernel_event_count; i++) {
        cl_int state = CL_QUEUED;
        cl_event e = ctx->kernel_events[i];
        clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
        if (state == CL_COMPLETE) {
            ctx->banked_seconds += event_time(e);
            clReleaseEvent(e);
        } else {
            ctx->kernel_events[kept++] = e;
        }
    }
    ctx->kernel_event_count = kept;
    if (kept > OCLCONV_MAX_EVENTS - OCLCONV_MAX_KERNELS)
        ctx->banked_seconds += kernel_time(ctx);
}

void oclconv__bank_span(oclconv_context *ctx, cl_event first, cl_event last)
{
    cl_ulong start = 0, end = 0;
    if (clWaitForEvents(1, &last) == CL_SUCCESS &&
        clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
            CL_SUCCESS &&
        end > start)
        ctx->banked_seconds += (double)(end - start) * 1e-9;
}

void oclconv__collect_kernel_time(oclconv_context *ctx)
{
    ctx->last_kernel_seconds = ctx->banked_seconds + kernel_time(ctx);
    ctx->banked_seconds = 0;
}

cl_event oclconv__forget_kernel_events(oclconv_context *ctx, int keep_last)
{
    cl_event last = NULL;
    if (keep_last && ctx->kernel_event_count > 0) {
        last = ctx->kernel_events[ctx->kernel_event_count - 1];
        clRetainEvent(last);
    }
    for (int i = 0; i < ctx->kernel_event_count; i++)
        clReleaseEvent(ctx->kernel_events[i]);
    ctx->kernel_event_count = 0;
    ctx->last_kernel_seconds = 0;
    ctx->banked_seconds = 0;
    return last;
}
