#define _FILE_OFFSET_BITS 64 /* ftello() past 2 GiB */

#include "image_io.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jpeg_io.h"
#include "tiff_io.h"

const char *const image_io_format_names[IMAGE_IO_FORMATS] = {"PNG", "JPEG", "TIFF"};

image_io_format image_io_format_of_name(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return IMAGE_IO_PNG;
    if (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0)
        return IMAGE_IO_JPEG;
    if (strcasecmp(dot, ".tif") == 0 || strcasecmp(dot, ".tiff") == 0)
        return IMAGE_IO_TIFF;
    return IMAGE_IO_PNG;
}

int image_io_sniff(const unsigned char *head, size_t n)
{
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    /* A PNG cut short inside its signature still reads as a PNG, which
     * then says it is truncated. */
    if (n > 0 && memcmp(head, png, n < 8 ? n : 8) == 0)
        return IMAGE_IO_PNG;
    if (n >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff)
        return IMAGE_IO_JPEG;
    /* Classic TIFF (42) and BigTIFF (43), either byte order. */
    if (n >= 4 && ((head[0] == 'I' && head[1] == 'I' && (head[2] == 42 || head[2] == 43) &&
                    head[3] == 0) ||
                   (head[0] == 'M' && head[1] == 'M' && head[2] == 0 &&
                    (head[3] == 42 || head[3] == 43))))
        return IMAGE_IO_TIFF;
    return -1;
}

/* Turns the pixels the way pic->orientation (EXIF's 1-8) says they must be
 * turned to stand the right way up. */
static int apply_orientation(png_io_picture *pic, char *err, size_t err_size)
{
    const int o = pic->orientation;
    oclconv_image *img = &pic->image;
    pic->orientation = 1;
    if (o <= 1 || o > 8)
        return 0;
    const size_t bytes = img->type == OCLCONV_F32 ? 4 : img->type == OCLCONV_U16 ? 2 : 1;
    const size_t px = (size_t)img->channels * bytes;
    const size_t w = (size_t)img->width, h = (size_t)img->height;
    const size_t ow = o >= 5 ? h : w, oh = o >= 5 ? w : h;
    const unsigned char *in = img->data;
    unsigned char *out = malloc(w * h * px);
    if (!out) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    for (size_t oy = 0; oy < oh; oy++)
        for (size_t ox = 0; ox < ow; ox++) {
            size_t sx, sy;
            switch (o) {
            case 2: sx = w - 1 - ox, sy = oy; break;             /* mirrored */
            case 3: sx = w - 1 - ox, sy = h - 1 - oy; break;     /* upside down */
            case 4: sx = ox, sy = h - 1 - oy; break;             /* flipped */
            case 5: sx = oy, sy = ox; break;                     /* transposed */
            case 6: sx = oy, sy = h - 1 - ox; break;             /* turned 90 clockwise */
            case 7: sx = w - 1 - oy, sy = h - 1 - ox; break;     /* transversed */
            default: sx = w - 1 - oy, sy = ox; break;            /* turned 90 anticlockwise */
            }
            memcpy(out + (oy * ow + ox) * px, in + (sy * w + sx) * px, px);
        }
    free(img->data);
    img->data = out;
    img->width = (int)ow;
    img->height = (int)oh;
    return 0;
}

/* A stream that cannot seek (a pipe) into memory, for a stream that can. */
static FILE *read_into_memory(FILE *fp, unsigned char **mem, char *err, size_t err_size)
{
    size_t len = 0, cap = 1 << 16;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            snprintf(err, err_size, "out of memory");
            return NULL;
        }
        len += fread(buf + len, 1, cap - len, fp);
        if (len < cap)
            break;
        if (cap >= IMAGE_IO_MAX_STREAM) {
            free(buf);
            snprintf(err, err_size, "over the %zu MiB limit on an input that cannot seek",
                     IMAGE_IO_MAX_STREAM >> 20);
            return NULL;
        }
        cap = cap * 2 < IMAGE_IO_MAX_STREAM ? cap * 2 : IMAGE_IO_MAX_STREAM;
        unsigned char *more = realloc(buf, cap);
        if (!more)
            free(buf);
        buf = more;
    }
    if (ferror(fp) || len == 0) {
        if (ferror(fp))
            snprintf(err, err_size, "read error: %s", strerror(errno));
        else
            snprintf(err, err_size, "not a PNG, JPEG or TIFF file");
        free(buf);
        return NULL;
    }
    FILE *copy = fmemopen(buf, len, "rb");
    if (!copy) {
        free(buf);
        snprintf(err, err_size, "%s", strerror(errno));
        return NULL;
    }
    *mem = buf;
    return copy;
}

