#define _FILE_OFFSET_BITS 64 /* fseeko() past 2 GiB */

#include "tiff_io.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <tiffio.h>

/* What libtiff's callbacks share with the code that called libtiff: the
 * stream read (fp from `base` on) or the memory written, and the reason for
 * a failure. */
typedef struct {
    FILE *fp;
    off_t base;
    unsigned char *mem;
    size_t len, cap, pos;
    char *err;
    size_t err_size;
    int have_reason;
} tiff_state;

__attribute__((format(printf, 2, 3)))
static int say(tiff_state *st, const char *fmt, ...)
{
    va_list ap;
    if (st->have_reason)
        return -1;
    va_start(ap, fmt);
    if (st->err_size > 0)
        vsnprintf(st->err, st->err_size, fmt, ap);
    va_end(ap);
    st->have_reason = 1;
    return -1;
}

/* libtiff's first error becomes the reason; nothing goes to stderr. */
__attribute__((format(printf, 4, 0)))
static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    tiff_state *st = user;
    char msg[300];
    (void)tif;
    (void)module;
    vsnprintf(msg, sizeof msg, fmt, ap);
    for (char *c = msg; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    /* Messages about the file start with its name, which open_tiff() gives
     * as "TIFF": that says nothing twice. */
    say(st, "TIFF error: %s", strncmp(msg, "TIFF: ", 6) == 0 ? msg + 6 : msg);
    return 1;
}

/* Warnings (unknown tags, mostly) change nothing the command keeps. */
static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    (void)user;
    (void)module;
    (void)fmt;
    (void)ap;
    return 1;
}

/* The few messages libtiff gives before it has a handle go to its global
 * handlers, which would print them: those are silenced, once. */
static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;
static void quiet_globals(void)
{
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

/* ====== Reading ====================================================== */

static tmsize_t file_read(thandle_t h, void *buf, tmsize_t n)
{
    tiff_state *st = h;
    return n <= 0 ? 0 : (tmsize_t)fread(buf, 1, (size_t)n, st->fp);
}

static tmsize_t no_write(thandle_t h, void *buf, tmsize_t n)
{
    (void)h;
    (void)buf;
    (void)n;
    return -1;
}

static toff_t file_seek(thandle_t h, toff_t off, int whence)
{
    tiff_state *st = h;
    off_t to = (off_t)off;
    if (whence == SEEK_SET)
        to += st->base;
    if (fseeko(st->fp, to, whence) != 0)
        return (toff_t)-1;
    off_t at = ftello(st->fp);
    return at < st->base ? (toff_t)-1 : (toff_t)(at - st->base);
}

static toff_t file_size(thandle_t h)
{
    tiff_state *st = h;
    off_t at = ftello(st->fp), end;
    if (at < 0 || fseeko(st->fp, 0, SEEK_END) != 0)
        return 0;
    end = ftello(st->fp);
    fseeko(st->fp, at, SEEK_SET);
    return end > st->base ? (toff_t)(end - st->base) : 0;
}

static int no_close(thandle_t h)
{
    (void)h;
    return 0;
}

static int no_map(thandle_t h, void **base, toff_t *size)
{
    (void)h;
    (void)base;
    (void)size;
    return 0;
}

static void no_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h;
    (void)base;
    (void)size;
}

static TIFF *open_tiff(tiff_state *st, const char *mode, size_t max_alloc,
                       TIFFReadWriteProc rd, TIFFReadWriteProc wr, TIFFSeekProc seek,
                       TIFFSizeProc size)
{
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    TIFF *tif;
    pthread_once(&quiet_once, quiet_globals);
    if (!opts) {
        say(st, "out of memory");
        return NULL;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, st);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, st);
    if (max_alloc)
        TIFFOpenOptionsSetMaxSingleMemAlloc(opts, (tmsize_t)max_alloc);
    tif = TIFFClientOpenExt("TIFF", mode, st, rd, wr, seek, no_close, size, no_map, no_unmap,
                            opts);
    TIFFOpenOptionsFree(opts);
    return tif;
}

