/*
 * Planning: which path runs a job, and in which precision it accumulates.
 * Decisions come from the facts the device reported and from the filter,
 * never from the device's name.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest magnitude a source value (or the constant border) can have. */
static double max_input(const oclconv__job *job)
{
    double m = job->src->type == OCLCONV_U8 ? 255 : job->src->type == OCLCONV_U16 ? 65535 : INFINITY;
    if (job->opt.border == OCLCONV_BORDER_CONSTANT && fabs(job->opt.border_value) > m)
        m = fabs(job->opt.border_value);
    return m;
}

/* Float accumulation of n products stays within n * 2^-24 of the sum of the
 * terms' magnitudes (plus the rounding of the weights, the scale and the
 * delta).  Where that bound could move an integer result across a rounding
 * boundary farther than the tests' 1e-3 tie window, or a float result by
 * more than 1e-5 of its terms, accumulate in double instead. */
static int needs_double(const oclconv__job *job, double terms)
{
    const double u = 0x1p-24;
    const oclconv_filter *f = job->filter;
    if (job->opt.border == OCLCONV_BORDER_NORMALIZE) {
        if (f->has_negative) /* the in-image sum can cancel: no useful float bound */
            return 1;
        terms += (double)f->width * f->height + 2;
    }
    if (job->dst->type == OCLCONV_F32)
        return terms * u > 1e-5;
    double bound = terms * u * max_input(job) * f->abs_sum * fabs(job->opt.scale) +
                   2 * u * fabs(job->opt.delta);
    return !(bound < 1e-3);
}

static int parse_method(const char *s, oclconv_method *out)
{
    for (int m = OCLCONV_METHOD_AUTO; m <= OCLCONV_METHOD_SEPARABLE; m++)
        if (strcmp(s, oclconv_method_name((oclconv_method)m)) == 0) {
            *out = (oclconv_method)m;
            return 1;
        }
    return 0;
}

const char *oclconv_method_name(oclconv_method m)
{
    switch (m) {
    case OCLCONV_METHOD_AUTO: return "auto";
    case OCLCONV_METHOD_BUFFER: return "buffer";
    case OCLCONV_METHOD_IMAGE: return "image";
    case OCLCONV_METHOD_TILED: return "tiled";
    case OCLCONV_METHOD_SEPARABLE: return "separable";
    }
    return NULL;
}

static oclconv_method choose_auto(oclconv_context *ctx, oclconv__job *job)
{
    /* Texture caches make the image path pay on GPUs; on CPUs the sampler is
     * emulated in software and the buffer path is far faster. */
    if ((ctx->facts.type & CL_DEVICE_TYPE_GPU) &&
        oclconv__image_supported(ctx, job) == OCLCONV_OK)
        return OCLCONV_METHOD_IMAGE;
    return OCLCONV_METHOD_BUFFER;
}

oclconv_status oclconv__plan(oclconv_context *ctx, oclconv__job *job)
{
    oclconv_method m = job->opt.method;
    const char *env = getenv("OCLCONV_METHOD");
    if (m == OCLCONV_METHOD_AUTO && env && *env && !parse_method(env, &m))
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "OCLCONV_METHOD=%s is not one of auto, buffer, image, tiled, separable",
                             env);
    switch (m) {
    case OCLCONV_METHOD_AUTO:
        m = choose_auto(ctx, job);
        break;
    case OCLCONV_METHOD_BUFFER:
        break;
    case OCLCONV_METHOD_IMAGE: {
        oclconv_status s = oclconv__image_supported(ctx, job);
        if (s != OCLCONV_OK)
            return s;
        break;
    }
    default:
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED, "the %s path is not available yet",
                             oclconv_method_name(m));
    }
    job->method = m;
    job->acc_double =
        ctx->facts.fp64 && needs_double(job, (double)job->filter->width * job->filter->height + 3);
    return OCLCONV_OK;
}

static int type_id(oclconv_type t)
{
    return t == OCLCONV_U8 ? 0 : t == OCLCONV_U16 ? 1 : 2;
}

void oclconv__common_options(oclconv_context *ctx, const oclconv__job *job, char *buf, size_t size)
{
    size_t weight_bytes = (size_t)job->filter->width * (size_t)job->filter->height *
                          (job->acc_double ? sizeof(double) : sizeof(float));
    snprintf(buf, size,
             "-DSRC_TYPE=%d -DDST_TYPE=%d -DCN=%d -DBORDER=%d -DRX=%d -DRY=%d -DACC_DOUBLE=%d "
             "-DWEIGHTS_GLOBAL=%d",
             type_id(job->src->type), type_id(job->dst->type), job->src->channels,
             (int)job->opt.border, job->filter->width / 2, job->filter->height / 2,
             job->acc_double, weight_bytes > ctx->facts.max_constant);
}