int image_io_read_limited(FILE *fp, png_io_picture *pic, size_t max_bytes, char *err,
                          size_t err_size)
{
    unsigned char head[8], *mem = NULL;
    FILE *in = fp;
    off_t start = ftello(fp);
    int rc = -1;

    memset(pic, 0, sizeof *pic);
    if (start < 0 || fseeko(fp, start, SEEK_SET) != 0) {
        in = read_into_memory(fp, &mem, err, err_size);
        if (!in)
            return -1;
        start = 0;
    }
    size_t got = fread(head, 1, sizeof head, in);
    if (ferror(in)) {
        snprintf(err, err_size, "read error: %s", strerror(errno));
        goto out;
    }
    if (fseeko(in, start, SEEK_SET) != 0) {
        snprintf(err, err_size, "cannot seek back: %s", strerror(errno));
        goto out;
    }
    switch (image_io_sniff(head, got)) {
    case IMAGE_IO_PNG:
        rc = png_io_read(in, pic, err, err_size);
        break;
    case IMAGE_IO_JPEG:
        rc = jpeg_io_read(in, pic, max_bytes, err, err_size);
        break;
    case IMAGE_IO_TIFF:
        rc = tiff_io_read(in, pic, max_bytes, err, err_size);
        break;
    default:
        snprintf(err, err_size, "not a PNG, JPEG or TIFF file");
        break;
    }
    if (rc == 0)
        rc = apply_orientation(pic, err, err_size);
    if (rc == 0 && pic->iccp && !pic->iccp_name) {
        /* PNG's iCCP chunk needs a name, which JPEG and TIFF do not keep. */
        pic->iccp_name = strdup("ICC profile");
        if (!pic->iccp_name) {
            snprintf(err, err_size, "out of memory");
            rc = -1;
        }
    }
    if (rc)
        png_io_free(pic);
out:
    if (in != fp)
        fclose(in);
    free(mem);
    return rc;
}

int image_io_read(FILE *fp, png_io_picture *pic, char *err, size_t err_size)
{
    return image_io_read_limited(fp, pic, PNG_IO_MAX_BYTES, err, err_size);
}

/* ====== Writing ====================================================== */

/* A copy of `in` as `to` (U8 or U16): 16 bits to 8 rounded, floats from
 * 0..1 clamped, NaN as 0. */
static int convert(const oclconv_image *in, oclconv_type to, oclconv_image *out)
{
    const size_t n = (size_t)in->width * (size_t)in->height * (size_t)in->channels;
    const size_t in_bytes = in->type == OCLCONV_F32 ? 4 : in->type == OCLCONV_U16 ? 2 : 1;
    const size_t row = (size_t)in->width * (size_t)in->channels;
    const size_t stride = in->stride ? in->stride / in_bytes : row;
    const double max = to == OCLCONV_U16 ? 65535 : 255;
    *out = (oclconv_image){malloc(n * (to == OCLCONV_U16 ? 2 : 1)), in->width, in->height,
                           in->channels, to, 0};
    if (!out->data)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const size_t j = i / row * stride + i % row;
        double v;
        if (in->type == OCLCONV_F32) {
            v = ((const float *)in->data)[j];
            v = v > 0 ? (v < 1 ? v * max : max) : 0;
        } else if (in->type == OCLCONV_U16) {
            v = ((const uint16_t *)in->data)[j] * (max / 65535);
        } else {
            v = ((const uint8_t *)in->data)[j] * (max / 255);
        }
        v = floor(v + 0.5);
        if (to == OCLCONV_U16)
            ((uint16_t *)out->data)[i] = (uint16_t)v;
        else
            ((uint8_t *)out->data)[i] = (uint8_t)v;
    }
    return 0;
}

int image_io_write(FILE *fp, image_io_format format, const png_io_picture *pic,
                   const image_io_settings *set, char *err, size_t err_size)
{
    png_io_picture copy = *pic;
    oclconv_type want = pic->image.type;
    int rc;

    if (format == IMAGE_IO_JPEG && pic->image.channels % 2 == 0) {
        snprintf(err, err_size, "JPEG has no alpha channel: name the output .png or .tif to "
                                "keep it");
        return -1;
    }
    if (format == IMAGE_IO_JPEG)
        want = OCLCONV_U8;
    else if (format == IMAGE_IO_PNG && want == OCLCONV_F32)
        want = OCLCONV_U16;
    if (want != pic->image.type && convert(&pic->image, want, &copy.image)) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    switch (format) {
    case IMAGE_IO_JPEG:
        rc = jpeg_io_write(fp, &copy, set->jpeg_quality, err, err_size);
        break;
    case IMAGE_IO_TIFF:
        rc = tiff_io_write(fp, &copy, err, err_size);
        break;
    default:
        rc = png_io_write(fp, &copy, &set->png, err, err_size);
        break;
    }
    if (copy.image.data != pic->image.data)
        free(copy.image.data);
    return rc;
}