static double get_sample(const oclconv_image *img, size_t i)
{
    switch (img->type) {
    case OCLCONV_U16: return ((const uint16_t *)img->data)[i];
    case OCLCONV_F32: return ((const float *)img->data)[i];
    default: return ((const uint8_t *)img->data)[i];
    }
}

static void put_sample(oclconv_image *img, size_t i, double v, double max)
{
    if (img->type == OCLCONV_F32) {
        ((float *)img->data)[i] = (float)v;
        return;
    }
    v = v > 0 ? (v < max ? v + 0.5 : max) : 0;
    if (img->type == OCLCONV_U16)
        ((uint16_t *)img->data)[i] = (uint16_t)v;
    else
        ((uint8_t *)img->data)[i] = (uint8_t)v;
}

/* White-is-zero gray to black-is-zero, and associated alpha divided out. */
static void make_straight(oclconv_image *img, int invert, int associated)
{
    const double max = img->type == OCLCONV_F32 ? 1.0 : img->type == OCLCONV_U16 ? 65535 : 255;
    const size_t n = (size_t)img->width * (size_t)img->height;
    const int ch = img->channels, alpha = ch % 2 == 0;
    for (size_t i = 0; i < n; i++) {
        const size_t at = i * (size_t)ch;
        if (invert)
            put_sample(img, at, max - get_sample(img, at), max);
        if (!associated || !alpha)
            continue;
        const double a = get_sample(img, at + (size_t)ch - 1);
        for (int k = 0; k < ch - 1; k++)
            put_sample(img, at + (size_t)k, a > 0 ? get_sample(img, at + (size_t)k) * max / a : 0,
                       max);
    }
}

/* The samples as stored, into pic->image.data (allocated, w * h * ch * bytes). */
static int read_stored(tiff_state *st, TIFF *tif, oclconv_image *img, int separate,
                       size_t max_bytes)
{
    const size_t bytes = img->type == OCLCONV_F32 ? 4 : img->type == OCLCONV_U16 ? 2 : 1;
    const size_t w = (size_t)img->width, h = (size_t)img->height, ch = (size_t)img->channels;
    const size_t px = ch * bytes, unit = separate ? bytes : px, planes = separate ? ch : 1;
    unsigned char *dst = img->data, *buf = NULL;
    int rc = -1;

    if (TIFFIsTiled(tif)) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
        uint64_t tile_size = TIFFTileSize64(tif);
        if (tw == 0 || th == 0 || tw > PNG_IO_MAX_SIDE * 16u || th > PNG_IO_MAX_SIDE * 16u ||
            tile_size == 0 || tile_size > max_bytes || tile_size < (uint64_t)tw * th * unit)
            return say(st, "unsupported TIFF tiles of %lux%lu", (unsigned long)tw,
                       (unsigned long)th);
        buf = malloc((size_t)tile_size);
        if (!buf)
            return say(st, "out of memory");
        for (size_t y = 0; y < h; y += th)
            for (size_t x = 0; x < w; x += tw)
                for (size_t s = 0; s < planes; s++) {
                    if (TIFFReadTile(tif, buf, (uint32_t)x, (uint32_t)y, 0, (uint16_t)s) < 0) {
                        say(st, "cannot read the tile at %zu,%zu", x, y);
                        goto out;
                    }
                    const size_t rows = h - y < th ? h - y : th, cols = w - x < tw ? w - x : tw;
                    for (size_t r = 0; r < rows; r++)
                        for (size_t c = 0; c < cols; c++)
                            memcpy(dst + ((y + r) * w + x + c) * px + s * unit,
                                   buf + (r * tw + c) * unit, unit);
                }
    } else {
        if ((uint64_t)TIFFScanlineSize64(tif) != w * unit)
            return say(st, "unsupported TIFF layout (a row of %llu bytes)",
                       (unsigned long long)TIFFScanlineSize64(tif));
        buf = separate ? malloc(w * unit) : NULL;
        if (separate && !buf)
            return say(st, "out of memory");
        for (size_t s = 0; s < planes; s++)
            for (size_t y = 0; y < h; y++) {
                unsigned char *row = separate ? buf : dst + y * w * px;
                if (TIFFReadScanline(tif, row, (uint32_t)y, (uint16_t)s) < 0) {
                    say(st, "cannot read row %zu", y);
                    goto out;
                }
                for (size_t x = 0; separate && x < w; x++)
                    memcpy(dst + (y * w + x) * px + s * unit, buf + x * unit, unit);
            }
    }
    rc = 0;
