/*
 * The command's image files, whatever their format: PNG (png_io.c), JPEG
 * (jpeg_io.c) and TIFF (tiff_io.c).  An input's format is found from its
 * first bytes, never from its name, so a JPEG named x.png reads as JPEG; an
 * output's format follows its name's extension (.png, .jpg or .jpeg, .tif
 * or .tiff, in any case), and any other name, standard output included, is
 * written as PNG.
 *
 * Every reader fills a png_io_picture: U8, U16 or (float TIFF) F32 pixels,
 * 1 to 4 channels, and an ICC profile where the file has one.  Every writer
 * takes any of those and converts what its format cannot hold: F32 becomes
 * 16 bits in a PNG (0..1 to 0..65535, clamped) and 8 bits in a JPEG, whose
 * 16-bit inputs become 8 bits too (rounded); a JPEG has no alpha channel, so
 * one with alpha is refused rather than flattened.  Nothing here prints.
 */
#ifndef OCLCONV_IMAGE_IO_H
#define OCLCONV_IMAGE_IO_H

#include <stdio.h>

#include "png_io.h"

typedef enum { IMAGE_IO_PNG, IMAGE_IO_JPEG, IMAGE_IO_TIFF, IMAGE_IO_FORMATS } image_io_format;

/* "PNG", "JPEG", "TIFF". */
extern const char *const image_io_format_names[IMAGE_IO_FORMATS];

/* How outputs are written: PNG's compression, JPEG's quality (1 to 100). */
typedef struct {
    png_io_settings png;
    int jpeg_quality;
} image_io_settings;
#define IMAGE_IO_JPEG_QUALITY 90

/* A standard input that cannot seek is read into memory first, up to this
 * size: a TIFF's parts may come in any order. */
#define IMAGE_IO_MAX_STREAM (PNG_IO_MAX_BYTES + ((size_t)64 << 20))

/* The format an output named `path` gets, from its extension. */
image_io_format image_io_format_of_name(const char *path);

/* The format that the first `n` bytes of a file say it is, or -1. */
int image_io_sniff(const unsigned char *head, size_t n);

/* Reads one picture from `fp`, from where it stands, in the format its
 * content says, the image no larger than PNG_IO_MAX_BYTES.  On failure
 * *pic holds nothing to free.
 * @return 0, or -1 with a one-line reason in `err`. */
int image_io_read(FILE *fp, png_io_picture *pic, char *err, size_t err_size);
/* The same with the JPEG and TIFF images no larger than `max_bytes`: the
 * fuzz targets keep their allocations small with it. */
int image_io_read_limited(FILE *fp, png_io_picture *pic, size_t max_bytes, char *err,
                          size_t err_size);

/* Writes *pic to `fp` as `format`, converted as above.  Flushes the stream
 * but does not close it.  @return 0, or -1 with the reason in `err`. */
int image_io_write(FILE *fp, image_io_format format, const png_io_picture *pic,
                   const image_io_settings *set, char *err, size_t err_size);

#endif
