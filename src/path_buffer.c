/*
 * The buffer path (cl/buffer.cl): VEC values of one row a work-item, from
 * global memory; and the host side every direct 2-D kernel shares.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

oclconv_status oclconv__run_direct(oclconv_context *ctx, const oclconv__job *job,
                                   const oclconv__io *io, const char *source, const char *kernel,
                                   const char *extra_options, const cl_int *layout, size_t gx,
                                   size_t gy)
{
    char options[512];
    oclconv__common_options(ctx, job, options, sizeof options);
    size_t used = strlen(options);
    snprintf(options + used, sizeof options - used, " -DROW_SUMS=%d%s", job->row_sums,
             extra_options);
    cl_kernel k;
    oclconv_status s = oclconv__get_kernel(ctx, source, kernel, options, &k);
    cl_mem weights = NULL;
    cl_int width = job->src->width, height = job->src->height;
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, k, 0, 4, sizeof io->in, &io->in, sizeof io->out, &io->out,
                          sizeof width, &width, sizeof height, &height);
    if (s == OCLCONV_OK)
        s = oclconv__weight_args(ctx, job, k, 4, &weights);
    if (s == OCLCONV_OK && layout)
        s = oclconv__layout_args(ctx, k, 9, layout);
    if (s == OCLCONV_OK)
        s = oclconv__run_2d(ctx, job, k, gx, gy);
    if (weights)
        clReleaseMemObject(weights);
    return s;
}

oclconv_status oclconv__weight_args(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                                    cl_uint first, cl_mem *weights)
{
    const oclconv_filter *f = job->filter;
    size_t n = (size_t)f->width * (size_t)f->height, a = oclconv__acc_size(job);
    int shift = job->shift[0];
    oclconv__acc bv = oclconv__to_acc(job, job->opt.border_value);
    oclconv__acc scale = oclconv__to_acc(job, oclconv__shifted_scale(job));
    oclconv__acc delta = oclconv__to_acc(job, job->opt.delta);
    oclconv__acc wsum = oclconv__to_acc(job, ldexp(f->sum, -shift));
    oclconv_status s = oclconv__taps_arg(ctx, job, k, first, f->weights, n, shift, weights);
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, k, first + 1, 4, a, &bv, a, &scale, a, &delta, a, &wsum);
    return s;
}

oclconv_status oclconv__run_buffer(oclconv_context *ctx, const oclconv__job *job,
                                   const oclconv__io *io)
{
    cl_int layout[6]; /* the destination's window of the image: its values a row, its rows */
    oclconv__io_layout(job, io, layout);
    size_t rows = (size_t)job->band, step = (size_t)job->vec * (size_t)job->chunks;
    char options[64];
    snprintf(options, sizeof options, " -DROWS=%zu -DCHUNKS=%d -DPACKED_SRC=%d", rows, job->chunks,
             layout[0] == job->src->width * job->src->channels);
    return oclconv__run_direct(ctx, job, io, "chunks buffer", "convolve_buffer", options, layout,
                               ((size_t)layout[4] + step - 1) / step,
                               ((size_t)layout[5] + rows - 1) / rows);
}