out:
    free(buf);
    return rc;
}

/* Layouts read through libtiff's RGBA interface, 8 bits a sample and alpha
 * premultiplied: gray stays gray where there is no alpha. */
static int read_rgba(tiff_state *st, TIFF *tif, png_io_picture *pic, int gray, int alpha,
                     size_t max_bytes)
{
    char emsg[1024] = "";
    const size_t w = (size_t)pic->image.width, h = (size_t)pic->image.height;
    const int ch = alpha ? (gray ? 2 : 4) : (gray ? 1 : 3);
    if (!TIFFRGBAImageOK(tif, emsg))
        return say(st, "unsupported TIFF: %s", emsg);
    if (h > max_bytes / 4 / w)
        return say(st, "image too large: %zux%zu pixels of 4 bytes is over the %zu MiB limit",
                   w, h, max_bytes >> 20);
    uint32_t *raster = malloc(w * h * 4);
    pic->image.data = malloc(w * h * (size_t)ch);
    if (!raster || !pic->image.data) {
        free(raster);
        return say(st, "out of memory");
    }
    if (!TIFFReadRGBAImageOriented(tif, (uint32_t)w, (uint32_t)h, raster, ORIENTATION_TOPLEFT,
                                   1)) {
        free(raster);
        return say(st, "cannot read the image");
    }
    uint8_t *dst = pic->image.data;
    for (size_t i = 0; i < w * h; i++) {
        const uint32_t p = raster[i];
        const uint8_t v[4] = {(uint8_t)TIFFGetR(p), (uint8_t)TIFFGetG(p), (uint8_t)TIFFGetB(p),
                              (uint8_t)TIFFGetA(p)};
        for (int k = 0; k < ch; k++)
            dst[i * (size_t)ch + (size_t)k] = alpha && k == ch - 1 ? v[3] : v[k];
    }
    free(raster);
    pic->image.channels = ch;
    pic->image.type = OCLCONV_U8;
    pic->orientation = 1; /* the interface turned it */
    make_straight(&pic->image, 0, alpha);
    return 0;
}

