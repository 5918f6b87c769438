#include "png_io.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What the libpng callbacks share with the code that called libpng.  It lives
 * in the caller's frame and is reached through a pointer, so nothing in it is
 * lost when libpng longjmps back. */
typedef struct {
    FILE *fp;
    png_structp png;
    png_infop info;
    png_bytep *rows;
    char *err;
    size_t err_size;
    int have_reason; /* err already holds our own words; keep them */
    png_io_settings set; /* writing: how to compress */
    char warning[160]; /* libpng's last warning */
    char iccp_warning[160]; /* its first about the iCCP chunk, without "iCCP: " */
} io_state;

static void say(io_state *st, const char *prefix, const char *msg)
{
    if (st->err_size > 0)
        snprintf(st->err, st->err_size, "%s%s", prefix, msg);
    st->have_reason = 1;
}

/* libpng errors end here: keep the message, never print, jump back. */
static void on_error(png_structp png, png_const_charp msg)
{
    io_state *st = png_get_error_ptr(png);
    if (!st->have_reason) {
        /* libpng gives the reasons for a bad header as warnings first. */
        if (strcmp(msg, "Invalid IHDR data") == 0 && st->warning[0]) {
            char both[300];
            snprintf(both, sizeof both, "%s (%s)", msg, st->warning);
            say(st, "PNG error: ", both);
        } else {
            say(st, "PNG error: ", msg);
        }
    }
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    io_state *st = png_get_error_ptr(png);
    snprintf(st->warning, sizeof st->warning, "%s", msg);
    if (strncmp(msg, "iCCP: ", 6) == 0 && !st->iccp_warning[0])
        snprintf(st->iccp_warning, sizeof st->iccp_warning, "%s", msg + 6);
}

/* Says in pic->warning why libpng dropped the colour profile, when it did:
 * a profile past the chunk limit, or one it found damaged. */
static void note_dropped_profile(const io_state *st, png_io_picture *pic)
{
    const char *why = st->iccp_warning;
    if (!*why || pic->iccp)
        return;
    if (strstr(why, "too large") || strstr(why, "exceeds application limits"))
        snprintf(pic->warning, sizeof pic->warning,
                 "colour profile (iCCP) dropped: larger than the %zu MiB limit on ancillary "
                 "chunks", PNG_IO_MAX_CHUNK >> 20);
    else
        snprintf(pic->warning, sizeof pic->warning, "colour profile (iCCP) dropped: %s", why);
}

/* Replaces libpng's stdio reader so that a short file says "truncated" and a
 * failing one says why, instead of a bare "Read Error". */
static void read_data(png_structp png, png_bytep data, size_t length)
{
    io_state *st = png_get_io_ptr(png);
    if (fread(data, 1, length, st->fp) != length) {
        if (ferror(st->fp))
            say(st, "read error: ", strerror(errno));
        else
            say(st, "", "the file is truncated");
        png_error(png, "read failed");
    }
}

static void write_data(png_structp png, png_bytep data, size_t length)
{
    io_state *st = png_get_io_ptr(png);
    if (fwrite(data, 1, length, st->fp) != length) {
        say(st, "write error: ", strerror(errno));
        png_error(png, "write failed");
    }
}

static void flush_data(png_structp png)
{
    io_state *st = png_get_io_ptr(png);
    fflush(st->fp);
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* ====== Reading ====================================================== */

/* Copies the colour chunks libpng found before the image data. */
static int read_meta(io_state *st, png_io_picture *pic)
{
    png_structp png = st->png;
    png_infop info = st->info;
    png_fixed_point g, c[8];
    int intent, unit;
    png_uint_32 px, py, size;
    png_charp name;
    png_bytep profile;
    int compression;

    if (png_get_gAMA_fixed(png, info, &g)) {
        pic->has_gama = 1;
        pic->gama = g;
    }
    if (png_get_cHRM_fixed(png, info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7])) {
        pic->has_chrm = 1;
        for (int i = 0; i < 8; i++)
            pic->chrm[i] = c[i];
    }
    if (png_get_sRGB(png, info, &intent)) {
        pic->has_srgb = 1;
        pic->srgb_intent = intent;
    }
    if (png_get_pHYs(png, info, &px, &py, &unit)) {
        pic->has_phys = 1;
        pic->phys_x = px;
        pic->phys_y = py;
        pic->phys_unit = unit;
    }
    if (png_get_iCCP(png, info, &name, &compression, &profile, &size) && size > 0) {
        pic->iccp_name = malloc(strlen(name) + 1);
        pic->iccp = malloc(size);
        if (!pic->iccp_name || !pic->iccp) {
            say(st, "", "out of memory");
            return -1;
        }
        strcpy(pic->iccp_name, name);
        memcpy(pic->iccp, profile, size);
        pic->iccp_size = size;
    }
    return 0;
}

