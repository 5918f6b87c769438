/* Contexts: the device, its queue, the facts the planner needs, the caches. */
#include "internal.h"
#include "host_copy.h"
#include "fft.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int oclconv_version_number(void)
{
    return OCLCONV_VERSION_NUMBER;
}

static void gather_facts(oclconv_context *ctx)
{
    oclconv__device_facts *f = &ctx->facts;
    cl_bool images = CL_FALSE;
    char ext[8192] = "";
    cl_uint fp64_width = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof f->type, &f->type, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, sizeof fp64_width,
                    &fp64_width, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof f->max_work_group,
                    &f->max_work_group, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof f->max_work_item,
                    f->max_work_item, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof f->local_mem, &f->local_mem,
                    NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof f->max_alloc,
                    &f->max_alloc, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof f->global_mem,
                    &f->global_mem, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof f->max_constant,
                    &f->max_constant, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_PARAMETER_SIZE, sizeof f->max_param,
                    &f->max_param, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof f->image2d_max_width,
                    &f->image2d_max_width, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof f->image2d_max_height,
                    &f->image2d_max_height, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof f->compute_units,
                    &f->compute_units, NULL);
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(ctx->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    f->unified_memory = unified == CL_TRUE;
    f->image_support = images == CL_TRUE;
    f->fp64 = strstr(ext, "cl_khr_fp64") != NULL && fp64_width > 0;
    cl_platform_id platform = NULL;
    char platform_name[128] = "";
    clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    if (platform)
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name,
                          NULL);
    f->own_builtins = strcmp(platform_name, "Portable Computing Language") == 0;
    if (!f->max_work_group)
        f->max_work_group = 1;
}

