/* The buffer path (cl/buffer.cl): packed device buffers, one work-item a pixel. */
#include "internal.h"

#include <stdio.h>

oclconv_status oclconv__run_buffer(oclconv_context *ctx, const oclconv__job *job)
{
    char options[512];
    oclconv__common_options(ctx, job, options, sizeof options);
    cl_kernel k;
    oclconv_status s = oclconv__get_kernel(ctx, "buffer", "convolve_buffer", options, &k);
    const oclconv_image *src = job->src;
    oclconv_image *dst = job->dst;
    cl_mem in = NULL, out = NULL, weights = NULL;
    if (s == OCLCONV_OK)
        s = oclconv__scratch(ctx, 0, oclconv__packed_row(src) * (size_t)src->height, &in);
    if (s == OCLCONV_OK)
        s = oclconv__scratch(ctx, 1, oclconv__packed_row(dst) * (size_t)dst->height, &out);
    if (s == OCLCONV_OK)
        s = oclconv__upload(ctx, src, in);
    cl_int width = src->width, height = src->height;
    if (s == OCLCONV_OK)
        s = oclconv__arg(ctx, k, 0, sizeof in, &in);
    if (s == OCLCONV_OK)
        s = oclconv__arg(ctx, k, 1, sizeof out, &out);
    if (s == OCLCONV_OK)
        s = oclconv__arg(ctx, k, 2, sizeof width, &width);
    if (s == OCLCONV_OK)
        s = oclconv__arg(ctx, k, 3, sizeof height, &height);
    if (s == OCLCONV_OK)
        s = oclconv__filter_args(ctx, job, k, 4, &weights);
    if (s == OCLCONV_OK)
        s = oclconv__run_2d(ctx, k, (size_t)width, (size_t)height, (const size_t[2]){16, 16});
    if (s == OCLCONV_OK)
        s = oclconv__download(ctx, out, dst);
    if (weights)
        clReleaseMemObject(weights);
    return s;
}
