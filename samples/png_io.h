/*
 * PNG files to and from oclconv_image buffers, with libpng.
 *
 * Reading expands every PNG the format allows into 8 or 16 bits per value:
 * gray of 1, 2 and 4 bits becomes 8-bit gray, a palette becomes RGB, a tRNS
 * chunk becomes an alpha channel, and 16-bit values come in host byte order
 * (OCLCONV_U16).  Writing takes 1 (gray), 2 (gray+alpha), 3 (RGB) or 4 (RGBA)
 * channels of U8 or U16.
 *
 * Hostile files are refused before anything large is allocated: a side over
 * PNG_IO_MAX_SIDE or a decoded image over PNG_IO_MAX_BYTES.  An ancillary
 * chunk over PNG_IO_MAX_CHUNK (its data, or an iCCP profile inflated) is
 * skipped unread; when that, or damage libpng finds, drops the colour
 * profile, the picture's `warning` says so.  Nothing here prints; every
 * failure comes back as a one-line reason.
 */
#ifndef OCLCONV_PNG_IO_H
#define OCLCONV_PNG_IO_H

#include <stdio.h>

#include "oclconv.h"

#define PNG_IO_MAX_SIDE 65535u
#define PNG_IO_MAX_BYTES ((size_t)1 << 30)
#define PNG_IO_MAX_CHUNK ((size_t)8 << 20)

/* A decoded picture and the chunks that say how to show its colours, kept so
 * that a filtered copy looks like the original (gAMA, cHRM, sRGB, iCCP) and
 * prints at the same size (pHYs). */
typedef struct {
    oclconv_image image; /* packed; data from malloc; 1..4 channels; U8 or U16 (F32 from
                          * a float TIFF, see image_io.h) */
    int has_gama;
    long gama;           /* gamma * 100000 */
    int has_chrm;
    long chrm[8];        /* white x, y, red x, y, green x, y, blue x, y; * 100000 */
    int has_srgb, srgb_intent;
    int has_phys, phys_unit;
    unsigned long phys_x, phys_y;
    char *iccp_name;     /* from malloc, NULL when there is no iCCP chunk; the JPEG and
                          * TIFF readers leave it NULL, image_io.c names the profile */
    unsigned char *iccp; /* the profile, from malloc */
    size_t iccp_size;
    int orientation;     /* JPEG (EXIF) and TIFF: how the stored pixels are turned, 1-8
                          * as in EXIF; image_io_read() applies it and sets 1; 0 as 1 */
    char warning[200];   /* what reading dropped, for the caller to say; "" */
} png_io_picture;

/* Reads one PNG from `fp` (positioned at its start) into *pic; the file must
 * end with its IEND chunk.  On failure *pic holds nothing to free.
 * @return 0, or -1 with the reason in `err` ("not a PNG file", "the file is
 *         truncated", "PNG error: ..." quoting libpng, "out of memory"). */
int png_io_read(FILE *fp, png_io_picture *pic, char *err, size_t err_size);

/* How a PNG is compressed: zlib's level, 0 (stored) to 9 (smallest), and
 * the row filters libpng may choose from for each row (ALL: it tries each
 * and keeps the one that looks smallest). */
typedef enum {
    PNG_IO_FILTER_NONE,
    PNG_IO_FILTER_SUB,
    PNG_IO_FILTER_UP,
    PNG_IO_FILTER_AVERAGE,
    PNG_IO_FILTER_PAETH,
    PNG_IO_FILTER_ALL,
    PNG_IO_FILTERS
} png_io_filter;
typedef struct {
    int level;
    png_io_filter filter;
} png_io_settings;
/* Their names, as the command takes them: "none", "sub", "up", "average",
 * "paeth", "all". */
extern const char *const png_io_filter_names[PNG_IO_FILTERS];
/* libpng's own: level 6, every filter. */
#define PNG_IO_LIBPNG_SETTINGS ((png_io_settings){6, PNG_IO_FILTER_ALL})

/* Writes *pic as a PNG of the same channel count and bit depth to `fp`, with
 * its colour chunks, compressed as `set` says (NULL: libpng's own).
 * Flushes the stream but does not close it.
 * @return 0, or -1 with the reason in `err`. */
int png_io_write(FILE *fp, const png_io_picture *pic, const png_io_settings *set, char *err,
                 size_t err_size);

/* Frees what png_io_read() allocated and zeroes *pic. */
void png_io_free(png_io_picture *pic);

/* @return the version of the libpng linked, e.g. "1.6.39". */
const char *png_io_libpng_version(void);

#endif
