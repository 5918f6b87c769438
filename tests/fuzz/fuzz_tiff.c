/*
 * Fuzz target: the TIFF reader of the command (samples/tiff_io.c, through
 * samples/image_io.c, which applies the Orientation tag).  See
 * fuzz_image.h.
 */
#include "fuzz_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_one(data, size, IMAGE_IO_TIFF);
    return 0;
}