static int read_body(tiff_state *st, TIFF *tif, png_io_picture *pic, size_t max_bytes)
{
    uint32_t w = 0, h = 0, icc_size = 0;
    uint16_t spp = 1, bps = 1, format = SAMPLEFORMAT_UINT, photometric = 0, planar = 1;
    uint16_t compression = COMPRESSION_NONE, orientation = ORIENTATION_TOPLEFT, n_extra = 0;
    uint16_t *extra = NULL;
    void *icc = NULL;

    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h))
        return say(st, "a TIFF without an image size");
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &n_extra, &extra);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric))
        photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;

    if (w == 0 || h == 0 || w > PNG_IO_MAX_SIDE || h > PNG_IO_MAX_SIDE)
        return say(st, "image too large: %lux%lu pixels (sides stop at %u)", (unsigned long)w,
                   (unsigned long)h, PNG_IO_MAX_SIDE);
    if (!TIFFIsCODECConfigured(compression))
        return say(st, "unsupported TIFF compression %u", compression);
    if (format != SAMPLEFORMAT_UINT && !(format == SAMPLEFORMAT_IEEEFP && bps == 32))
        return say(st, "unsupported TIFF samples: format %u of %u bits", format, bps);

    const int gray = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
    const int colours = gray ? 1 : 3;
    const int native = (gray || photometric == PHOTOMETRIC_RGB) && spp >= colours &&
                       spp <= colours + 1 && (bps == 8 || bps == 16 || bps == 32) &&
                       (bps == 32) == (format == SAMPLEFORMAT_IEEEFP);
    const int alpha = native ? spp > colours : n_extra > 0;
    pic->image.width = (int)w;
    pic->image.height = (int)h;
    pic->orientation = orientation;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc && icc_size > 0 &&
        photometric == PHOTOMETRIC_SEPARATED) {
        /* It describes the inks, and the pixels are converted to RGB. */
        snprintf(pic->warning, sizeof pic->warning,
                 "CMYK colour profile dropped: the pixels are converted to RGB");
    } else if (icc && icc_size > 0) {
        pic->iccp = malloc(icc_size);
        if (!pic->iccp)
            return say(st, "out of memory");
        memcpy(pic->iccp, icc, icc_size);
        pic->iccp_size = icc_size;
    }
    if (!native) {
        if (bps > 8 || format != SAMPLEFORMAT_UINT)
            return say(st, "unsupported TIFF layout: photometric %u, %u samples of %u bits",
                       photometric, spp, bps);
        return read_rgba(st, tif, pic, gray, alpha, max_bytes);
    }

    const size_t px = (size_t)spp * (bps / 8);
    if ((size_t)h > max_bytes / px / w)
        return say(st, "image too large: %lux%lu pixels of %zu bytes is over the %zu MiB limit",
                   (unsigned long)w, (unsigned long)h, px, max_bytes >> 20);
    pic->image.channels = spp;
    pic->image.type = bps == 32 ? OCLCONV_F32 : bps == 16 ? OCLCONV_U16 : OCLCONV_U8;
    pic->image.data = malloc(px * w * h);
    if (!pic->image.data)
        return say(st, "out of memory");
    if (read_stored(st, tif, &pic->image, planar == PLANARCONFIG_SEPARATE, max_bytes))
        return -1;
    make_straight(&pic->image, photometric == PHOTOMETRIC_MINISWHITE,
                  alpha && n_extra > 0 && extra && extra[0] == EXTRASAMPLE_ASSOCALPHA);
    return 0;
}

int tiff_io_read(FILE *fp, png_io_picture *pic, size_t max_bytes, char *err, size_t err_size)
{
    tiff_state st;
    TIFF *tif;
    int rc;

    memset(pic, 0, sizeof *pic);
    memset(&st, 0, sizeof st);
    st.fp = fp;
    st.err = err;
    st.err_size = err_size;
    st.base = ftello(fp);
    if (st.base < 0)
        return say(&st, "cannot seek in the TIFF file: %s", strerror(errno));
    tif = open_tiff(&st, "rm", max_bytes, file_read, no_write, file_seek, file_size);
    if (!tif)
        return say(&st, "not a TIFF file");
    rc = read_body(&st, tif, pic, max_bytes);
    TIFFClose(tif);
    if (rc == 0 && ferror(fp))
        rc = say(&st, "read error");
    if (rc)
        png_io_free(pic);
    return rc;
}

/* ====== Writing ====================================================== */

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n)
{
    tiff_state *st = h;
    if (n < 0)
        return -1;
    if (st->pos + (size_t)n > st->cap) {
        size_t cap = st->cap ? st->cap : 1 << 16;
        while (cap < st->pos + (size_t)n)
            cap *= 2;
        unsigned char *mem = realloc(st->mem, cap);
        if (!mem) {
            say(st, "out of memory");
            return -1;
        }
        st->mem = mem;
        st->cap = cap;
    }
    if (st->pos > st->len)
        memset(st->mem + st->len, 0, st->pos - st->len);
    memcpy(st->mem + st->pos, buf, (size_t)n);
    st->pos += (size_t)n;
    if (st->pos > st->len)
        st->len = st->pos;
    return n;
}

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n)
{
    tiff_state *st = h;
    size_t left = st->pos < st->len ? st->len - st->pos : 0;
    size_t got = n < 0 ? 0 : (size_t)n < left ? (size_t)n : left;
    memcpy(buf, st->mem + st->pos, got);
    st->pos += got;
    return (tmsize_t)got;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    tiff_state *st = h;
    uint64_t from = whence == SEEK_CUR ? st->pos : whence == SEEK_END ? st->len : 0;
    if ((uint64_t)off > SIZE_MAX - from)
        return (toff_t)-1;
    st->pos = (size_t)(from + off);
    return st->pos;
}

