/* Status strings, the failure detail of contexts and threads, CL error names. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

const char *oclconv_strerror(oclconv_status s)
{
    switch (s) {
#define OCLCONV_STATUS_TEXT_(name, value, text) \
    case OCLCONV_##name: return text;
        OCLCONV_STATUS_MAP(OCLCONV_STATUS_TEXT_)
#undef OCLCONV_STATUS_TEXT_
    }
    return "unknown status";
}

/* Failures with no context to hold them (creation, filters) land here. */
static _Thread_local char thread_errmsg[4096];

const char *oclconv_errmsg(const oclconv_context *ctx)
{
    if (!ctx)
        return thread_errmsg;
    return ctx->errmsg ? ctx->errmsg : "";
}

void oclconv__clear_error(oclconv_context *ctx)
{
    if (!ctx)
        thread_errmsg[0] = '\0';
    else if (ctx->errmsg)
        ctx->errmsg[0] = '\0';
}

/* Sets (append = 0) or extends the message; on allocation failure the
 * message is cut short rather than lost. */
static void put_message(oclconv_context *ctx, int append, const char *text)
{
    if (!ctx) {
        size_t at = append ? strlen(thread_errmsg) : 0;
        snprintf(thread_errmsg + at, sizeof thread_errmsg - at, "%s", text);
        return;
    }
    size_t at = append && ctx->errmsg ? strlen(ctx->errmsg) : 0;
    size_t need = at + strlen(text) + 1;
    if (need > ctx->errmsg_cap) {
        char *grown = realloc(ctx->errmsg, need);
        if (!grown)
            return;
        if (!ctx->errmsg_cap)
            grown[0] = '\0';
        ctx->errmsg = grown;
        ctx->errmsg_cap = need;
    }
    memcpy(ctx->errmsg + at, text, strlen(text) + 1);
}

oclconv_status oclconv__fail(oclconv_context *ctx, oclconv_status s, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    put_message(ctx, 0, text);
    return s;
}

void oclconv__append_error(oclconv_context *ctx, const char *text)
{
    put_message(ctx, 1, text);
}

const char *oclconv__cl_error_name(cl_int err)
{
    switch (err) {
#define N(e) \
    case e: return #e;
        N(CL_SUCCESS) N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE)
        N(CL_COMPILER_NOT_AVAILABLE) N(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        N(CL_OUT_OF_RESOURCES) N(CL_OUT_OF_HOST_MEMORY) N(CL_PROFILING_INFO_NOT_AVAILABLE)
        N(CL_MEM_COPY_OVERLAP) N(CL_IMAGE_FORMAT_MISMATCH) N(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        N(CL_BUILD_PROGRAM_FAILURE) N(CL_MAP_FAILURE) N(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        N(CL_COMPILE_PROGRAM_FAILURE) N(CL_LINKER_NOT_AVAILABLE) N(CL_LINK_PROGRAM_FAILURE)
        N(CL_INVALID_VALUE) N(CL_INVALID_DEVICE_TYPE) N(CL_INVALID_PLATFORM)
        N(CL_INVALID_DEVICE) N(CL_INVALID_CONTEXT) N(CL_INVALID_QUEUE_PROPERTIES)
        N(CL_INVALID_COMMAND_QUEUE) N(CL_INVALID_HOST_PTR) N(CL_INVALID_MEM_OBJECT)
        N(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) N(CL_INVALID_IMAGE_SIZE) N(CL_INVALID_SAMPLER)
        N(CL_INVALID_BINARY) N(CL_INVALID_BUILD_OPTIONS) N(CL_INVALID_PROGRAM)
        N(CL_INVALID_PROGRAM_EXECUTABLE) N(CL_INVALID_KERNEL_NAME)
        N(CL_INVALID_KERNEL_DEFINITION) N(CL_INVALID_KERNEL) N(CL_INVALID_ARG_INDEX)
        N(CL_INVALID_ARG_VALUE) N(CL_INVALID_ARG_SIZE) N(CL_INVALID_KERNEL_ARGS)
        N(CL_INVALID_WORK_DIMENSION) N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_WORK_ITEM_SIZE)
        N(CL_INVALID_GLOBAL_OFFSET) N(CL_INVALID_EVENT_WAIT_LIST) N(CL_INVALID_EVENT)
        N(CL_INVALID_OPERATION) N(CL_INVALID_BUFFER_SIZE) N(CL_INVALID_GLOBAL_WORK_SIZE)
        N(CL_INVALID_PROPERTY) N(CL_INVALID_IMAGE_DESCRIPTOR) N(CL_INVALID_COMPILER_OPTIONS)
        N(CL_INVALID_LINKER_OPTIONS) N(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef N
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "unknown OpenCL error";
}

void oclconv__memory_limit(char *buf, size_t size)
{
    static const struct {
        int resource;
        const char *name;
    } limits[] = {{RLIMIT_AS, "address space (RLIMIT_AS, ulimit -v)"},
                  {RLIMIT_DATA, "data (RLIMIT_DATA, ulimit -d)"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        struct rlimit r;
        if (getrlimit(limits[i].resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
            snprintf(buf, size, "; the process's %s is limited to %llu MiB", limits[i].name,
                     (unsigned long long)(r.rlim_cur >> 20));
            return;
        }
    }
}

oclconv_status oclconv__cl_fail(oclconv_context *ctx, cl_int err, const char *call)
{
    oclconv_status s = OCLCONV_E_OPENCL;
    char limit[128] = "";
    if (err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
        err == CL_OUT_OF_RESOURCES) {
        s = OCLCONV_E_NOMEM;
        oclconv__memory_limit(limit, sizeof limit);
    }
    return oclconv__fail(ctx, s, "%s failed: %s (%d)%s", call, oclconv__cl_error_name(err),
                         (int)err, limit);
}