/* Fills in everything after cl, device and queue are set. */
static oclconv_status finish(oclconv_context *ctx)
{
    clGetDeviceInfo(ctx->device, CL_DEVICE_NAME, sizeof ctx->name - 1, ctx->name, NULL);
    gather_facts(ctx);
    if (ctx->facts.image_support) {
        cl_int err;
        ctx->sampler_edge =
            clCreateSampler(ctx->cl, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
        if (err == CL_SUCCESS)
            ctx->sampler_zero =
                clCreateSampler(ctx->cl, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
        if (err != CL_SUCCESS) /* no samplers: the image path is off, nothing else */
            ctx->facts.image_support = 0;
    }
    return OCLCONV_OK;
}

static oclconv_status new_context(oclconv_context **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return oclconv__fail(NULL, OCLCONV_E_NOMEM, "out of memory for a context");
    (*out)->last_method = OCLCONV_METHOD_AUTO;
    return OCLCONV_OK;
}

/* A context on `device` of the OpenCL context `cl`, which it retains. */
static oclconv_status create_on(cl_context cl, cl_device_id device, oclconv_context **out)
{
    oclconv_context *ctx;
    oclconv_status s = new_context(&ctx);
    if (s != OCLCONV_OK)
        return s;
    clRetainContext(cl);
    ctx->cl = cl;
    ctx->device = device;
    cl_int err;
    ctx->queue = clCreateCommandQueue(ctx->cl, device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        s = oclconv__cl_fail(NULL, err, "clCreateCommandQueue");
        oclconv_destroy(ctx);
        return s;
    }
    *out = ctx;
    return finish(ctx);
}

/* The devices of a spec on one OpenCL context a platform, so that the
 * pinned host memory of oclconv_host_alloc() is pinned for every device of
 * the platform; then one library context a device, the first holding the
 * others as its peers. */
static oclconv_status create_all(const cl_platform_id *platforms, const cl_device_id *devices,
                                 int n, oclconv_context **out)
{
    cl_context cl[OCLCONV_MAX_DEVICES] = {0};
    oclconv_status s = OCLCONV_OK;
    for (int k = 0; k < n && s == OCLCONV_OK; k++) {
        for (int j = 0; j < k && !cl[k]; j++)
            if (platforms[j] == platforms[k]) {
                cl[k] = cl[j];
                clRetainContext(cl[k]);
            }
        if (cl[k])
            continue;
        cl_device_id same[OCLCONV_MAX_DEVICES];
        cl_uint m = 0;
        for (int j = k; j < n; j++)
            if (platforms[j] == platforms[k])
                same[m++] = devices[j];
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         (cl_context_properties)platforms[k], 0};
        cl_int err;
        cl[k] = clCreateContext(props, m, same, NULL, NULL, &err);
        if (err != CL_SUCCESS) {
            cl[k] = NULL;
            s = oclconv__cl_fail(NULL, err, "clCreateContext");
        }
    }
    oclconv_context *ctx = NULL;
    if (s == OCLCONV_OK)
        s = create_on(cl[0], devices[0], &ctx);
    for (int k = 1; s == OCLCONV_OK && k < n; k++) {
        s = create_on(cl[k], devices[k], &ctx->peers[k - 1]);
        if (s == OCLCONV_OK) {
            ctx->peer_count = k;
            ctx->peers[k - 1]->device_index = k;
            ctx->peers[k - 1]->first = ctx;
            size_t used = strlen(ctx->name);
            snprintf(ctx->name + used, sizeof ctx->name - used, " + %s", ctx->peers[k - 1]->name);
        }
    }
    for (int k = 0; k < n; k++)
        if (cl[k])
            clReleaseContext(cl[k]);
    if (s != OCLCONV_OK) {
        oclconv_destroy(ctx);
        return s;
    }
    *out = ctx;
    return OCLCONV_OK;
}

oclconv_status oclconv_create(const char *device_spec, oclconv_context **out)
{
    if (!out)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_create: out is NULL");
    *out = NULL;
    oclconv__clear_error(NULL);
    if (!device_spec)
        device_spec = getenv("OCLCONV_DEVICE");
    cl_platform_id platforms[OCLCONV_MAX_DEVICES];
    cl_device_id devices[OCLCONV_MAX_DEVICES];
    int n;
    oclconv_status s =
        oclconv__find_devices(device_spec, platforms, devices, OCLCONV_MAX_DEVICES, &n);
    return s == OCLCONV_OK ? create_all(platforms, devices, n, out) : s;
}

/* The device must be one of the context's, and the queue one of the
 * context's on that device: else every later call would fail with
 * CL_INVALID_CONTEXT or CL_INVALID_DEVICE. */
static oclconv_status check_cl_objects(cl_context context, cl_device_id device,
                                       cl_command_queue queue)
{
    cl_uint n = 0;
    cl_int err = clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL);
    if (err != CL_SUCCESS)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "oclconv_create_from_cl: context is not an OpenCL context: %s",
                             oclconv__cl_error_name(err));
    cl_device_id *devices = calloc(n ? n : 1, sizeof *devices);
    if (!devices)
        return oclconv__fail(NULL, OCLCONV_E_NOMEM, "out of memory listing a context's devices");
    int found = 0;
    if (clGetContextInfo(context, CL_CONTEXT_DEVICES, n * sizeof *devices, devices, NULL) ==
        CL_SUCCESS)
        for (cl_uint i = 0; i < n; i++)
            found |= devices[i] == device;
    free(devices);
    if (!found)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "oclconv_create_from_cl: the device is not one of the context's");
    if (!queue)
        return OCLCONV_OK;
    cl_context owner = NULL;
    cl_device_id on = NULL;
    err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof on, &on, NULL);
    if (err != CL_SUCCESS)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "oclconv_create_from_cl: queue is not a command queue: %s",
                             oclconv__cl_error_name(err));
    if (owner != context || on != device)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "oclconv_create_from_cl: the queue belongs to %s",
                             owner != context ? "another context" : "another device");
    return OCLCONV_OK;
}

oclconv_status oclconv_create_from_cl(cl_context context, cl_device_id device,
                                      cl_command_queue queue, oclconv_context **out)
{
    if (!out)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_create_from_cl: out is NULL");
    *out = NULL;
    oclconv__clear_error(NULL);
    if (!context || !device)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "oclconv_create_from_cl: context and device are required");
    oclconv_status s = check_cl_objects(context, device, queue);
    if (s != OCLCONV_OK)
        return s;
    oclconv_context *ctx;
    if ((s = new_context(&ctx)) != OCLCONV_OK)
        return s;
    cl_int err = clRetainContext(context);
    if (err != CL_SUCCESS) {
        oclconv_destroy(ctx);
        return oclconv__cl_fail(NULL, err, "clRetainContext");
    }
    ctx->cl = context;
    ctx->device = device;
    if (queue) {
        cl_command_queue_properties props = 0;
        clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
        if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
            oclconv_destroy(ctx);
            return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                                 "oclconv_create_from_cl: the queue must be in-order");
        }
        err = clRetainCommandQueue(queue);
        ctx->queue = queue;
    } else {
        ctx->queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    }
    if (err != CL_SUCCESS) {
        ctx->queue = NULL;
        oclconv_destroy(ctx);
        return oclconv__cl_fail(NULL, err, queue ? "clRetainCommandQueue" : "clCreateCommandQueue");
    }
    *out = ctx;
    return finish(ctx);
}