static int read_body(io_state *st, png_io_picture *pic)
{
    png_structp png = st->png;
    png_infop info = st->info;
    png_uint_32 width, height;
    int depth, channels;
    size_t row_bytes;

    if (setjmp(png_jmpbuf(png)))
        return -1;
    png_set_read_fn(png, st, read_data);
    png_set_sig_bytes(png, 8);
    png_set_user_limits(png, PNG_IO_MAX_SIDE, PNG_IO_MAX_SIDE);
    png_set_chunk_malloc_max(png, PNG_IO_MAX_CHUNK);
    /* libpng allocates a text, eXIf or similar chunk's declared length (up to
     * 2 GiB) before reading it, whatever the limit above says: the chunks
     * the reader has no use for are skipped unread instead. */
    static const png_byte unused[] = "bKGD\0eXIf\0hIST\0iTXt\0oFFs\0pCAL\0sCAL\0sPLT\0"
                                     "sBIT\0tEXt\0tIME\0zTXt";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, unused, (int)(sizeof unused / 5));
    png_read_info(png, info);

    /* Palette to RGB, gray below 8 bits to 8 bits, tRNS to an alpha channel;
     * 16 bits stay 16 bits, swapped from PNG's big-endian order. */
    png_set_expand(png);
    if (png_get_bit_depth(png, info) == 16 && host_is_little_endian())
        png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    width = png_get_image_width(png, info);
    height = png_get_image_height(png, info);
    depth = png_get_bit_depth(png, info);
    channels = png_get_channels(png, info);
    row_bytes = png_get_rowbytes(png, info);
    if ((depth != 8 && depth != 16) || channels < 1 || channels > 4 ||
        row_bytes != (size_t)width * (size_t)channels * (size_t)(depth / 8)) {
        say(st, "", "unsupported PNG layout");
        return -1;
    }
    /* The size check comes before the one big allocation. */
    if ((size_t)height > PNG_IO_MAX_BYTES / row_bytes) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "image too large: %lux%lu pixels of %d bytes is over the %zu MiB limit",
                 (unsigned long)width, (unsigned long)height, channels * depth / 8,
                 PNG_IO_MAX_BYTES >> 20);
        say(st, "", msg);
        return -1;
    }
    if (read_meta(st, pic))
        return -1;

    pic->image.data = malloc(row_bytes * height);
    st->rows = malloc(height * sizeof *st->rows);
    if (!pic->image.data || !st->rows) {
        say(st, "", "out of memory");
        return -1;
    }
    for (png_uint_32 y = 0; y < height; y++)
        st->rows[y] = (png_bytep)pic->image.data + (size_t)y * row_bytes;
    pic->image.width = (int)width;
    pic->image.height = (int)height;
    pic->image.channels = channels;
    pic->image.type = depth == 16 ? OCLCONV_U16 : OCLCONV_U8;
    pic->image.stride = 0;

    png_read_image(png, st->rows);
    /* Reading on to IEND catches a file cut short after its image data. */
    png_read_end(png, NULL);
    return 0;
}

int png_io_read(FILE *fp, png_io_picture *pic, char *err, size_t err_size)
{
    unsigned char sig[8];
    size_t got;
    io_state st;
    int rc;

    memset(pic, 0, sizeof *pic);
    memset(&st, 0, sizeof st);
    st.fp = fp;
    st.err = err;
    st.err_size = err_size;

    got = fread(sig, 1, sizeof sig, fp);
    if (got < sizeof sig && ferror(fp)) {
        say(&st, "read error: ", strerror(errno));
        return -1;
    }
    if (got == 0 || png_sig_cmp(sig, 0, got) != 0) {
        say(&st, "", "not a PNG file");
        return -1;
    }
    if (got < sizeof sig) {
        say(&st, "", "the file is truncated");
        return -1;
    }

    st.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &st, on_error, on_warning);
    if (st.png)
        st.info = png_create_info_struct(st.png);
    if (!st.png || !st.info) {
        png_destroy_read_struct(&st.png, NULL, NULL);
        say(&st, "", "out of memory");
        return -1;
    }
    rc = read_body(&st, pic);
    png_destroy_read_struct(&st.png, &st.info, NULL);
    free(st.rows);
    if (rc)
        png_io_free(pic);
    else
        note_dropped_profile(&st, pic);
    return rc;
}

void png_io_free(png_io_picture *pic)
{
    free(pic->image.data);
    free(pic->iccp_name);
    free(pic->iccp);
    memset(pic, 0, sizeof *pic);
}

/* ====== Writing ====================================================== */

