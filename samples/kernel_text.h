/*
 * Filter weights written as text, as the command takes them from --kernel and
 * --kernel-file.
 *
 * Rows are separated by ';' or by line breaks; the values of a row by commas,
 * whitespace, or both ("1, 2, 1", "1 2 1" and "1,2,1" are the same row).
 * Blank rows are skipped and '#' starts a comment that runs to the end of the
 * line.  Every row must hold the same odd number of values, and the row count
 * must be odd.  Numbers are read with strtod() in the C locale; each must be a
 * float other than a denormal: 0, or a magnitude from FLT_MIN to FLT_MAX
 * (a device may flush denormals to 0).
 */
#ifndef OCLCONV_KERNEL_TEXT_H
#define OCLCONV_KERNEL_TEXT_H

#include <stddef.h>

typedef struct {
    int width, height; /* taps per row, rows */
    float *weights;    /* width * height values, row by row; from malloc */
} kernel_text;

/* Parses `text` (NUL-terminated).  A pure function of its input: it touches
 * no global state and never prints.
 * @return 0 with *out filled (free it with kernel_text_free()), or -1 with
 *         *out zeroed and a one-line reason in `err` (when err_size > 0). */
int kernel_text_parse(const char *text, kernel_text *out, char *err, size_t err_size);

/* Frees the weights and zeroes *k.  Fine on a zeroed or already freed value. */
void kernel_text_free(kernel_text *k);

#endif