void oclconv_destroy(oclconv_context *ctx)
{
    if (!ctx)
        return;
    for (int k = 0; k < ctx->peer_count; k++)
        oclconv_destroy(ctx->peers[k]);
    oclconv__program_cache_free(ctx->programs);
    oclconv__calibration_free(ctx);
    oclconv__fft_free(ctx);
    oclconv__copier_stop(ctx->copier);
    oclconv__host_free_all(ctx);
    for (int i = 0; i < OCLCONV_SCRATCH_SLOTS; i++)
        if (ctx->scratch[i])
            clReleaseMemObject(ctx->scratch[i]);
    for (int i = 0; i < OCLCONV_WEIGHT_SETS; i++)
        oclconv__forget_weights(ctx, i);
    if (ctx->sampler_edge)
        clReleaseSampler(ctx->sampler_edge);
    if (ctx->sampler_zero)
        clReleaseSampler(ctx->sampler_zero);
    if (ctx->upload_queue)
        clReleaseCommandQueue(ctx->upload_queue);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->cl)
        clReleaseContext(ctx->cl);
    free(ctx->errmsg);
    free(ctx);
}

const char *oclconv_device_name(const oclconv_context *ctx)
{
    return ctx ? ctx->name : "";
}

oclconv_method oclconv_last_method(const oclconv_context *ctx)
{
    return ctx ? ctx->last_method : OCLCONV_METHOD_AUTO;
}

size_t oclconv_programs_built(const oclconv_context *ctx)
{
    size_t n = ctx ? ctx->programs_built : 0;
    for (int k = 0; ctx && k < ctx->peer_count; k++)
        n += ctx->peers[k]->programs_built;
    return n;
}

int oclconv_device_count(const oclconv_context *ctx)
{
    return ctx ? 1 + ctx->peer_count : 0;
}

double oclconv_last_kernel_seconds(const oclconv_context *ctx)
{
    return ctx ? ctx->last_kernel_seconds : 0;
}

cl_context oclconv_cl_context(const oclconv_context *ctx)
{
    return ctx ? ctx->cl : NULL;
}

cl_device_id oclconv_cl_device(const oclconv_context *ctx)
{
    return ctx ? ctx->device : NULL;
}

cl_command_queue oclconv_cl_queue(const oclconv_context *ctx)
{
    return ctx ? ctx->queue : NULL;
}

/* OCLCONV_DEVICE_BYTES: bytes, or with a K, M or G suffix; a list apart
 * by commas gives each device of the context its own, the last the rest. */
oclconv_status oclconv__device_budget(oclconv_context *ctx, const oclconv__job *job, size_t *out)
{
    *out = job->opt.max_device_bytes;
    if (*out)
        return OCLCONV_OK;
    const char *env = getenv("OCLCONV_DEVICE_BYTES");
    if (env && *env) {
        const char *p = env;
        for (int k = 0; k < ctx->device_index && strchr(p, ','); k++)
            p = strchr(p, ',') + 1;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
        if (shift)
            end++;
        if (errno || (*end && *end != ',') || end == p || v == 0 || v > (SIZE_MAX >> shift) ||
            strspn(env, "0123456789KMG,") != strlen(env))
            return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                                 "OCLCONV_DEVICE_BYTES=%s is not a positive size in bytes "
                                 "(a K, M or G suffix allowed), or a list of them", env);
        *out = (size_t)v << shift;
        return OCLCONV_OK;
    }
    *out = ctx->facts.global_mem ? (size_t)(ctx->facts.global_mem / 2) : SIZE_MAX;
    return OCLCONV_OK;
}
