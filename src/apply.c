/* oclconv_apply(): validate every argument, plan, run the chosen path. */
#include "internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

void oclconv_options_init(oclconv_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
    opt->border = OCLCONV_BORDER_CLAMP;
    opt->method = OCLCONV_METHOD_AUTO;
    opt->scale = 1;
    opt->delta = 0;
}

/* The first published oclconv_options ended with `delta`. */
#define OPTIONS_V1_SIZE (offsetof(oclconv_options, delta) + sizeof(float))

/* Copies the fields the caller's header knew about over the defaults. */
static oclconv_status read_options(oclconv_context *ctx, const oclconv_options *opt,
                                   oclconv_options *out)
{
    oclconv_options_init(out);
    if (!opt)
        return OCLCONV_OK;
    if (opt->size < OPTIONS_V1_SIZE)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "options.size is %zu: initialise options with oclconv_options_init()",
                             opt->size);
    memcpy(out, opt, opt->size < sizeof *out ? opt->size : sizeof *out);
    out->size = sizeof *out;
    if ((unsigned)out->border > OCLCONV_BORDER_NORMALIZE)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "options.border %d is unknown",
                             (int)out->border);
    if ((unsigned)out->method > OCLCONV_METHOD_BOX)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "options.method %d is unknown",
                             (int)out->method);
    if (!isfinite(out->scale) || !isfinite(out->delta) || !isfinite(out->border_value))
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "options.scale, delta and border_value must be finite");
    if (out->border != OCLCONV_BORDER_CONSTANT) /* the kernels add it for every outside tap */
        out->border_value = 0;
    return OCLCONV_OK;
}

static oclconv_status validate(oclconv_context *ctx, oclconv__job *job, const oclconv_options *opt)
{
    oclconv_status s = oclconv__check_image(ctx, job->src, "source");
    if (s == OCLCONV_OK)
        s = oclconv__check_image(ctx, job->dst, "destination");
    if (s != OCLCONV_OK)
        return s;
    if (job->src->width != job->dst->width || job->src->height != job->dst->height ||
        job->src->channels != job->dst->channels)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "source %dx%dx%d and destination %dx%dx%d differ in size or channels",
                             job->src->width, job->src->height, job->src->channels,
                             job->dst->width, job->dst->height, job->dst->channels);
    if (!job->filter)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "filter is NULL");
    if ((s = read_options(ctx, opt, &job->opt)) != OCLCONV_OK)
        return s;
    if (job->opt.border == OCLCONV_BORDER_NORMALIZE && job->filter->sum == 0)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "the NORMALIZE border needs a filter whose weights do not sum to 0");
    return OCLCONV_OK;
}

oclconv_status oclconv_apply(oclconv_context *ctx, const oclconv_image *src, oclconv_image *dst,
                             const oclconv_filter *f, const oclconv_options *opt)
{
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_apply: context is NULL");
    oclconv__clear_error(ctx);
    oclconv__job job = {0};
    job.src = src;
    job.dst = dst;
    job.filter = f;
    oclconv_status s = validate(ctx, &job, opt);
    if (s == OCLCONV_OK)
        s = oclconv__plan(ctx, &job);
    if (s != OCLCONV_OK)
        return s;
    if (job.method == OCLCONV_METHOD_IMAGE) {
        s = oclconv__run_image(ctx, &job);
    } else {
        oclconv__io io;
        s = oclconv__io_begin(ctx, &job, &io);
        if (s == OCLCONV_OK) {
            switch (job.method) {
            case OCLCONV_METHOD_TILED: s = oclconv__run_tiled(ctx, &job, &io); break;
            case OCLCONV_METHOD_SEPARABLE: s = oclconv__run_separable(ctx, &job, &io); break;
            case OCLCONV_METHOD_BOX: s = oclconv__run_box(ctx, &job, &io); break;
            default: s = oclconv__run_buffer(ctx, &job, &io); break;
            }
        }
        s = oclconv__io_end(ctx, &job, &io, s);
    }
    oclconv__collect_kernel_time(ctx);
    if (s == OCLCONV_OK)
        ctx->last_method = job.method;
    return s;
}
