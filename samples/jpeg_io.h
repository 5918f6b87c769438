/*
 * JPEG files to and from oclconv_image buffers, with libjpeg (libjpeg-turbo).
 *
 * Reading gives 8-bit gray (1 channel) or RGB (3 channels): YCbCr becomes
 * RGB, and CMYK or YCCK (Adobe's, inverted or not) is converted to RGB.
 * The EXIF orientation is returned in pic->orientation for the caller to
 * apply (image_io.c does), and an ICC profile (APP2 markers) in pic->iccp.
 *
 * Hostile files are refused: a side over PNG_IO_MAX_SIDE or an image over
 * `max_bytes` before anything large is allocated, libjpeg's own working
 * memory capped, a progressive file past JPEG_IO_MAX_SCANS scans, a file
 * that ends before its EOI marker ("the file is truncated"), and corrupt
 * entropy-coded data, which libjpeg would otherwise only warn about and
 * paint over in grey.  Nothing here prints.
 */
#ifndef OCLCONV_JPEG_IO_H
#define OCLCONV_JPEG_IO_H

#include <stdio.h>

#include "png_io.h"

#define JPEG_IO_MAX_SCANS 500
/* The largest ICC profile JPEG holds: 255 APP2 markers of 65519 bytes. */
#define JPEG_IO_MAX_ICC ((size_t)255 * 65519)

/* Reads one JPEG from `fp`, from where it stands.  On failure *pic holds
 * nothing to free.
 * @return 0, or -1 with the reason in `err` ("not a JPEG file", "the file is
 *         truncated", "JPEG error: ..." quoting libjpeg, "out of memory"). */
int jpeg_io_read(FILE *fp, png_io_picture *pic, size_t max_bytes, char *err, size_t err_size);

/* Writes *pic, U8 with 1 (gray) or 3 (RGB) channels, as a baseline JPEG of
 * `quality` (1-100) with its ICC profile (refused past JPEG_IO_MAX_ICC,
 * rather than dropped), and no EXIF: the pixels are
 * written the right way up.  Flushes the stream but does not close it.
 * @return 0, or -1 with the reason in `err`. */
int jpeg_io_write(FILE *fp, const png_io_picture *pic, int quality, char *err, size_t err_size);

/* "libjpeg-turbo 2.1.5": the library the command was built with. */
const char *jpeg_io_version(void);

#endif
