/*
 * Filters: immutable weights, their sums, and their row/column factors when
 * the filter is separable (given so, or a 2-D filter found to be rank one).
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static oclconv_status check_size(int width, int height)
{
    if (width <= 0 || height <= 0 || width % 2 == 0 || height % 2 == 0)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "filter size %dx%d: width and height must be odd and positive",
                             width, height);
    if (width > OCLCONV_MAX_TAPS_1D || height > OCLCONV_MAX_TAPS_1D ||
        (long)width * height > OCLCONV_MAX_TAPS)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "filter size %dx%d is too large (at most %d per side, %d taps)",
                             width, height, OCLCONV_MAX_TAPS_1D, OCLCONV_MAX_TAPS);
    return OCLCONV_OK;
}

static oclconv_status check_finite(const float *w, size_t n, const char *what)
{
    if (!w)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "filter %s is NULL", what);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(w[i]))
            return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                                 "filter %s[%zu] is not a finite number", what, i);
    return OCLCONV_OK;
}

static oclconv_status alloc_filter(int width, int height, oclconv_filter **out)
{
    oclconv_filter *f = calloc(1, sizeof *f);
    if (f)
        f->weights = malloc((size_t)width * (size_t)height * sizeof *f->weights);
    if (!f || !f->weights) {
        free(f);
        return oclconv__fail(NULL, OCLCONV_E_NOMEM, "out of memory for a %dx%d filter", width,
                             height);
    }
    f->width = width;
    f->height = height;
    *out = f;
    return OCLCONV_OK;
}

static oclconv_status set_factors(oclconv_filter *f, const float *row, const float *col)
{
    f->row = malloc((size_t)f->width * sizeof *f->row);
    f->col = malloc((size_t)f->height * sizeof *f->col);
    if (!f->row || !f->col)
        return oclconv__fail(NULL, OCLCONV_E_NOMEM, "out of memory for filter factors");
    memcpy(f->row, row, (size_t)f->width * sizeof *row);
    memcpy(f->col, col, (size_t)f->height * sizeof *col);
    return OCLCONV_OK;
}

static void compute_sums(oclconv_filter *f)
{
    size_t n = (size_t)f->width * (size_t)f->height;
    oclconv__sum sum = {{0}, 0};
    for (size_t k = 0; k < n; k++)
        oclconv__sum_add(&sum, f->weights[k]);
    /* Exact, rounded once: weights of ±3e38 around a 1 sum to 1, not 0. */
    f->sum = oclconv__sum_value(&sum);
    f->abs_sum = f->min_magnitude = 0;
    f->has_negative = 0;
    f->few_bits = 1;
    f->nonzero = 0;
    f->runs = oclconv__count_runs(f);
    for (size_t k = 0; k < n; k++) {
        double w = f->weights[k], m = fabs(w);
        f->nonzero += w != 0;
        f->few_bits &= m < 0x1p20 && ldexp(w, 16) == floor(ldexp(w, 16));
        f->abs_sum += m;
        f->has_negative |= w < 0;
        if (m > 0 && (f->min_magnitude == 0 || m < f->min_magnitude))
            f->min_magnitude = m;
    }
}

/* Factors through the tap at (pi, pj): col the pivot's column, row its row,
 * one of them divided by the pivot (`divide_row`).  Returns the sum of what
 * they miss of every tap, or -1 where one misses by more than a few float
 * ulps of the largest tap: rounding, not structure. */
static double try_factors(const oclconv_filter *f, int pi, int pj, int divide_row, double largest,
                          float *row, float *col)
{
    int w = f->width, h = f->height;
    double p = f->weights[(size_t)pj * (size_t)w + (size_t)pi];
    for (int j = 0; j < h; j++) {
        double c = f->weights[(size_t)j * (size_t)w + (size_t)pi];
        col[j] = (float)(divide_row ? c : c / p);
    }
    for (int i = 0; i < w; i++) {
        double r = f->weights[(size_t)pj * (size_t)w + (size_t)i];
        row[i] = (float)(divide_row ? r / p : r);
    }
    double residual = 0;
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            double d = fabs(f->weights[(size_t)j * (size_t)w + (size_t)i] - (double)col[j] * row[i]);
            if (d > 4 * 0x1p-24 * largest)
                return -1;
            residual += d;
        }
    return residual;
}

/* Rank-one test.  Factors through the largest tap (so no division by a
 * tiny value), dividing its row or its column by it, and through the
 * largest tap that is a power of two, whose division is exact; the first
 * that rebuilds every tap exactly is kept, else the closest within float
 * accuracy.  Exact factors keep integer results on exact halves where the
 * weights put them (bilinear 0.25 and 0.75 through the pivot 0.75 missed
 * by 1e-8, and 700 of 16 315 ties of a random 8-bit image rounded up).
 * The residual is kept so the planner can judge whether the separable
 * evaluation is exact enough for the output type. */
