/* Image descriptors: sizes, strides and the checks every entry point makes. */
#include "internal.h"

#include <stdint.h>

/* The kernels index values along a row, and rows, in int: with room for
 * the taps' reach and a band of rows past the last. */
enum { MOST_VALUES = 1 << 30 };

size_t oclconv__type_size(oclconv_type t)
{
    return t == OCLCONV_U8 ? 1 : t == OCLCONV_U16 ? 2 : 4;
}

size_t oclconv__packed_row(const oclconv_image *img)
{
    size_t per_pixel = (size_t)img->channels * oclconv__type_size(img->type);
    if ((size_t)img->width > SIZE_MAX / per_pixel)
        return 0;
    return (size_t)img->width * per_pixel;
}

size_t oclconv__row_stride(const oclconv_image *img)
{
    return img->stride ? img->stride : oclconv__packed_row(img);
}

oclconv_status oclconv__check_image(oclconv_context *ctx, const oclconv_image *img,
                                    const char *what)
{
    if (!img)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "%s image is NULL", what);
    if (!img->data)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "%s image has no data", what);
    if (img->width <= 0 || img->height <= 0)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "%s image size %dx%d is not positive",
                             what, img->width, img->height);
    if (img->channels < 1 || img->channels > 4)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "%s image has %d channels; 1 to 4 are supported", what,
                             img->channels);
    if (img->type != OCLCONV_U8 && img->type != OCLCONV_U16 && img->type != OCLCONV_F32)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "%s image type %d is unknown", what,
                             (int)img->type);
    size_t row = oclconv__packed_row(img), elem = oclconv__type_size(img->type);
    if (!row || (size_t)img->height > SIZE_MAX / row)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "%s image %dx%d overflows the address space", what, img->width,
                             img->height);
    if ((size_t)img->width * (size_t)img->channels > MOST_VALUES || img->height > MOST_VALUES)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "%s image %dx%dx%d is beyond what the kernels index: at most %d "
                             "values a row (width times channels) and as many rows",
                             what, img->width, img->height, img->channels, MOST_VALUES);
    if (img->stride && img->stride < row)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "%s image stride %zu is smaller than a row (%zu bytes)", what,
                             img->stride, row);
    if (img->stride % elem || (uintptr_t)img->data % elem)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "%s image data and stride must be multiples of %zu bytes", what,
                             elem);
    if (img->stride && (size_t)(img->height - 1) > (SIZE_MAX - row) / img->stride)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                             "%s image stride %zu times height %d overflows", what, img->stride,
                             img->height);
    return OCLCONV_OK;
}
