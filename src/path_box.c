/* The box path (cl/box.cl): running sums along rows, then down columns. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

oclconv_status oclconv__run_box(oclconv_context *ctx, const oclconv__job *job,
                                const oclconv__io *io)
{
    char options[512];
    oclconv__common_options(ctx, job, options, sizeof options);
    size_t used = strlen(options);
    snprintf(options + used, sizeof options - used, " -DSUM_INT=%d -DBAND=%d", job->sum_int,
             job->band);
    cl_kernel rows, cols;
    oclconv_status s = oclconv__get_kernel(ctx, "box", "box_rows", options, &rows);
    if (s == OCLCONV_OK)
        s = oclconv__get_kernel(ctx, "box", "box_cols", options, &cols);
    if (s != OCLCONV_OK)
        return s;
    const oclconv_filter *f = job->filter;
    int cn = job->src->channels;
    size_t values = (size_t)job->src->width * (size_t)cn, v = (size_t)job->vec;
    size_t pitch = (values + v - 1) / v * v;
    size_t sum_size = job->sum_int ? sizeof(cl_uint) : oclconv__acc_size(job);
    cl_mem tmp = NULL;
    s = oclconv__scratch(ctx, 2, pitch * (size_t)job->src->height * sum_size, &tmp);
    cl_int width = job->src->width, height = job->src->height, pitch_arg = (cl_int)pitch;
    /* Every tap of a box has the same weight, the exact product of a row tap
     * and a column tap. */
    oclconv__acc weight = oclconv__to_acc(job, (double)f->row[0] * f->col[0]);
    oclconv__acc bv = oclconv__to_acc(job, job->opt.border_value);
    oclconv__acc scale = oclconv__to_acc(job, job->opt.scale);
    oclconv__acc delta = oclconv__to_acc(job, job->opt.delta);
    size_t a = oclconv__acc_size(job);
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, rows, 0, 5, sizeof io->in, &io->in, sizeof tmp, &tmp, sizeof width,
                          &width, sizeof height, &height, sizeof pitch_arg, &pitch_arg);
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, cols, 0, 9, sizeof tmp, &tmp, sizeof io->out, &io->out,
                          sizeof width, &width, sizeof height, &height, sizeof pitch_arg,
                          &pitch_arg, a, &weight, a, &bv, a, &scale, a, &delta);
    if (s == OCLCONV_OK)
        s = oclconv__run_2d(ctx, job, rows, (size_t)cn, (size_t)height);
    if (s == OCLCONV_OK)
        s = oclconv__run_2d(ctx, job, cols, pitch / v,
                            ((size_t)height + (size_t)job->band - 1) / (size_t)job->band);
    return s;
}
