/*
 * Fuzz target: the filter-weight text of --kernel and --kernel-file
 * (samples/kernel_text.c).
 *
 * The input, NUL-terminated, is the text.  A parse that succeeds must give
 * odd, positive sides, width * height finite weights in a buffer of that
 * size; one that fails must leave *out zeroed and give a one-line reason.
 * The parse is a pure function, so a second run must agree with the first.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    kernel_text k, again;
    char err[128], err2[128];
    int rc = kernel_text_parse(text, &k, err, sizeof err);
    if (rc == 0) {
        if (k.width <= 0 || k.height <= 0 || k.width % 2 == 0 || k.height % 2 == 0 ||
            !k.weights || (size_t)k.width > size || (size_t)k.height > size)
            __builtin_trap();
        size_t n = (size_t)k.width * (size_t)k.height;
        for (size_t i = 0; i < n; i++) /* out of bounds here = count != w*h */
            if (!isfinite(k.weights[i]))
                __builtin_trap();
    } else {
        if (rc != -1 || k.width || k.height || k.weights || err[0] == '\0' ||
            strchr(err, '\n'))
            __builtin_trap();
    }

    /* Same input, same answer; an error buffer of one byte is still fine. */
    int rc2 = kernel_text_parse(text, &again, err2, 1);
    if (rc2 != rc || err2[0] != '\0')
        __builtin_trap();
    if (rc == 0 && (again.width != k.width || again.height != k.height ||
                    memcmp(again.weights, k.weights,
                           (size_t)k.width * (size_t)k.height * sizeof *k.weights) != 0))
        __builtin_trap();
    kernel_text_free(&again);
    /* And with no error buffer at all. */
    if (kernel_text_parse(text, &again, NULL, 0) != rc)
        __builtin_trap();
    kernel_text_free(&again);

    kernel_text_free(&k);
    kernel_text_free(&k); /* documented as fine */
    free(text);
    return 0;
}
