/*
 * Fuzz target: the JPEG reader of the command (samples/jpeg_io.c, through
 * samples/image_io.c, which applies the EXIF orientation).  See
 * fuzz_image.h.
 */
#include "fuzz_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_one(data, size, IMAGE_IO_JPEG);
    return 0;
}
