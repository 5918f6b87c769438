/* oclconv_host_alloc(): host memory from a mapped CL_MEM_ALLOC_HOST_PTR
 * buffer, which drivers back with page-locked memory their DMA engines
 * reach directly. */
#include "internal.h"

#include <stdlib.h>

struct oclconv__host_block {
    cl_mem mem;
    void *ptr;
    size_t bytes;
    struct oclconv__host_block *next;
};

oclconv_status oclconv_host_alloc(oclconv_context *ctx, size_t bytes, void **out)
{
    if (!ctx || !out || bytes == 0)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "oclconv_host_alloc: %s", !out ? "out is NULL" : !ctx ? "ctx is NULL"
                                                                                 : "0 bytes");
    *out = NULL;
    if (bytes > ctx->facts.max_alloc)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM,
                             "%zu bytes exceed the device's largest allocation (%llu bytes)",
                             bytes, (unsigned long long)ctx->facts.max_alloc);
    struct oclconv__host_block *b = calloc(1, sizeof *b);
    if (!b)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for host memory bookkeeping");
    cl_int err;
    b->mem = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err == CL_SUCCESS)
        b->ptr = clEnqueueMapBuffer(ctx->queue, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                    bytes, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        if (b->mem)
            clReleaseMemObject(b->mem);
        free(b);
        oclconv__cl_fail(ctx, err, "host memory (clCreateBuffer / clEnqueueMapBuffer)");
        return OCLCONV_E_NOMEM;
    }
    b->bytes = bytes;
    b->next = ctx->host_blocks;
    ctx->host_blocks = b;
    *out = b->ptr;
    return OCLCONV_OK;
}

int oclconv__host_pinned(const oclconv_context *ctx, const void *p, size_t bytes)
{
    /* A peer device on the first one's OpenCL context shares its memory. */
    const oclconv_context *owner = ctx->first && ctx->first->cl == ctx->cl ? ctx->first : ctx;
    for (const struct oclconv__host_block *b = owner->host_blocks; b; b = b->next)
        if (bytes <= b->bytes && (uintptr_t)p >= (uintptr_t)b->ptr &&
            (uintptr_t)p - (uintptr_t)b->ptr <= b->bytes - bytes)
            return 1;
    return 0;
}

static void release(oclconv_context *ctx, struct oclconv__host_block *b)
{
    clEnqueueUnmapMemObject(ctx->queue, b->mem, b->ptr, 0, NULL, NULL);
    clFinish(ctx->queue);
    clReleaseMemObject(b->mem);
    free(b);
}

oclconv_status oclconv_host_free(oclconv_context *ctx, void *p)
{
    if (!p)
        return OCLCONV_OK;
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_host_free: ctx is NULL");
    for (struct oclconv__host_block **at = &ctx->host_blocks; *at; at = &(*at)->next)
        if ((*at)->ptr == p) {
            struct oclconv__host_block *b = *at;
            *at = b->next;
            release(ctx, b);
            return OCLCONV_OK;
        }
    return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                         "oclconv_host_free: %p did not come from oclconv_host_alloc on this "
                         "context", p);
}

void oclconv__host_free_all(oclconv_context *ctx)
{
    while (ctx->host_blocks) {
        struct oclconv__host_block *b = ctx->host_blocks;
        ctx->host_blocks = b->next;
        release(ctx, b);
    }
}
