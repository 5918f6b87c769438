/*
 * What the JPEG and TIFF fuzz targets share: an input read through a memory
 * stream by the command's reader (samples/image_io.c, which applies the
 * orientation and names the profile) when its first bytes are of the
 * target's format; a picture that reads back must be what it claims (its
 * buffer read end to end, so that a short allocation shows under
 * AddressSanitizer), and a small one must survive the trip the command
 * makes with it: written in the same format and read again, with the same
 * size, and for TIFF the same pixels.
 *
 * The reader allocates the whole decoded image once the header is read: a
 * fuzzer finds headers asking for up to PNG_IO_MAX_BYTES at once, and a
 * stream of 1 GiB allocations only measures the allocator, so the targets
 * read with a limit of FUZZ_MAX_ALLOC instead.  Headers past it must still
 * be refused before the allocation.
 */
#ifndef OCLCONV_FUZZ_IMAGE_H
#define OCLCONV_FUZZ_IMAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"
#include "jpeg_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_ALLOC ((size_t)64 << 20)
/* Round trips are skipped above this many pixel bytes, to keep exec/s up. */
#define ROUND_TRIP_MAX_BYTES ((size_t)1 << 20)

static size_t picture_bytes(const png_io_picture *pic)
{
    const oclconv_image *im = &pic->image;
    const size_t value = im->type == OCLCONV_F32 ? 4 : im->type == OCLCONV_U16 ? 2 : 1;
    return (size_t)im->width * (size_t)im->height * (size_t)im->channels * value;
}

static void check_picture(const png_io_picture *pic)
{
    const oclconv_image *im = &pic->image;
    if (!im->data || im->width <= 0 || im->height <= 0 ||
        (unsigned)im->width > PNG_IO_MAX_SIDE || (unsigned)im->height > PNG_IO_MAX_SIDE ||
        im->channels < 1 || im->channels > 4 || im->stride != 0 || pic->orientation > 1 ||
        (im->type != OCLCONV_U8 && im->type != OCLCONV_U16 && im->type != OCLCONV_F32))
        __builtin_trap();
    const size_t n = picture_bytes(pic);
    if (n > FUZZ_MAX_ALLOC)
        __builtin_trap();
    const volatile unsigned char *p = im->data;
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i];
    (void)sum;
    if ((pic->iccp == NULL) != (pic->iccp_name == NULL) ||
        (pic->iccp == NULL) != (pic->iccp_size == 0))
        __builtin_trap();
}

static void round_trip(const png_io_picture *pic, image_io_format format)
{
    const image_io_settings set = {PNG_IO_LIBPNG_SETTINGS, IMAGE_IO_JPEG_QUALITY};
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out)
        return;
    int rc = image_io_write(out, format, pic, &set, err, sizeof err);
    fclose(out);
    if (rc != 0) {
        free(buf);
        /* JPEG holds no alpha, nor the largest profiles: the pictures the
         * command may refuse to write. */
        if (format == IMAGE_IO_JPEG &&
            (pic->image.channels % 2 == 0 || pic->iccp_size > JPEG_IO_MAX_ICC))
            return;
        fprintf(stderr, "round trip: write failed: %s\n", err);
        __builtin_trap();
    }
    FILE *in = fmemopen(buf, len, "rb");
    if (!in) {
        free(buf);
        return;
    }
    png_io_picture again;
    rc = image_io_read_limited(in, &again, FUZZ_MAX_ALLOC, err, sizeof err);
    fclose(in);
    free(buf);
    if (rc != 0) {
        fprintf(stderr, "round trip: re-read failed: %s\n", err);
        __builtin_trap();
    }
    const int lossless = format == IMAGE_IO_TIFF;
    if (again.image.width != pic->image.width || again.image.height != pic->image.height ||
        again.image.channels != pic->image.channels ||
        (lossless && (again.image.type != pic->image.type ||
                      memcmp(again.image.data, pic->image.data, picture_bytes(pic)) != 0)) ||
        again.iccp_size != pic->iccp_size) {
        fprintf(stderr, "round trip: the picture differs\n");
        __builtin_trap();
    }
    png_io_free(&again);
}

static void fuzz_one(const uint8_t *data, size_t size, image_io_format format)
{
    if (size == 0 || image_io_sniff(data, size) != (int)format)
        return;
    FILE *fp = fmemopen((void *)(uintptr_t)data, size, "rb");
    if (!fp)
        return;
    png_io_picture pic;
    char err[256] = "";
    int rc = image_io_read_limited(fp, &pic, FUZZ_MAX_ALLOC, err, sizeof err);
    fclose(fp);
    if (rc != 0) {
        /* Nothing to free, and always a reason on one line. */
        if (pic.image.data || pic.iccp || pic.iccp_name || err[0] == '\0' || strchr(err, '\n'))
            __builtin_trap();
        return;
    }
    check_picture(&pic);
    if (picture_bytes(&pic) <= ROUND_TRIP_MAX_BYTES)
        round_trip(&pic, format);
    png_io_free(&pic);
}

#endif
