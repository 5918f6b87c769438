#include "jpeg_io.h"

#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/* What libjpeg's callbacks share with the code that called libjpeg.  It
 * lives in the caller's frame and is reached through a pointer, so nothing
 * in it is lost when an error longjmps back. */
typedef struct {
    struct jpeg_error_mgr pub; /* first: libjpeg hands back a pointer to it */
    jmp_buf jump;
    char *err;
    size_t err_size;
    int have_reason;
    char warning[160]; /* libjpeg's first harmless warning */
} error_state;

typedef struct {
    struct jpeg_source_mgr pub;
    FILE *fp;
    error_state *es;
    JOCTET buf[16384];
} source_state;

static void say(error_state *es, const char *prefix, const char *msg)
{
    if (es->err_size > 0)
        snprintf(es->err, es->err_size, "%s%s", prefix, msg);
    es->have_reason = 1;
}

static _Noreturn void fail(error_state *es)
{
    longjmp(es->jump, 1);
}

/* libjpeg's errors end here instead of in exit(). */
static void on_error(j_common_ptr cinfo)
{
    error_state *es = (error_state *)cinfo->err;
    char msg[JMSG_LENGTH_MAX];
    if (!es->have_reason) {
        cinfo->err->format_message(cinfo, msg);
        say(es, "JPEG error: ", msg);
    }
    fail(es);
}

/* Warnings (level -1) about damaged entropy-coded data are errors here:
 * libjpeg carries on with grey blocks, which the command would filter and
 * write as if they were the picture.  Extraneous bytes before a marker
 * change no pixel, and the rest (an unknown Adobe transform, a bad ICC
 * marker) are kept for the caller to report.  Trace messages are dropped. */
static void on_message(j_common_ptr cinfo, int level)
{
    error_state *es = (error_state *)cinfo->err;
    const int code = cinfo->err->msg_code;
    char msg[JMSG_LENGTH_MAX];
    if (level >= 0)
        return;
    if (code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE || code == JWRN_MUST_RESYNC ||
        code == JWRN_NOT_SEQUENTIAL || code == JWRN_BOGUS_PROGRESSION ||
        code == JWRN_JPEG_EOF || code == JWRN_ARITH_BAD_CODE) {
        on_error(cinfo);
    }
    if (code == JWRN_EXTRANEOUS_DATA || es->warning[0])
        return;
    cinfo->err->format_message(cinfo, msg);
    snprintf(es->warning, sizeof es->warning, "%.150s", msg);
}

static void no_output(j_common_ptr cinfo)
{
    (void)cinfo;
}

static void init_errors(error_state *es, char *err, size_t err_size)
{
    memset(es, 0, sizeof *es);
    jpeg_std_error(&es->pub);
    es->pub.error_exit = on_error;
    es->pub.emit_message = on_message;
    es->pub.output_message = no_output;
    es->err = err;
    es->err_size = err_size;
}

/* ====== Reading ====================================================== */

static void init_source(j_decompress_ptr cinfo)
{
    (void)cinfo;
}

/* libjpeg's stdio source makes up an EOI marker at the end of the file
 * and warns; this one says the file is truncated and stops. */
static boolean fill_input(j_decompress_ptr cinfo)
{
    source_state *src = (source_state *)cinfo->src;
    size_t got = fread(src->buf, 1, sizeof src->buf, src->fp);
    if (got == 0) {
        if (ferror(src->fp))
            say(src->es, "read error: ", strerror(errno));
        else
            say(src->es, "", "the file is truncated");
        fail(src->es);
    }
    src->pub.next_input_byte = src->buf;
    src->pub.bytes_in_buffer = got;
    return TRUE;
}

static void skip_input(j_decompress_ptr cinfo, long n)
{
    source_state *src = (source_state *)cinfo->src;
    if (n <= 0)
        return;
    while ((size_t)n > src->pub.bytes_in_buffer) {
        n -= (long)src->pub.bytes_in_buffer;
        fill_input(cinfo);
    }
    src->pub.next_input_byte += n;
    src->pub.bytes_in_buffer -= (size_t)n;
}

