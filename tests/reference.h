/*
 * The CPU reference: a plain, slow convolution, written to be read, whose
 * sums are exact and then rounded once to double (terms of 1e38 that
 * cancel leave the small ones intact).  Every device path is judged
 * against it.
 */
#ifndef OCLCONV_REFERENCE_H
#define OCLCONV_REFERENCE_H

#include "oclconv.h"

/* The exact result of a convolution, before rounding and saturation. */
typedef struct {
    int width, height, channels;
    double *value;     /* scale * sum + delta for every output value */
    double *magnitude; /* |scale| * sum of |w * in| (rescaled) + |delta|: the size of the terms */
} ref_result;

/* Index of the pixel a tap at coordinate i (possibly outside 0..n-1) reads, or
 * -1 when the border mode gives no pixel there (ZERO, CONSTANT, NORMALIZE). */
int ref_border_index(int i, int n, oclconv_border border);

/* Value number c of pixel (x, y) of an image, as a double. */
double ref_pixel(const oclconv_image *img, int x, int y, int c);

/* Convolves src with the fw x fh weights (as oclconv_filter_weights() gives
 * them) under opt (NULL = defaults).
 * Returns 0, or -1 when out of memory or NORMALIZE meets a zero-sum filter. */
int ref_convolve(const oclconv_image *src, int fw, int fh, const double *w,
                 const oclconv_options *opt, ref_result *out);
void ref_result_free(ref_result *r);
/* ref_convolve() with a filter's own weights and size; exits the test
 * program (99) where it cannot. */
ref_result ref_of_filter(const oclconv_image *src, const oclconv_filter *f,
                         const oclconv_options *opt);
/* oclconv_apply() of src into out, compared with ref: the mismatches, or
 * -1 where the call failed (*status says how, in either case). */
long ref_apply_compare(oclconv_context *ctx, const oclconv_image *src, oclconv_image *out,
                       const oclconv_filter *f, const oclconv_options *opt,
                       const ref_result *ref, char *why, size_t why_size,
                       oclconv_status *status);

/* Compares a device result with the reference under the project's tolerance:
 * integer outputs equal round-half-even-and-saturate of the exact value,
 * except within 1e-3 of a rounding tie, where either neighbour is right;
 * float outputs within 1e-5 of the magnitude of the terms; a NaN result
 * (a NaN in the window) is NaN, or 0 as an integer, an infinite one equal.  Returns the
 * number of mismatches and describes the first in `why` (may be NULL). */
long ref_compare(const oclconv_image *dst, const ref_result *ref, char *why, size_t why_size);

#endif
