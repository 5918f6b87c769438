#include "kernel_text.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest piece of offending text quoted back in a message. */
#define QUOTE_MAX 24

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Where the values of a row stop: the end, a row separator or a comment. */
static int ends_row(char c)
{
    return c == '\0' || c == ';' || c == '\n' || c == '#';
}

/* Length of the token at p, for quoting it in a message. */
static int token_length(const char *p)
{
    int n = 0;
    while (n < QUOTE_MAX && !ends_row(p[n]) && !is_blank(p[n]) && p[n] != ',')
        n++;
    return n;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t err_size, const char *fmt, ...)
{
    if (err_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int push(float **values, size_t *count, size_t *capacity, float v)
{
    if (*count == *capacity) {
        size_t cap = *capacity ? 2 * *capacity : 16;
        float *grown = realloc(*values, cap * sizeof **values);
        if (!grown)
            return -1;
        *values = grown;
        *capacity = cap;
    }
    (*values)[(*count)++] = v;
    return 0;
}

int kernel_text_parse(const char *text, kernel_text *out, char *err, size_t err_size)
{
    float *values = NULL;
    size_t count = 0, capacity = 0;
    int rows = 0, width = 0, rc = -1;
    const char *p = text;

    memset(out, 0, sizeof *out);
    if (err_size > 0)
        err[0] = '\0';
    if (!text)
        return fail(err, err_size, "no kernel text");

    for (;;) { /* one row per turn */
        int in_row = 0;
        while (is_blank(*p))
            p++;
        while (!ends_row(*p)) {
            char *end;
            double v;
            if (*p == ',') {
                fail(err, err_size, "row %d, value %d: empty value", rows + 1, in_row + 1);
                goto out;
            }
            errno = 0;
            v = strtod(p, &end);
            if (end == p || !(ends_row(*end) || is_blank(*end) || *end == ',')) {
                fail(err, err_size, "row %d, value %d: '%.*s' is not a number", rows + 1,
                     in_row + 1, token_length(p), p);
                goto out;
            }
            /* Past a double's range, strtod() says ERANGE; a weight that
             * would become 0 or infinite in a float is refused as such. */
            const char *range = errno == ERANGE ? (fabs(v) < 1 ? "too small" : "too large")
                                : !isfinite(v)         ? "not a finite number"
                                : fabs(v) > FLT_MAX    ? "too large"
                                : v != 0 && fabs(v) < FLT_MIN ? "too small"
                                                              : NULL;
            if (range) {
                fail(err, err_size, "row %d, value %d: '%.*s' is %s for a float weight "
                     "(0, or a magnitude from %.3g to %.3g)", rows + 1, in_row + 1,
                     (int)(end - p < QUOTE_MAX ? end - p : QUOTE_MAX), p, range,
                     (double)FLT_MIN, (double)FLT_MAX);
                goto out;
            }
            if (count >= (size_t)INT_MAX / 2 || push(&values, &count, &capacity, (float)v)) {
                fail(err, err_size, "kernel too large");
                goto out;
            }
            in_row++;
            p = end;
            while (is_blank(*p))
                p++;
            if (*p == ',') {
                p++;
                while (is_blank(*p))
                    p++;
                if (ends_row(*p)) {
                    fail(err, err_size, "row %d ends with a comma", rows + 1);
                    goto out;
                }
            }
        }
        if (in_row > 0) {
            rows++;
            if (rows == 1) {
                width = in_row;
            } else if (in_row != width) {
                fail(err, err_size, "row %d has %d value%s but row 1 has %d", rows, in_row,
                     in_row == 1 ? "" : "s", width);
                goto out;
            }
        }
        if (*p == '#')
            while (*p && *p != '\n')
                p++;
        if (*p == '\0')
            break;
        p++; /* the ';' or line break */
    }

    if (rows == 0)
        fail(err, err_size, "the kernel has no values");
    else if (width % 2 == 0)
        fail(err, err_size, "rows of %d values: a kernel needs an odd number of columns", width);
    else if (rows % 2 == 0)
        fail(err, err_size, "%d rows: a kernel needs an odd number of rows", rows);
    else
        rc = 0;

out:
    if (rc == 0) {
        out->width = width;
        out->height = rows;
        out->weights = values;
    } else {
        free(values);
    }
    return rc;
}

void kernel_text_free(kernel_text *k)
{
    free(k->weights);
    memset(k, 0, sizeof *k);
}
