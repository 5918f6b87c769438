/*
 * Fuzz target: the PNG reader of the command (samples/png_io.c).
 *
 * The input is the whole file.  It is read through a memory stream, so no
 * temporary file is involved.  A picture that reads back must be what the
 * header promises (its buffer is read end to end, so a short allocation shows
 * up under AddressSanitizer), and a small one must survive the trip the
 * command makes with it: written with its colour chunks and read again, with
 * the same pixels.
 *
 * libpng is not instrumented, and nearly every mutation breaks a chunk's CRC,
 * which libpng checks first.  So each input is read twice: as it is, and with
 * the CRC of every whole chunk recomputed, which lets mutated chunk contents
 * through to the code behind the check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "png_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Round trips are skipped above this many pixel bytes, to keep exec/s up. */
#define ROUND_TRIP_MAX_BYTES ((size_t)1 << 20)

/* The reader allocates the whole decoded image once the header is read, up
 * to PNG_IO_MAX_BYTES, whatever the size of the file.  A fuzzer finds such
 * headers at once, and a stream of 1 GiB allocations only measures the
 * allocator (and trips libFuzzer's RSS limit), so inputs whose header asks
 * for more than this and not more than PNG_IO_MAX_BYTES are passed over.
 * Headers over PNG_IO_MAX_BYTES are still fed: they must be refused before
 * the allocation. */
#define FUZZ_MAX_ALLOC ((size_t)64 << 20)

static unsigned long be32(const uint8_t *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

/* Would the reader allocate between FUZZ_MAX_ALLOC and PNG_IO_MAX_BYTES? */
static int asks_for_too_much(const uint8_t *data, size_t size)
{
    if (size < 8 + 8 + 13 || memcmp(data + 12, "IHDR", 4) != 0)
        return 0;
    size_t w = be32(data + 16), h = be32(data + 20);
    unsigned depth = data[24], colour = data[25];
    size_t bytes = depth == 16 ? 2 : 1;
    size_t lo = colour == 2 || colour == 3 ? 3 : colour == 4 ? 2 : colour == 6 ? 4 : 1;
    size_t hi = colour == 0 || colour == 2 || colour == 3 ? lo + 1 : lo; /* tRNS: + alpha */
    if (w > PNG_IO_MAX_SIDE || h > PNG_IO_MAX_SIDE)
        return 0;
    return w * h * hi * bytes > FUZZ_MAX_ALLOC && w * h * lo * bytes <= PNG_IO_MAX_BYTES;
}

static size_t picture_bytes(const png_io_picture *pic)
{
    const oclconv_image *im = &pic->image;
    return (size_t)im->width * (size_t)im->height * (size_t)im->channels *
           (im->type == OCLCONV_U16 ? 2u : 1u);
}

static void check_picture(const png_io_picture *pic)
{
    const oclconv_image *im = &pic->image;
    if (!im->data || im->width <= 0 || im->height <= 0 ||
        (unsigned)im->width > PNG_IO_MAX_SIDE || (unsigned)im->height > PNG_IO_MAX_SIDE ||
        im->channels < 1 || im->channels > 4 || im->stride != 0 ||
        (im->type != OCLCONV_U8 && im->type != OCLCONV_U16))
        __builtin_trap();
    size_t n = picture_bytes(pic);
    if (n > PNG_IO_MAX_BYTES)
        __builtin_trap();
    /* Touch every byte the header promises. */
    const volatile unsigned char *p = im->data;
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i];
    (void)sum;
    if ((pic->iccp == NULL) != (pic->iccp_name == NULL) ||
        (pic->iccp == NULL) != (pic->iccp_size == 0))
        __builtin_trap();
}

static void round_trip(const png_io_picture *pic)
{
    char *buf = NULL;
    size_t len = 0;
    char err[256];
    FILE *out = open_memstream(&buf, &len);
    if (!out)
        return;
    int rc = png_io_write(out, pic, NULL, err, sizeof err);
    fclose(out);
    if (rc != 0) {
        /* A picture the reader accepted must be writable: the command writes
         * its filtered copy with the same size and colour chunks. */
        fprintf(stderr, "round trip: write failed: %s\n", err);
        __builtin_trap();
    }
    FILE *in = fmemopen(buf, len, "rb");
    if (!in) {
        free(buf);
        return;
    }
    png_io_picture again;
    rc = png_io_read(in, &again, err, sizeof err);
    fclose(in);
    free(buf);
    if (rc != 0) {
        fprintf(stderr, "round trip: re-read failed: %s\n", err);
        __builtin_trap();
    }
    if (again.image.width != pic->image.width || again.image.height != pic->image.height ||
        again.image.channels != pic->image.channels || again.image.type != pic->image.type ||
        memcmp(again.image.data, pic->image.data, picture_bytes(pic)) != 0) {
        fprintf(stderr, "round trip: pixels differ\n");
        __builtin_trap();
    }
    png_io_free(&again);
}

/* Rewrites the CRC of every chunk that lies whole in buf; 1 if one changed. */
static int fix_crcs(uint8_t *buf, size_t size)
{
    int changed = 0;
    size_t at = 8;
    while (at + 12 <= size) {
        unsigned long len = be32(buf + at);
        if (len > size - at - 12)
            break;
        uLong crc = crc32(0L, buf + at + 4, (uInt)(len + 4));
        uint8_t *c = buf + at + 8 + len;
        if (be32(c) != (crc & 0xffffffffUL)) {
            c[0] = (uint8_t)(crc >> 24);
            c[1] = (uint8_t)(crc >> 16);
            c[2] = (uint8_t)(crc >> 8);
            c[3] = (uint8_t)crc;
            changed = 1;
        }
        at += 12 + len;
    }
    return changed;
}

static void read_one(const uint8_t *data, size_t size)
{
    FILE *fp = fmemopen((void *)(uintptr_t)data, size, "rb");
    if (!fp)
        return;
    png_io_picture pic;
    char err[256];
    int rc = png_io_read(fp, &pic, err, sizeof err);
    fclose(fp);
    if (rc != 0) {
        /* Nothing to free, and always a reason. */
        if (pic.image.data || pic.iccp || pic.iccp_name || err[0] == '\0')
            __builtin_trap();
        return;
    }
    check_picture(&pic);
    if (picture_bytes(&pic) <= ROUND_TRIP_MAX_BYTES)
        round_trip(&pic);
    png_io_free(&pic);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* fmemopen() refuses an empty buffer on some libcs */
    if (asks_for_too_much(data, size))
        return 0;
    read_one(data, size);
    uint8_t *fixed = malloc(size);
    if (!fixed)
        return 0;
    memcpy(fixed, data, size);
    if (fix_crcs(fixed, size))
        read_one(fixed, size);
    free(fixed);
    return 0;
}
