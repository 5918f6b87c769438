/*
 * The image path (cl/image.cl): image2d_t in and out, read through a sampler
 * the context created.
 */
#include "internal.h"
#include "path_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How an image travels: one texel a pixel in the native format (R, RG,
 * RGBA), or, where the device lacks it (and always for 3 channels), a
 * one-channel image `channels` times as wide. */
typedef struct {
    cl_image_format format;
    int texels; /* per pixel */
} layout;

static cl_image_format format_for(cl_channel_order order, oclconv_type t)
{
    cl_image_format f;
    f.image_channel_order = order;
    f.image_channel_data_type = t == OCLCONV_U8    ? CL_UNSIGNED_INT8
                                : t == OCLCONV_U16 ? CL_UNSIGNED_INT16
                                                   : CL_FLOAT;
    return f;
}

static oclconv_status format_supported(oclconv_context *ctx, cl_mem_flags flags,
                                       cl_image_format want, int *found)
{
    cl_uint n = 0;
    *found = 0;
    cl_int err = clGetSupportedImageFormats(ctx->cl, flags, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n);
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(ctx, err, "clGetSupportedImageFormats");
    cl_image_format *all = calloc(n ? n : 1, sizeof *all);
    if (!all)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory listing image formats");
    err = clGetSupportedImageFormats(ctx->cl, flags, CL_MEM_OBJECT_IMAGE2D, n, all, NULL);
    for (cl_uint i = 0; err == CL_SUCCESS && i < n; i++)
        if (all[i].image_channel_order == want.image_channel_order &&
            all[i].image_channel_data_type == want.image_channel_data_type)
            *found = 1;
    free(all);
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(ctx, err, "clGetSupportedImageFormats");
    return OCLCONV_OK;
}

static oclconv_status choose_layout(oclconv_context *ctx, const oclconv_image *img,
                                    cl_mem_flags flags, layout *out)
{
    static const cl_channel_order native[5] = {0, CL_R, CL_RG, 0, CL_RGBA};
    int found = 0;
    oclconv_status s = OCLCONV_OK;
    if (native[img->channels]) {
        out->format = format_for(native[img->channels], img->type);
        out->texels = 1;
        s = format_supported(ctx, flags, out->format, &found);
    }
    if (s == OCLCONV_OK && !found && img->channels > 1) {
        out->format = format_for(CL_R, img->type);
        out->texels = img->channels;
        s = format_supported(ctx, flags, out->format, &found);
    }
    if (s == OCLCONV_OK && !found)
        s = oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                          "the device has no image format for %d-channel %s images",
                          img->channels,
                          img->type == OCLCONV_U8 ? "u8" : img->type == OCLCONV_U16 ? "u16" : "f32");
    size_t w = (size_t)img->width * (size_t)out->texels;
    if (s == OCLCONV_OK &&
        (w > ctx->facts.image2d_max_width || (size_t)img->height > ctx->facts.image2d_max_height))
        s = oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                          "a %zux%d image exceeds the device's image limit %zux%zu", w, img->height,
                          ctx->facts.image2d_max_width, ctx->facts.image2d_max_height);
    return s;
}

/* The layouts of the job's source and destination, or why there are none. */
static oclconv_status layouts(oclconv_context *ctx, const oclconv__job *job, layout *in,
                              layout *out)
{
    if (!ctx->facts.image_support)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "the image path needs image support, which %s lacks", ctx->name);
    oclconv_status s = choose_layout(ctx, job->src, CL_MEM_READ_ONLY, in);
    if (s == OCLCONV_OK)
        s = choose_layout(ctx, job->dst, CL_MEM_WRITE_ONLY, out);
    if (s == OCLCONV_OK && in->texels != out->texels) /* the kernel walks both alike */
        s = oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                          "the device has image formats for the source and the destination in "
                          "different layouts");
    return s;
}

oclconv_status oclconv__image_supported(oclconv_context *ctx, const oclconv__job *job)
{
    layout in, out;
    return layouts(ctx, job, &in, &out);
}

static oclconv_status make_image(oclconv_context *ctx, const oclconv_image *img, layout how,
                                 cl_mem_flags flags, cl_mem *out)
{
    cl_image_desc desc = {0};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = (size_t)img->width * (size_t)how.texels;
    desc.image_height = (size_t)img->height;
    cl_int err;
    *out = clCreateImage(ctx->cl, flags | oclconv__alloc_flags(ctx), &how.format, &desc, NULL,
                         &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return oclconv__cl_fail(ctx, err, "clCreateImage");
    }
    return OCLCONV_OK;
}

oclconv_status oclconv__run_image(oclconv_context *ctx, const oclconv__job *job)
{
    const oclconv_image *src = job->src;
    oclconv_image *dst = job->dst;
    layout in_layout, out_layout;
    oclconv_status s = layouts(ctx, job, &in_layout, &out_layout);
    if (s != OCLCONV_OK)
        return s;
    int texels = in_layout.texels;
    int sampler_border = texels == 1 && (job->opt.border == OCLCONV_BORDER_CLAMP ||
                                         job->opt.border == OCLCONV_BORDER_ZERO);
    char options[512];
    oclconv__common_options(ctx, job, options, sizeof options);
    size_t used = strlen(options);
    snprintf(options + used, sizeof options - used, " -DTEXELS=%d -DSAMPLER_BORDER=%d", texels,
             sampler_border);
    cl_kernel k;
    s = oclconv__get_kernel(ctx, "image", "convolve_image", options, &k);
    cl_mem in = NULL, out = NULL, weights = NULL;
    if (s == OCLCONV_OK)
        s = make_image(ctx, src, in_layout, CL_MEM_READ_ONLY, &in);
    if (s == OCLCONV_OK)
        s = make_image(ctx, dst, out_layout, CL_MEM_WRITE_ONLY, &out);
    const size_t origin[3] = {0, 0, 0};
    const size_t region[3] = {(size_t)src->width * (size_t)texels, (size_t)src->height, 1};
    if (s == OCLCONV_OK) {
        cl_int err = clEnqueueWriteImage(ctx->queue, in, CL_TRUE, origin, region,
                                         oclconv__row_stride(src), 0, src->data, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            s = oclconv__cl_fail(ctx, err, "uploading the source (clEnqueueWriteImage)");
    }
    cl_sampler sampler = job->opt.border == OCLCONV_BORDER_ZERO ? ctx->sampler_zero : ctx->sampler_edge;
    cl_int width = src->width, height = src->height;
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, k, 0, 5, sizeof in, &in, sizeof out, &out, sizeof sampler, &sampler,
                          sizeof width, &width, sizeof height, &height);
    if (s == OCLCONV_OK)
        s = oclconv__weight_args(ctx, job, k, 5, &weights);
    if (s == OCLCONV_OK)
        s = oclconv__run_2d(ctx, job, k, (size_t)width, (size_t)height);
    if (s == OCLCONV_OK) {
        cl_int err = clEnqueueReadImage(ctx->queue, out, CL_TRUE, origin, region,
                                        oclconv__row_stride(dst), 0, dst->data, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            s = oclconv__cl_fail(ctx, err, "reading the result (clEnqueueReadImage)");
    }
    if (weights)
        clReleaseMemObject(weights);
    if (in)
        clReleaseMemObject(in);
    if (out)
        clReleaseMemObject(out);
    return s;
}