static oclconv_status detect_separable(oclconv_filter *f)
{
    int w = f->width, h = f->height;
    size_t n = (size_t)w * (size_t)h, pivot = 0, two = n;
    for (size_t k = 0; k < n; k++) {
        double m = fabs(f->weights[k]);
        int e;
        if (m > fabs(f->weights[pivot]))
            pivot = k;
        if (m > 0 && frexp(m, &e) == 0.5 && (two == n || m > fabs(f->weights[two])))
            two = k;
    }
    double largest = fabs(f->weights[pivot]);
    if (largest == 0 || (w == 1 && h == 1))
        return OCLCONV_OK;
    float *row = malloc(2 * (size_t)w * sizeof *row), *col = malloc(2 * (size_t)h * sizeof *col);
    if (!row || !col) {
        free(row);
        free(col);
        return oclconv__fail(NULL, OCLCONV_E_NOMEM, "out of memory for filter factors");
    }
    /* A single row or column is its own factor, exactly: divide the one of
     * length 1. */
    size_t pivots[2] = {pivot, two < n ? two : pivot};
    double kept = -1;
    for (int t = 0; t < 4 && kept != 0; t++) {
        size_t at = pivots[t / 2];
        int divide_row = h == 1 ? 0 : w == 1 ? 1 : t % 2 == 0;
        double r = try_factors(f, (int)(at % (size_t)w), (int)(at / (size_t)w), divide_row, largest,
                               row + w, col + h);
        if (r >= 0 && (kept < 0 || r < kept)) {
            kept = r;
            memcpy(row, row + w, (size_t)w * sizeof *row);
            memcpy(col, col + h, (size_t)h * sizeof *col);
        }
    }
    oclconv_status s = OCLCONV_OK;
    if (kept >= 0) {
        s = set_factors(f, row, col);
        f->separable_error = kept;
    }
    free(row);
    free(col);
    return s;
}

oclconv_status oclconv_filter_create(int width, int height, const float *weights,
                                     oclconv_filter **out)
{
    if (!out)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_filter_create: out is NULL");
    *out = NULL;
    oclconv_status s = check_size(width, height);
    if (s == OCLCONV_OK)
        s = check_finite(weights, (size_t)width * (size_t)height, "weights");
    oclconv_filter *f = NULL;
    if (s == OCLCONV_OK)
        s = alloc_filter(width, height, &f);
    if (s != OCLCONV_OK)
        return s;
    for (size_t k = 0; k < (size_t)width * (size_t)height; k++)
        f->weights[k] = weights[k];
    compute_sums(f);
    if ((s = detect_separable(f)) != OCLCONV_OK) {
        oclconv_filter_destroy(f);
        return s;
    }
    *out = f;
    return OCLCONV_OK;
}

oclconv_status oclconv_filter_separable(int width, const float *row, int height,
                                        const float *col, oclconv_filter **out)
{
    if (!out)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_filter_separable: out is NULL");
    *out = NULL;
    oclconv_status s = check_size(width, height);
    if (s == OCLCONV_OK)
        s = check_finite(row, (size_t)width, "row");
    if (s == OCLCONV_OK)
        s = check_finite(col, (size_t)height, "col");
    oclconv_filter *f = NULL;
    if (s == OCLCONV_OK)
        s = alloc_filter(width, height, &f);
    if (s == OCLCONV_OK)
        s = set_factors(f, row, col);
    if (s != OCLCONV_OK) {
        oclconv_filter_destroy(f);
        return s;
    }
    /* The product of two floats is exact in double. */
    for (int j = 0; j < height; j++)
        for (int i = 0; i < width; i++)
            f->weights[(size_t)j * (size_t)width + (size_t)i] = (double)col[j] * row[i];
    compute_sums(f);
    *out = f;
    return OCLCONV_OK;
}

void oclconv_filter_destroy(oclconv_filter *f)
{
    if (!f)
        return;
    free(f->weights);
    free(f->row);
    free(f->col);
    free(f);
}

void oclconv_filter_size(const oclconv_filter *f, int *width, int *height)
{
    if (width)
        *width = f ? f->width : 0;
    if (height)
        *height = f ? f->height : 0;
}

const double *oclconv_filter_weights(const oclconv_filter *f)
{
    return f ? f->weights : NULL;
}

/* ====== The common filters ============================================ */

static oclconv_status check_radius(int rx, int ry)
{
    if (rx < 0 || ry < 0 || rx > OCLCONV_MAX_TAPS_1D / 2 || ry > OCLCONV_MAX_TAPS_1D / 2)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "radius %dx%d: each must be between 0 and %d", rx, ry,
                             OCLCONV_MAX_TAPS_1D / 2);
    return OCLCONV_OK;
}