static void write_meta(png_structp png, png_infop info, const png_io_picture *pic)
{
    /* One colour description, the most precise one there is, so that the
     * chunks written never contradict each other. */
    if (pic->iccp) {
        png_set_iCCP(png, info, pic->iccp_name, PNG_COMPRESSION_TYPE_BASE, pic->iccp,
                     (png_uint_32)pic->iccp_size);
    } else if (pic->has_srgb) {
        png_set_sRGB_gAMA_and_cHRM(png, info, pic->srgb_intent);
    } else {
        if (pic->has_gama)
            png_set_gAMA_fixed(png, info, (png_fixed_point)pic->gama);
        if (pic->has_chrm) {
            const long *c = pic->chrm;
            png_set_cHRM_fixed(png, info, (png_fixed_point)c[0], (png_fixed_point)c[1],
                               (png_fixed_point)c[2], (png_fixed_point)c[3],
                               (png_fixed_point)c[4], (png_fixed_point)c[5],
                               (png_fixed_point)c[6], (png_fixed_point)c[7]);
        }
    }
    if (pic->has_phys)
        png_set_pHYs(png, info, (png_uint_32)pic->phys_x, (png_uint_32)pic->phys_y,
                     pic->phys_unit);
}

const char *const png_io_filter_names[PNG_IO_FILTERS] = {"none",  "sub",   "up",
                                                          "average", "paeth", "all"};

static int write_body(io_state *st, const png_io_picture *pic)
{
    static const int filter_bits[PNG_IO_FILTERS] = {PNG_FILTER_NONE, PNG_FILTER_SUB,
                                                    PNG_FILTER_UP,   PNG_FILTER_AVG,
                                                    PNG_FILTER_PAETH, PNG_ALL_FILTERS};
    static const int colour_type[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                       PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_structp png = st->png;
    png_infop info = st->info;
    const oclconv_image *img = &pic->image;
    int depth = img->type == OCLCONV_U16 ? 16 : 8;

    if (setjmp(png_jmpbuf(png)))
        return -1;
    png_set_write_fn(png, st, write_data, flush_data);
    png_set_compression_level(png, st->set.level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filter_bits[st->set.filter]);
    /* A colour chunk libpng finds odd is dropped with a warning, not fatal. */
    png_set_benign_errors(png, 1);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, depth,
                 colour_type[img->channels], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    write_meta(png, info, pic);
    png_write_info(png, info);
    if (depth == 16 && host_is_little_endian())
        png_set_swap(png);
    png_write_image(png, st->rows);
    png_write_end(png, NULL);
    return 0;
}

int png_io_write(FILE *fp, const png_io_picture *pic, const png_io_settings *set, char *err,
                 size_t err_size)
{
    const oclconv_image *img = &pic->image;
    io_state st;
    size_t row_bytes;
    int rc;

    memset(&st, 0, sizeof st);
    st.fp = fp;
    st.err = err;
    st.err_size = err_size;
    st.set = set ? *set : PNG_IO_LIBPNG_SETTINGS;
    if (st.set.level < 0 || st.set.level > 9 || (unsigned)st.set.filter >= PNG_IO_FILTERS) {
        say(&st, "", "no such PNG compression");
        return -1;
    }
    if (!img->data || img->width <= 0 || img->height <= 0 ||
        (unsigned)img->width > PNG_IO_MAX_SIDE || (unsigned)img->height > PNG_IO_MAX_SIDE ||
        img->channels < 1 || img->channels > 4 ||
        (img->type != OCLCONV_U8 && img->type != OCLCONV_U16)) {
        say(&st, "", "cannot write this image as PNG");
        return -1;
    }
    row_bytes = img->stride ? img->stride
                            : (size_t)img->width * (size_t)img->channels *
                                  (img->type == OCLCONV_U16 ? 2u : 1u);

    st.rows = malloc((size_t)img->height * sizeof *st.rows);
    st.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &st, on_error, on_warning);
    if (st.png)
        st.info = png_create_info_struct(st.png);
    if (!st.rows || !st.png || !st.info) {
        png_destroy_write_struct(&st.png, &st.info);
        free(st.rows);
        say(&st, "", "out of memory");
        return -1;
    }
    for (int y = 0; y < img->height; y++)
        st.rows[y] = (png_bytep)img->data + (size_t)y * row_bytes;

    rc = write_body(&st, pic);
    png_destroy_write_struct(&st.png, &st.info);
    free(st.rows);
    if (rc == 0 && (fflush(fp) != 0 || ferror(fp))) {
        say(&st, "write error: ", strerror(errno));
        rc = -1;
    }
    return rc;
}

const char *png_io_libpng_version(void)
{
    return png_get_libpng_ver(NULL);
}
