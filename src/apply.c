/* oclconv_apply() and oclconv_apply_region(): validate every argument,
 * plan, run the chosen path, whole or in parts (src/region.c). */
#include "internal.h"
#include "fft.h"
#include "region.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
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
    if ((unsigned)out->method > OCLCONV_METHOD_FFT)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "options.method %d is unknown",
                             (int)out->method);
    if (!isfinite(out->scale) || !isfinite(out->delta) || !isfinite(out->border_value))
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "options.scale, delta and border_value must be finite");
    if (out->border != OCLCONV_BORDER_CONSTANT) /* the kernels add it for every outside tap */
        out->border_value = 0;
    return OCLCONV_OK;
}

/* Checks the images, the filter and the options; the images' sizes too
 * where they must be the same (all but regions). */
oclconv_status oclconv__validate(oclconv_context *ctx, oclconv__job *job, const oclconv_options *opt,
                                 int same_size)
{
    oclconv_status s = oclconv__check_image(ctx, job->src, "source");
    if (s == OCLCONV_OK)
        s = oclconv__check_image(ctx, job->dst, "destination");
    if (s != OCLCONV_OK)
        return s;
    if ((same_size && (job->src->width != job->dst->width ||
                       job->src->height != job->dst->height)) ||
        job->src->channels != job->dst->channels)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "source %dx%dx%d and destination %dx%dx%d differ in %s",
                             job->src->width, job->src->height, job->src->channels,
                             job->dst->width, job->dst->height, job->dst->channels,
                             same_size ? "size or channels" : "channels");
    if (!job->filter)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "filter is NULL");
    if ((s = read_options(ctx, opt, &job->opt)) != OCLCONV_OK)
        return s;
    if (job->opt.border == OCLCONV_BORDER_NORMALIZE && job->filter->sum == 0)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "the NORMALIZE border needs a filter whose weights do not sum to 0");
    return OCLCONV_OK;
}

oclconv_status oclconv__run_buffer_path(oclconv_context *ctx, const oclconv__job *job,
                                       const oclconv__io *io)
{
    switch (job->method) {
    case OCLCONV_METHOD_TILED: return oclconv__run_tiled(ctx, job, io);
    case OCLCONV_METHOD_SEPARABLE: return oclconv__run_separable(ctx, job, io);
    case OCLCONV_METHOD_BOX: return oclconv__run_box(ctx, job, io);
    case OCLCONV_METHOD_RUNS: return oclconv__run_runs(ctx, job, io);
    case OCLCONV_METHOD_FFT: return oclconv__run_fft(ctx, job, io);
    default: return oclconv__run_buffer(ctx, job, io);
    }
}

/* The whole image in one part, as the paths take it. */
static oclconv_status run_whole(oclconv_context *ctx, const oclconv__job *job)
{
    if (job->method == OCLCONV_METHOD_IMAGE)
        return oclconv__run_image(ctx, job);
    oclconv__io io;
    oclconv_status s = oclconv__io_begin(ctx, job, &io);
    if (s == OCLCONV_OK)
        s = oclconv__run_buffer_path(ctx, job, &io);
    return oclconv__io_end(ctx, job, &io, s);
}

oclconv_status oclconv__apply_host(oclconv_context *ctx, const oclconv_image *src,
                                   const oclconv_region *where, oclconv_image *dst,
                                   const oclconv_filter *f, const oclconv_options *opt,
                                   int split)
{
    oclconv__clear_error(ctx);
    oclconv__job job = {0};
    job.src = src;
    job.dst = dst;
    job.filter = f;
    oclconv_status s = oclconv__validate(ctx, &job, opt, where == NULL);
    if (s != OCLCONV_OK)
        return s;
    oclconv__region r;
    if ((s = oclconv__region_of(ctx, &r, where, &job)) != OCLCONV_OK)
        return s;
    if (split && oclconv__split_worth(ctx, dst))
        return oclconv__apply_devices(ctx, src, where, dst, f, opt);
    /* Planned as the image filtered in one part; parts of it take the plan. */
    oclconv_image part[2];
    int whole;
    r.staged = oclconv__overlap(src, dst);
    job.in_bands = oclconv__region_bands(ctx, &r) > 1;
    s = oclconv__region_plan(ctx, &r, &job, part, &whole);
    if (s == OCLCONV_OK)
        s = oclconv__region_parts(ctx, &r, &job);
    if (s != OCLCONV_OK)
        return s;
    oclconv_image staged = {0};
    if (whole && r.parts == 1) {
        job.src = src;
        job.dst = dst;
        s = run_whole(ctx, &job);
    } else if (oclconv__region_in_place(ctx, &r, &job)) {
        s = oclconv__run_region_in_place(ctx, &r, &job);
    } else {
        if (r.staged && (s = oclconv__stage(ctx, src, &staged)) == OCLCONV_OK)
            r.src = &staged;
        if (s == OCLCONV_OK)
            s = oclconv__run_region(ctx, &r, &job, oclconv__run_buffer_path);
        free(staged.data);
    }
    oclconv__collect_kernel_time(ctx);
    if (s == OCLCONV_OK) {
        ctx->last_method = job.method;
        ctx->last_choice = job.choice;
    }
    return s;
}

oclconv_status oclconv_apply(oclconv_context *ctx, const oclconv_image *src, oclconv_image *dst,
                             const oclconv_filter *f, const oclconv_options *opt)
{
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_apply: context is NULL");
    return oclconv__apply_host(ctx, src, NULL, dst, f, opt, 1);
}

oclconv_status oclconv_apply_region(oclconv_context *ctx, const oclconv_image *src,
                                    const oclconv_region *region, oclconv_image *dst,
                                    const oclconv_filter *f, const oclconv_options *opt)
{
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_apply_region: context is NULL");
    if (!region) {
        oclconv__clear_error(ctx);
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "oclconv_apply_region: region is NULL");
    }
    return oclconv__apply_host(ctx, src, region, dst, f, opt, 1);
}