/* A separable filter whose taps come from a function of (radius, index). */
static oclconv_status make_separable(int rx, int ry, double (*tap)(int i, double param),
                                     double px, double py, oclconv_filter **out)
{
    if (!out)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "out is NULL");
    *out = NULL;
    oclconv_status s = check_radius(rx, ry);
    if (s != OCLCONV_OK)
        return s;
    float *row = malloc((size_t)(2 * rx + 1) * sizeof *row);
    float *col = malloc((size_t)(2 * ry + 1) * sizeof *col);
    if (!row || !col) {
        free(row);
        free(col);
        return oclconv__fail(NULL, OCLCONV_E_NOMEM, "out of memory for a filter");
    }
    for (int pass = 0; pass < 2; pass++) {
        int r = pass ? ry : rx;
        double param = pass ? py : px, total = 0;
        float *taps = pass ? col : row;
        for (int i = -r; i <= r; i++)
            total += tap(i, param);
        for (int i = -r; i <= r; i++)
            taps[i + r] = (float)(tap(i, param) / total);
    }
    s = oclconv_filter_separable(2 * rx + 1, row, 2 * ry + 1, col, out);
    free(row);
    free(col);
    return s;
}

static double box_tap(int i, double unused)
{
    (void)i;
    (void)unused;
    return 1.0;
}

/* The centre tap is 1 whatever sigma: below sigma = 1.5e-162, 2 sigma^2 is
 * 0 in double and 0 / 0 would make it NaN (the others go to 0, an
 * identity filter). */
static double gaussian_tap(int i, double sigma)
{
    return i == 0 ? 1.0 : exp(-(double)i * i / (2 * sigma * sigma));
}

oclconv_status oclconv_filter_box(int rx, int ry, oclconv_filter **out)
{
    return make_separable(rx, ry, box_tap, 0, 0, out);
}

/* The radius a direction takes: r, or for 0 ceil(3 sigma), which must not
 * pass the largest radius (sigma below 682.34). */
static oclconv_status gaussian_radius(double sigma, int *r, char axis)
{
    if (*r != 0)
        return OCLCONV_OK;
    double c = ceil(3 * sigma);
    if (c > OCLCONV_MAX_TAPS_1D / 2)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "gaussian sigma_%c %g: its radius ceil(3 sigma) = %.0f passes the "
                             "largest, %d; give a radius", axis, sigma, c, OCLCONV_MAX_TAPS_1D / 2);
    *r = (int)c;
    return OCLCONV_OK;
}

oclconv_status oclconv_filter_gaussian(double sigma_x, double sigma_y, int rx, int ry,
                                       oclconv_filter **out)
{
    if (!(sigma_x > 0) || !isfinite(sigma_x) || isnan(sigma_y) || isinf(sigma_y)) {
        if (out)
            *out = NULL;
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                             "gaussian sigma %g,%g: sigma_x must be positive and finite",
                             sigma_x, sigma_y);
    }
    if (sigma_y <= 0)
        sigma_y = sigma_x;
    oclconv_status s = gaussian_radius(sigma_x, &rx, 'x');
    if (s == OCLCONV_OK)
        s = gaussian_radius(sigma_y, &ry, 'y');
    if (s != OCLCONV_OK) {
        if (out)
            *out = NULL;
        return s;
    }
    return make_separable(rx, ry, gaussian_tap, sigma_x, sigma_y, out);
}

static oclconv_status make_3x3(const float w[9], oclconv_filter **out)
{
    return oclconv_filter_create(3, 3, w, out);
}

oclconv_status oclconv_filter_sharpen(float amount, oclconv_filter **out)
{
    if (!isfinite(amount)) {
        if (out)
            *out = NULL;
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "sharpen amount must be finite");
    }
    const float a = amount;
    const float w[9] = {0, -a, 0, -a, 1 + 4 * a, -a, 0, -a, 0};
    return make_3x3(w, out);
}

oclconv_status oclconv_filter_emboss(oclconv_filter **out)
{
    static const float w[9] = {-2, -1, 0, -1, 1, 1, 0, 1, 2};
    return make_3x3(w, out);
}

oclconv_status oclconv_filter_laplacian(oclconv_filter **out)
{
    static const float w[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    return make_3x3(w, out);
}

oclconv_status oclconv_filter_sobel_x(oclconv_filter **out)
{
    static const float row[3] = {-1, 0, 1}, col[3] = {1, 2, 1};
    return oclconv_filter_separable(3, row, 3, col, out);
}

oclconv_status oclconv_filter_sobel_y(oclconv_filter **out)
{
    static const float row[3] = {1, 2, 1}, col[3] = {-1, 0, 1};
    return oclconv_filter_separable(3, row, 3, col, out);
}