static void term_source(j_decompress_ptr cinfo)
{
    (void)cinfo;
}

/* A progressive file may hold any number of scans, each a pass over the
 * whole image: a small file could keep the decoder busy for hours. */
static void count_scans(j_common_ptr cinfo)
{
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > JPEG_IO_MAX_SCANS) {
        error_state *es = (error_state *)cinfo->err;
        char msg[80];
        snprintf(msg, sizeof msg, "more than %d scans", JPEG_IO_MAX_SCANS);
        say(es, "JPEG error: ", msg);
        fail(es);
    }
}

static unsigned get16(const JOCTET *p, int le)
{
    return le ? (unsigned)p[0] | (unsigned)p[1] << 8 : (unsigned)p[0] << 8 | p[1];
}

static unsigned long get32(const JOCTET *p, int le)
{
    return le ? (unsigned long)get16(p, 1) | (unsigned long)get16(p + 2, 1) << 16
              : (unsigned long)get16(p, 0) << 16 | get16(p + 2, 0);
}

/* The Orientation tag (0x0112) of IFD0 in an APP1 "Exif" marker, 1-8, or 1
 * where there is none or the marker does not hold together. */
static int exif_orientation(const JOCTET *d, size_t n)
{
    if (n < 6 + 8 || memcmp(d, "Exif\0\0", 6) != 0)
        return 1;
    d += 6;
    n -= 6;
    const int le = d[0] == 'I' && d[1] == 'I';
    if (!le && !(d[0] == 'M' && d[1] == 'M'))
        return 1;
    if (get16(d + 2, le) != 42)
        return 1;
    unsigned long ifd = get32(d + 4, le);
    if (ifd > n - 2)
        return 1;
    unsigned count = get16(d + ifd, le);
    for (unsigned i = 0; i < count; i++) {
        unsigned long e = ifd + 2 + 12ul * i;
        if (e > n - 12)
            break;
        if (get16(d + e, le) == 0x0112 && get16(d + e + 2, le) == 3) {
            unsigned v = get16(d + e + 8, le);
            return v >= 1 && v <= 8 ? (int)v : 1;
        }
    }
    return 1;
}

/* CMYK (Adobe's inverted form, or plain) to RGB in place: r = c' * k' / 255
 * with c' and k' the amounts of light, not of ink. */
static void cmyk_row_to_rgb(JSAMPLE *row, const JSAMPLE *cmyk, unsigned width, int inverted)
{
    for (unsigned x = 0; x < width; x++) {
        unsigned v[4];
        for (int k = 0; k < 4; k++)
            v[k] = inverted ? cmyk[4 * x + k] : 255u - cmyk[4 * x + k];
        for (int k = 0; k < 3; k++)
            row[3 * x + k] = (JSAMPLE)((v[k] * v[3] + 127) / 255);
    }
}

typedef struct {
    error_state es;
    source_state *src;
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    JSAMPLE *cmyk_row;
    JOCTET *icc;
} read_state;

