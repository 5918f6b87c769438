/*
 * TIFF files to and from oclconv_image buffers, with libtiff.
 *
 * Reading takes the first image (IFD) of a file as it is stored when it is
 * gray, gray+alpha, RGB or RGBA of 8 or 16 unsigned bits (U8, U16) or 32-bit
 * IEEE floats (F32), in strips or tiles, interleaved or in planes, with any
 * compression libtiff decodes; white-is-zero gray is inverted, and
 * associated (premultiplied) alpha is divided out, the command's pictures
 * being straight.  Any other layout libtiff's RGBA interface reads (bilevel
 * and 2- or 4-bit gray, palette, CMYK, YCbCr, ...) comes as 8-bit gray, RGB
 * or RGBA.  The Orientation tag comes back in pic->orientation for the
 * caller to apply, and an ICC profile (tag 34675) in pic->iccp.
 *
 * Hostile files are refused before anything the size of the image is
 * allocated: a side over PNG_IO_MAX_SIDE or an image over `max_bytes`, a
 * compression libtiff cannot decode, and any libtiff error (a strip outside
 * the file, a directory that does not hold together), whose message becomes
 * the reason instead of going to stderr.  libtiff's single allocations are
 * capped at `max_bytes` too.  Nothing here prints.
 */
#ifndef OCLCONV_TIFF_IO_H
#define OCLCONV_TIFF_IO_H

#include <stdio.h>

#include "png_io.h"

/* Reads the first image of the TIFF file `fp`, whose first byte is where
 * the stream stands; libtiff seeks in it, so it must be seekable.  On
 * failure *pic holds nothing to free.
 * @return 0, or -1 with the reason in `err` ("not a TIFF file", "TIFF
 *         error: ..." quoting libtiff, "unsupported TIFF ...", ...). */
int tiff_io_read(FILE *fp, png_io_picture *pic, size_t max_bytes, char *err, size_t err_size);

/* Writes *pic (U8, U16 or F32, 1 to 4 channels, the second or the fourth
 * being unassociated alpha) as a Deflate-compressed TIFF with its ICC
 * profile.  The file is put together in memory (libtiff seeks back to
 * finish it) and then written to `fp`, which may be a pipe.  Flushes the
 * stream but does not close it.  @return 0, or -1 with the reason in `err`. */
int tiff_io_write(FILE *fp, const png_io_picture *pic, char *err, size_t err_size);

/* libtiff's version number, "4.5.0". */
const char *tiff_io_version(void);

#endif
