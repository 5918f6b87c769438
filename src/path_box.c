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
    const oclconv_filter *f = job->filter;
    /* Row sums of 8-bit values over at most 257 taps fit 16 bits. */
    int narrow = !job->fused && job->src->type == OCLCONV_U8 && f->width * 255 <= 65535;
    snprintf(options + used, sizeof options - used,
             " -DSUM_INT=%d -DNARROW_ROWS=%d -DBAND=%d -DSEGMENT=%d%s", job->sum_int, narrow,
             job->band, OCLCONV_BOX_SEGMENT, job->fused ? " -DFUSED" : "");
    size_t pitch = oclconv__vec_pitch(job), v = (size_t)job->vec;
    size_t sum_size = narrow         ? sizeof(cl_ushort)
                      : job->sum_int ? sizeof(cl_uint)
                                     : oclconv__acc_size(job);
    size_t bands = ((size_t)job->src->height + (size_t)job->band - 1) / (size_t)job->band;
    cl_kernel k[2];
    oclconv_status s = oclconv__pass_kernels(ctx, "box", options, job->fused, k);
    if (s != OCLCONV_OK)
        return s;
    cl_kernel fused = k[0], rows = k[0], cols = k[1];
    cl_mem tmp = NULL; /* fused: two rows of sums a band; else the row pass */
    s = oclconv__scratch(ctx, 2,
                         pitch * (job->fused ? 2 * bands : (size_t)job->src->height) * sum_size,
                         &tmp);
    cl_int width = job->src->width, height = job->src->height, pitch_arg = (cl_int)pitch;
    /* Every tap of a box has the same weight, the exact product of a row tap
     * and a column tap. */
    oclconv__acc weight = oclconv__to_acc(job, (double)f->row[0] * f->col[0]);
    oclconv__acc bv = oclconv__to_acc(job, job->opt.border_value);
    oclconv__acc scale = oclconv__to_acc(job, job->opt.scale);
    oclconv__acc delta = oclconv__to_acc(job, job->opt.delta);
    size_t a = oclconv__acc_size(job);
    if (job->fused) {
        if (s == OCLCONV_OK)
            s = oclconv__args(ctx, fused, 0, 10, sizeof io->in, &io->in, sizeof io->out, &io->out,
                              sizeof tmp, &tmp, sizeof width, &width, sizeof height, &height,
                              sizeof pitch_arg, &pitch_arg, a, &weight, a, &bv, a, &scale, a,
                              &delta);
        /* Each work-item is a long sequential walk: one a group, so the
         * few of them spread over every core. */
        return s == OCLCONV_OK ? oclconv__run_2d_local(ctx, fused, 1, bands, 1, 1) : s;
    }
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, rows, 0, 5, sizeof io->in, &io->in, sizeof tmp, &tmp, sizeof width,
                          &width, sizeof height, &height, sizeof pitch_arg, &pitch_arg);
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, cols, 0, 9, sizeof tmp, &tmp, sizeof io->out, &io->out,
                          sizeof width, &width, sizeof height, &height, sizeof pitch_arg,
                          &pitch_arg, a, &weight, a, &bv, a, &scale, a, &delta);
    if (s == OCLCONV_OK)
        s = oclconv__run_2d_local(ctx, rows, (size_t)width, (size_t)height, OCLCONV_BOX_SEGMENT,
                                  1);
    if (s == OCLCONV_OK)
        s = oclconv__run_2d(ctx, job, cols, pitch / v, bands);
    return s;
}