static int read_body(read_state *st, FILE *fp, png_io_picture *pic, size_t max_bytes)
{
    struct jpeg_decompress_struct *cinfo = &st->cinfo;

    if (setjmp(st->es.jump))
        return -1;
    cinfo->err = &st->es.pub;
    jpeg_create_decompress(cinfo);
    /* libjpeg's working memory beyond the image itself (a progressive
     * file's coefficients: 2 bytes a sample) is capped; past the cap it
     * asks for a backing store there is not, and fails. */
    cinfo->mem->max_memory_to_use = (long)(2 * max_bytes + ((size_t)16 << 20));
    st->progress.progress_monitor = count_scans;
    cinfo->progress = &st->progress;

    st->src = (source_state *)cinfo->mem->alloc_small((j_common_ptr)cinfo, JPOOL_PERMANENT,
                                                      sizeof *st->src);
    st->src->pub.init_source = init_source;
    st->src->pub.fill_input_buffer = fill_input;
    st->src->pub.skip_input_data = skip_input;
    st->src->pub.resync_to_restart = jpeg_resync_to_restart;
    st->src->pub.term_source = term_source;
    /* The SOI marker the caller read to tell a JPEG. */
    st->src->buf[0] = 0xff;
    st->src->buf[1] = 0xd8;
    st->src->pub.bytes_in_buffer = 2;
    st->src->pub.next_input_byte = st->src->buf;
    st->src->fp = fp;
    st->src->es = &st->es;
    cinfo->src = &st->src->pub;

    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xffff);
    jpeg_read_header(cinfo, TRUE);

    const int cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    const int channels = cinfo->num_components == 1 ? 1 : 3;
    if (cinfo->num_components != 1 && cinfo->num_components != 3 && !cmyk) {
        say(&st->es, "", "unsupported JPEG layout");
        return -1;
    }
    cinfo->out_color_space = channels == 1 ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
    const size_t width = cinfo->image_width, height = cinfo->image_height;
    const size_t row_bytes = width * (size_t)channels;
    /* The size check comes before anything the size of the image. */
    if (width == 0 || height == 0 || width > PNG_IO_MAX_SIDE || height > PNG_IO_MAX_SIDE ||
        height > max_bytes / row_bytes) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "image too large: %zux%zu pixels of %d bytes is over the %zu MiB limit",
                 width, height, channels, max_bytes >> 20);
        say(&st->es, "", msg);
        return -1;
    }

    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 1 && pic->orientation <= 1)
            pic->orientation = exif_orientation(m->data, m->data_length);
    unsigned int icc_size = 0;
    if (jpeg_read_icc_profile(cinfo, &st->icc, &icc_size) && icc_size > 0 && cmyk) {
        /* It describes the inks, and the pixels are converted to RGB. */
        snprintf(pic->warning, sizeof pic->warning,
                 "CMYK colour profile dropped: the pixels are converted to RGB");
    } else if (icc_size > 0) {
        pic->iccp = malloc(icc_size);
        if (!pic->iccp) {
            say(&st->es, "", "out of memory");
            return -1;
        }
        memcpy(pic->iccp, st->icc, icc_size);
        pic->iccp_size = icc_size;
    }

    pic->image.data = malloc(row_bytes * height);
    st->cmyk_row = cmyk ? malloc(width * 4) : NULL;
    if (!pic->image.data || (cmyk && !st->cmyk_row)) {
        say(&st->es, "", "out of memory");
        return -1;
    }
    pic->image.width = (int)width;
    pic->image.height = (int)height;
    pic->image.channels = channels;
    pic->image.type = OCLCONV_U8;
    pic->image.stride = 0;

    jpeg_start_decompress(cinfo);
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPLE *row = (JSAMPLE *)pic->image.data + (size_t)cinfo->output_scanline * row_bytes;
        JSAMPROW target = cmyk ? st->cmyk_row : row;
        if (jpeg_read_scanlines(cinfo, &target, 1) != 1) {
            say(&st->es, "", "the file is truncated");
            return -1;
        }
        if (cmyk)
            cmyk_row_to_rgb(row, st->cmyk_row, (unsigned)width, cinfo->saw_Adobe_marker);
    }
    /* Reading on to EOI catches a file cut short after its last scan. */
    jpeg_finish_decompress(cinfo);
    return 0;
}

