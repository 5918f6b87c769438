#include "reference.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static size_t type_size(oclconv_type t)
{
    return t == OCLCONV_U8 ? 1 : t == OCLCONV_U16 ? 2 : 4;
}

static size_t row_bytes(const oclconv_image *img)
{
    return img->stride ? img->stride
                       : (size_t)img->width * (size_t)img->channels * type_size(img->type);
}

static void *value_address(const oclconv_image *img, int x, int y, int c)
{
    return (unsigned char *)img->data + (size_t)y * row_bytes(img) +
           ((size_t)x * (size_t)img->channels + (size_t)c) * type_size(img->type);
}

double ref_pixel(const oclconv_image *img, int x, int y, int c)
{
    const void *p = value_address(img, x, y, c);
    switch (img->type) {
    case OCLCONV_U8: return *(const uint8_t *)p;
    case OCLCONV_U16: return *(const uint16_t *)p;
    default: return *(const float *)p;
    }
}

/* The mathematical modulus: always in 0..n-1. */
static int mod(int i, int n)
{
    int m = i % n;
    return m < 0 ? m + n : m;
}

int ref_border_index(int i, int n, oclconv_border border)
{
    if (i >= 0 && i < n)
        return i;
    switch (border) {
    case OCLCONV_BORDER_CLAMP:
        return i < 0 ? 0 : n - 1;
    case OCLCONV_BORDER_REFLECT: { /* cba|abc...: period 2n, edge repeated */
        int m = mod(i, 2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    case OCLCONV_BORDER_REFLECT101: { /* dcb|abcd...: period 2n-2, edge not repeated */
        if (n == 1)
            return 0;
        int m = mod(i, 2 * n - 2);
        return m < n ? m : 2 * n - 2 - m;
    }
    case OCLCONV_BORDER_WRAP:
        return mod(i, n);
    default: /* ZERO, CONSTANT, NORMALIZE: no pixel there */
        return -1;
    }
}

/* An exact sum of doubles (Shewchuk's partials): terms of 1e38 that
 * cancel leave the small ones intact, whatever their order.  The
 * partials never overlap, so a double's exponent range bounds their
 * number (2098 bits / 53 + 1). */
typedef struct {
    double part[48];
    int n;
    int special;    /* an Inf or a NaN was added: the sum is theirs */
    double nonfinite;
} exact_sum;

static void exact_add(exact_sum *s, double x)
{
    if (!isfinite(x)) {
        s->nonfinite = s->special ? s->nonfinite + x : x;
        s->special = 1;
        return;
    }
    int kept = 0;
    for (int i = 0; i < s->n; i++) {
        double y = s->part[i];
        if (fabs(x) < fabs(y)) {
            double t = x;
            x = y;
            y = t;
        }
        double hi = x + y, lo = y - (hi - x);
        if (lo != 0)
            s->part[kept++] = lo;
        x = hi;
    }
    s->n = kept;
    if (s->n < 48)
        s->part[s->n++] = x;
}

/* Adds the product a b exactly: its rounded value and the rounding. */
static void exact_add_product(exact_sum *s, double a, double b)
{
    double p = a * b;
    exact_add(s, p);
    if (isfinite(p))
        exact_add(s, fma(a, b, -p));
}

static double exact_value(const exact_sum *s)
{
    if (s->special)
        return s->nonfinite;
    double sum = 0;
    for (int i = s->n - 1; i >= 0; i--)
        sum += s->part[i];
    return sum;
}

/* What the sums of one output read: the source's values as doubles,
 * packed, and the column and row each tap takes through the border (-1
 * outside), xs[x + i] for the tap i - rx of column x (ys likewise). */
typedef struct {
    const double *v;
    const int *xs, *ys;
    const double *w;
    int width, channels, fw, fh;
    double outside; /* the value of an outside tap: the constant, or 0 */
} window_src;

/* The value at tap (i, j) of output (x, y, c), or NULL outside. */
static const double *tap_value(const window_src *ws, int x, int y, int c, int i, int j)
{
    int sx = ws->xs[x + i], sy = ws->ys[y + j];
    return sx >= 0 && sy >= 0
               ? ws->v + ((size_t)sy * (size_t)ws->width + (size_t)sx) * (size_t)ws->channels + c
               : NULL;
}

/* One output's sum of weights times values, and of the in-image weights,
 * exactly. */
static void exact_window(const window_src *ws, int x, int y, int c, double *sum, double *win)
{
    exact_sum sum_in = {{0}, 0, 0, 0}, win_in = {{0}, 0, 0, 0};
    for (int j = 0; j < ws->fh; j++)
        for (int i = 0; i < ws->fw; i++) {
            double wt = ws->w[j * ws->fw + i];
            const double *p = tap_value(ws, x, y, c, i, j);
            if (p)
                exact_add(&win_in, wt);
            exact_add_product(&sum_in, wt, p ? *p : ws->outside);
        }
    *sum = exact_value(&sum_in);
    *win = exact_value(&win_in);
}

int ref_convolve(const oclconv_image *src, int fw, int fh, const double *w,
                 const oclconv_options *opt, ref_result *out)
{
    oclconv_options defaults;
    if (!opt) {
        oclconv_options_init(&defaults);
        opt = &defaults;
    }
    int width = src->width, height = src->height, cn = src->channels;
    int rx = fw / 2, ry = fh / 2;
    size_t n = (size_t)width * (size_t)height * (size_t)cn;
    out->width = width;
    out->height = height;
    out->channels = cn;
    out->value = malloc(n * sizeof(double));
    out->magnitude = malloc(n * sizeof(double));
    double *v = malloc(n * sizeof *v);
    int *xs = malloc(((size_t)width + 2 * (size_t)rx) * sizeof *xs);
    int *ys = malloc(((size_t)height + 2 * (size_t)ry) * sizeof *ys);
    exact_sum all = {{0}, 0, 0, 0};
    for (int k = 0; k < fw * fh; k++)
        exact_add(&all, w[k]);
    double wsum = exact_value(&all);
    int normalize = opt->border == OCLCONV_BORDER_NORMALIZE;
    if (!out->value || !out->magnitude || !v || !xs || !ys || (normalize && wsum == 0)) {
        free(v);
        free(xs);
        free(ys);
        ref_result_free(out);
        return -1;
    }
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            for (int c = 0; c < cn; c++)
                v[((size_t)y * (size_t)width + (size_t)x) * (size_t)cn + (size_t)c] =
                    ref_pixel(src, x, y, c);
    for (int i = -rx; i < width + rx; i++)
        xs[i + rx] = ref_border_index(i, width, opt->border);
    for (int j = -ry; j < height + ry; j++)
        ys[j + ry] = ref_border_index(j, height, opt->border);
    window_src ws = {v, xs, ys, w, width, cn, fw, fh,
                     opt->border == OCLCONV_BORDER_CONSTANT ? opt->border_value : 0};
    /* Each sum in double first, in order: its rounding is at most u (taps +
     * 1) times the sum of its terms' magnitudes.  Where that could move a
     * result by 1e-6, a thousandth of the window around a tie (terms far
     * larger than what they leave), or NORMALIZE's in-image weights by
     * 1e-12 of themselves, the sums are made again exactly; so are sums
     * that are not finite. */
    double u = 0x1p-53 * (fw * fh + 2.0), scale = opt->scale, delta = opt->delta;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            for (int c = 0; c < cn; c++) {
                double sum = 0, mag = 0, win = 0, win_mag = 0;
                for (int j = 0; j < fh; j++)
                    for (int i = 0; i < fw; i++) {
                        double wt = w[j * fw + i];
                        const double *p = tap_value(&ws, x, y, c, i, j);
                        if (p) {
                            win += wt;
                            win_mag += fabs(wt);
                        }
                        double term = wt * (p ? *p : ws.outside);
                        sum += term;
                        mag += fabs(term);
                    }
                if (!isfinite(sum) || u * mag * fabs(scale) > 1e-6 ||
                    (normalize && u * win_mag > 1e-12 * fabs(win)))
                    exact_window(&ws, x, y, c, &sum, &win);
                if (normalize) {
                    /* Every output has at least its centre tap in the image,
                     * but the in-image weights can still sum to zero. */
                    double k = win != 0 ? wsum / win : 0;
                    sum *= k;
                    mag *= fabs(k);
                }
                size_t at = ((size_t)y * (size_t)width + (size_t)x) * (size_t)cn + (size_t)c;
                out->value[at] = fma(scale, sum, delta);
                out->magnitude[at] = fabs(scale) * mag + fabs(delta);
            }
    free(v);
    free(xs);
    free(ys);
    return 0;
}

ref_result ref_of_filter(const oclconv_image *src, const oclconv_filter *f,
                         const oclconv_options *opt)
{
    int fw, fh;
    ref_result r;
    oclconv_filter_size(f, &fw, &fh);
    if (ref_convolve(src, fw, fh, oclconv_filter_weights(f), opt, &r) != 0) {
        fprintf(stderr, "reference failed\n");
        exit(99);
    }
    return r;
}

long ref_apply_compare(oclconv_context *ctx, const oclconv_image *src, oclconv_image *out,
                       const oclconv_filter *f, const oclconv_options *opt,
                       const ref_result *ref, char *why, size_t why_size,
                       oclconv_status *status)
{
    *status = oclconv_apply(ctx, src, out, f, opt);
    return *status == OCLCONV_OK ? ref_compare(out, ref, why, why_size) : -1;
}

void ref_result_free(ref_result *r)
{
    free(r->value);
    free(r->magnitude);
    r->value = r->magnitude = NULL;
}

static double saturate(double v, double hi)
{
    return v < 0 ? 0 : v > hi ? hi : v;
}

long ref_compare(const oclconv_image *dst, const ref_result *ref, char *why, size_t why_size)
{
    long bad = 0;
    double hi = dst->type == OCLCONV_U8 ? 255 : 65535;
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++)
            for (int c = 0; c < dst->channels; c++) {
                size_t at = ((size_t)y * (size_t)dst->width + (size_t)x) * (size_t)dst->channels + (size_t)c;
                double exact = ref->value[at], got = ref_pixel(dst, x, y, c);
                int ok;
                if (isnan(exact)) { /* a NaN in the window, or Inf - Inf */
                    ok = dst->type == OCLCONV_F32 ? isnan(got) : got == 0;
                } else if (dst->type == OCLCONV_F32) {
                    /* A value a float cannot hold rounds to an infinity
                     * (from 2^128 - 2^103, half a unit past FLT_MAX). */
                    double past = 0x1p128 - 0x1p103;
                    ok = isinf(exact) ? got == exact
                         : fabs(exact) >= past && isinf(got) && (got > 0) == (exact > 0)
                             ? 1
                             : fabs(got - exact) <= 1e-5 * ref->magnitude[at] + 1e-30;
                } else {
                    double lo = floor(exact);
                    double frac = exact - lo;
                    if (fabs(frac - 0.5) < 1e-3) /* near a tie: either neighbour */
                        ok = got == saturate(lo, hi) || got == saturate(lo + 1, hi);
                    else
                        ok = got == saturate(nearbyint(exact), hi);
                }
                if (!ok && bad++ == 0 && why)
                    snprintf(why, why_size, "at x=%d y=%d c=%d: got %.9g, exact %.9g", x, y, c,
                             got, exact);
            }
    return bad;
}