static toff_t mem_size(thandle_t h)
{
    return ((tiff_state *)h)->len;
}

static int write_tags(TIFF *tif, const png_io_picture *pic)
{
    const oclconv_image *img = &pic->image;
    const int flt = img->type == OCLCONV_F32;
    const uint16_t bps = flt ? 32 : img->type == OCLCONV_U16 ? 16 : 8;
    const uint16_t unassociated = EXTRASAMPLE_UNASSALPHA;
    const uint16_t compression = TIFFIsCODECConfigured(COMPRESSION_ADOBE_DEFLATE)
                                     ? COMPRESSION_ADOBE_DEFLATE
                                     : COMPRESSION_NONE;
    int ok = TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width) &&
             TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)img->height) &&
             TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)img->channels) &&
             TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bps) &&
             TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT,
                          flt ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT) &&
             TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
                          img->channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK) &&
             TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
             TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT) &&
             TIFFSetField(tif, TIFFTAG_COMPRESSION, compression) &&
             TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
    if (ok && compression != COMPRESSION_NONE)
        ok = TIFFSetField(tif, TIFFTAG_PREDICTOR,
                          flt ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
    if (ok && img->channels % 2 == 0)
        ok = TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &unassociated);
    if (ok && pic->iccp && pic->iccp_size > 0 && pic->iccp_size <= UINT32_MAX)
        ok = TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)pic->iccp_size, pic->iccp);
    return ok ? 0 : -1;
}

int tiff_io_write(FILE *fp, const png_io_picture *pic, char *err, size_t err_size)
{
    const oclconv_image *img = &pic->image;
    const size_t bytes = img->type == OCLCONV_F32 ? 4 : img->type == OCLCONV_U16 ? 2 : 1;
    tiff_state st;
    unsigned char *row = NULL;
    TIFF *tif;
    int rc = -1;

    memset(&st, 0, sizeof st);
    st.err = err;
    st.err_size = err_size;
    if (!img->data || img->width <= 0 || img->height <= 0 || img->channels < 1 ||
        img->channels > 4)
        return say(&st, "cannot write this image as TIFF");
    const size_t row_bytes = (size_t)img->width * (size_t)img->channels * bytes;
    const size_t stride = img->stride ? img->stride : row_bytes;

    tif = open_tiff(&st, "w", 0, mem_read, mem_write, mem_seek, mem_size);
    if (!tif)
        return say(&st, "cannot start a TIFF file");
    row = malloc(row_bytes);
    if (!row) {
        say(&st, "out of memory");
        goto out;
    }
    if (write_tags(tif, pic)) {
        say(&st, "cannot write this image as TIFF");
        goto out;
    }
    for (int y = 0; y < img->height; y++) {
        /* The predictor works in the buffer it is given: a copy. */
        memcpy(row, (const unsigned char *)img->data + (size_t)y * stride, row_bytes);
        if (TIFFWriteScanline(tif, row, (uint32_t)y, 0) < 0) {
            say(&st, "cannot write row %d", y);
            goto out;
        }
    }
    if (!TIFFWriteDirectory(tif)) {
        say(&st, "cannot finish the TIFF file");
        goto out;
    }
    rc = 0;
out:
    TIFFClose(tif);
    free(row);
    if (rc == 0 && (fwrite(st.mem, 1, st.len, fp) != st.len || fflush(fp) != 0 || ferror(fp)))
        rc = say(&st, "write error: %s", strerror(errno));
    free(st.mem);
    return rc;
}

const char *tiff_io_version(void)
{
    /* "LIBTIFF, Version 4.5.0\nCopyright ...": the number alone. */
    static char number[32];
    const char *v = strstr(TIFFGetVersion(), "Version ");
    size_t n = v ? strcspn(v + 8, "\n") : 0;
    snprintf(number, sizeof number, "%.*s", (int)(n < sizeof number ? n : sizeof number - 1),
             v ? v + 8 : "?");
    return number;
}