int jpeg_io_read(FILE *fp, png_io_picture *pic, size_t max_bytes, char *err, size_t err_size)
{
    read_state *st = calloc(1, sizeof *st);
    int rc;

    memset(pic, 0, sizeof *pic);
    if (!st) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    init_errors(&st->es, err, err_size);
    int c0 = getc(fp), c1 = getc(fp);
    if (c0 != 0xff || c1 != 0xd8) {
        say(&st->es, "", ferror(fp) ? "read error" : "not a JPEG file");
        free(st);
        return -1;
    }
    rc = read_body(st, fp, pic, max_bytes);
    if (rc == 0) {
        if (st->es.warning[0] && !pic->warning[0])
            snprintf(pic->warning, sizeof pic->warning, "JPEG: %s", st->es.warning);
    }
    free(st->icc);
    free(st->cmyk_row);
    jpeg_destroy_decompress(&st->cinfo);
    free(st);
    if (rc)
        png_io_free(pic);
    return rc;
}

/* ====== Writing ====================================================== */

typedef struct {
    error_state es;
    struct jpeg_compress_struct cinfo;
} write_state;

static int write_body(write_state *st, FILE *fp, const png_io_picture *pic, int quality)
{
    struct jpeg_compress_struct *cinfo = &st->cinfo;
    const oclconv_image *img = &pic->image;
    const size_t row_bytes = img->stride ? img->stride
                                         : (size_t)img->width * (size_t)img->channels;

    if (setjmp(st->es.jump))
        return -1;
    cinfo->err = &st->es.pub;
    jpeg_create_compress(cinfo);
    jpeg_stdio_dest(cinfo, fp);
    cinfo->image_width = (JDIMENSION)img->width;
    cinfo->image_height = (JDIMENSION)img->height;
    cinfo->input_components = img->channels;
    cinfo->in_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    cinfo->optimize_coding = TRUE; /* a few per cent smaller, for one more pass */
    jpeg_start_compress(cinfo, TRUE);
    if (pic->iccp && pic->iccp_size > 0)
        jpeg_write_icc_profile(cinfo, pic->iccp, (unsigned int)pic->iccp_size);
    while (cinfo->next_scanline < cinfo->image_height) {
        /* libjpeg reads the rows it is given; its prototype is not const. */
        JSAMPROW row = (JSAMPROW)(uintptr_t)((const JSAMPLE *)img->data +
                                             (size_t)cinfo->next_scanline * row_bytes);
        jpeg_write_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_compress(cinfo);
    return 0;
}

int jpeg_io_write(FILE *fp, const png_io_picture *pic, int quality, char *err, size_t err_size)
{
    const oclconv_image *img = &pic->image;
    write_state *st;
    int rc;

    if (!img->data || img->width <= 0 || img->height <= 0 || img->width > JPEG_MAX_DIMENSION ||
        img->height > JPEG_MAX_DIMENSION || (img->channels != 1 && img->channels != 3) ||
        img->type != OCLCONV_U8 || quality < 1 || quality > 100) {
        snprintf(err, err_size, img->width > JPEG_MAX_DIMENSION ||
                                        img->height > JPEG_MAX_DIMENSION
                                    ? "too large for JPEG, whose sides stop at 65500"
                                    : "cannot write this image as JPEG");
        return -1;
    }
    if (pic->iccp && pic->iccp_size > JPEG_IO_MAX_ICC) {
        snprintf(err, err_size, "the ICC profile (%zu bytes) is larger than JPEG can hold",
                 pic->iccp_size);
        return -1;
    }
    st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    init_errors(&st->es, err, err_size);
    rc = write_body(st, fp, pic, quality);
    jpeg_destroy_compress(&st->cinfo);
    free(st);
    if (rc == 0 && (fflush(fp) != 0 || ferror(fp))) {
        snprintf(err, err_size, "write error: %s", strerror(errno));
        rc = -1;
    }
    return rc;
}

#define JPEG_IO_STR_(x) #x
#define JPEG_IO_STR(x) JPEG_IO_STR_(x)

const char *jpeg_io_version(void)
{
#ifdef LIBJPEG_TURBO_VERSION
    return "libjpeg-turbo " JPEG_IO_STR(LIBJPEG_TURBO_VERSION);
#else
    return "libjpeg " JPEG_IO_STR(JPEG_LIB_VERSION);
#endif
}
