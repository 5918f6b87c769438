/*
 * Precision: whether a job's float sums keep the contract's exactness
 * (DESIGN.md, "Exactness, stated once"), else sums in double, else a
 * refusal.  The bounds count every rounding a path makes.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* Shewchuk's partials (as Python's math.fsum): each holds bits of the sum
 * that no other does, so a double's exponent range bounds their number. */
void oclconv__sum_add(oclconv__sum *s, double x)
{
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
    if (s->n < OCLCONV_SUM_PARTS)
        s->part[s->n++] = x;
}

double oclconv__sum_value(const oclconv__sum *s)
{
    double sum = 0;
    for (int i = s->n - 1; i >= 0; i--)
        sum += s->part[i];
    return sum;
}

/* Largest magnitude a source value (or the constant border) can have. */
double oclconv__max_input(const oclconv__job *job)
{
    double m = job->src->type == OCLCONV_U8    ? 255
               : job->src->type == OCLCONV_U16 ? 65535
                                               : INFINITY;
    if (job->opt.border == OCLCONV_BORDER_CONSTANT && fabs(job->opt.border_value) > m)
        m = fabs(job->opt.border_value);
    return m;
}

/* Whether NORMALIZE's rescale, all the weights over those in the image,
 * stays well within a float's range (2^128) for weights of one sign: it is
 * at most all of them over the smallest in magnitude. */
int oclconv__float_rescale_finite(const oclconv_filter *f)
{
    return f->abs_sum < 0x1p100 * f->min_magnitude;
}

/* Whether a pass's taps are all the same (a box's): the GPU tiles then add
 * the values in their own order (cl/common.cl's EQUAL_SUMS). */
int oclconv__taps_equal(const float *w, int n)
{
    for (int k = 1; k < n; k++)
        if (w[k] != w[0])
            return 0;
    return 1;
}

/* The roundings of one pass of float multiply-adds over taps w, in units of
 * u X sum|w|, X bounding the values.  The kernels take a pass's taps in
 * order (a 2-D filter's row by row), so the addition of tap k rounds by at
 * most u |s_k| <= u X P_k, P_k = |w_0| + ... + |w_k| (adding a zero is
 * exact), and the products by u X P_n in all: 1 + the sum of P_k / P_n over
 * the taps not zero, and never more than the n of a cruder count.  A
 * Gaussian's partial sums average half the whole, so it counts about half
 * its taps.  That bounds the error of a result whose tolerance is
 * absolute, an integer one; a float result's is 1e-5 of its own terms,
 * which a window's first values may hold all of, so there the count is n.
 * NORMALIZE scales a separable pass's sum by the host's rescale (all the
 * taps' sum over the in-image ones', rounded once): with the product and
 * the weights' rounding to floats, 4 more than the sum's R, for the
 * in-image range of the pass's taps (each holds the centre tap) whose R is
 * the largest; 1 where every tap is inside.  A 2-D kernel sums its
 * in-image weights itself, over a rectangle, not a range of its order:
 * the crude count, twice n and 4.  So does a pass whose taps are all
 * equal, which the GPU tiles add in another order: n, what any order
 * gives (n - 1 additions and the product, each of the pass's own terms). */
static double pass_roundings(const oclconv__job *job, const float *wf, const double *wd, int n)
{
    int normalize = job->opt.border == OCLCONV_BORDER_NORMALIZE;
    double crude = !normalize ? n : wd ? 2.0 * n + 4 : n + 4.0, *q = NULL;
    if (job->dst->type != OCLCONV_F32 && n <= 1024 && !(normalize && wd) &&
        !(wf && oclconv__taps_equal(wf, n)))
        q = malloc(3 * ((size_t)n + 1) * sizeof *q);
    if (!q)
        return crude;
    /* Prefix sums to tap k - 1: q of |w|, p of q at the taps not zero, z
     * their count; taps a .. b - 1 then count 1 + (p[b] - p[a] - (z[b] -
     * z[a]) q[a]) / (q[b] - q[a]). */
    double *p = q + n + 1, *z = p + n + 1;
    q[0] = p[0] = z[0] = 0;
    for (int k = 1; k <= n; k++) {
        double w = wf ? wf[k - 1] : wd[k - 1];
        q[k] = q[k - 1] + fabs(w);
        p[k] = p[k - 1] + (w != 0 ? q[k] : 0);
        z[k] = z[k - 1] + (w != 0);
    }
    int centre = n / 2;
    double most = 0;
    for (int a = 0; a <= (normalize ? centre : 0); a++)
        for (int b = normalize ? centre + 1 : n; b <= n; b++)
            if (q[b] > q[a]) {
                double r = 1 + (p[b] - p[a] - (z[b] - z[a]) * q[a]) / (q[b] - q[a]);
                most = fmax(most, normalize && b - a < n ? r + 4 : r);
            }
    free(q);
    return fmin(most, crude);
}

int oclconv__paired_pass(const oclconv__job *job, const float *w, int n)
{
    /* A row of 3 taps of several channels keeps the tap order (the
     * kernel's SHUFFLED_ROWS), so that this count is the kernel's. */
    if (!job->cpu_shapes || job->src->type == OCLCONV_F32 ||
        job->method != OCLCONV_METHOD_SEPARABLE || job->filter->height > OCLCONV_BAND_TAPS ||
        (w == job->filter->row && n <= 3 && job->src->channels > 1))
        return 0;
    for (int i = 0; i < n / 2; i++)
        if (w[i] != w[n - 1 - i])
            return 0;
    return 1;
}

/* The roundings of the taps a .. b - 1 (the centre among them) of a pass
 * that the CPU bands add in pairs (cl/separable_cpu.cl SUM_PAIRED): pair
 * j's two values added (exact where one is a zero outside the image or
 * the values are a row pass's integers, else rounded once), weighed, and
 * added to the sum of the pairs outside it, which rounds by at most u X
 * Q_j, Q_j the magnitudes' sum of the range's taps of pairs 0 .. j; the
 * centre tap last.  In units of u X the range's magnitudes' sum. */
static double paired_range(const float *w, int n, int a, int b, int column)
{
    double all = 0, outside = 0, sums = 0;
    int pairs = 0;
    for (int k = a; k < b; k++)
        all += fabs(w[k]);
    for (int j = 0; j < n / 2; j++) {
        int first = j >= a && w[j] != 0, last = n - 1 - j < b && w[n - 1 - j] != 0;
        if (first || last) {
            outside += (first ? fabs(w[j]) : 0) + (last ? fabs(w[n - 1 - j]) : 0);
            sums += outside;
            pairs |= first && last;
        }
    }
    if (w[n / 2] != 0)
        sums += all;
    return all > 0 ? 1 + (column && pairs) + sums / all : 0;
}

/* pass_roundings() for a pass added in pairs: the whole range, or under
 * NORMALIZE the worst in-image range with its rescale's 4; at most n and
 * the column's pair sums, what any order gives, and that for float
 * results and passes of more than 129 taps. */
static double paired_roundings(const oclconv__job *job, const float *w, int n, int column)
{
    int normalize = job->opt.border == OCLCONV_BORDER_NORMALIZE;
    double crude = (normalize ? n + 4.0 : n) + column, most = 0;
    if (job->dst->type == OCLCONV_F32 || n > 129)
        return crude;
    for (int a = 0; a <= (normalize ? n / 2 : 0); a++)
        for (int b = normalize ? n / 2 + 1 : n; b <= n; b++) {
            double r = paired_range(w, n, a, b, column);
            most = fmax(most, normalize && b - a < n ? r + 4 : r);
        }
    return fmin(most, crude);
}

/* A separable pass's roundings, in tap order or in the CPU bands' pairs. */
static double separable_pass(const oclconv__job *job, const float *w, int n, int column)
{
    return oclconv__paired_pass(job, w, n) ? paired_roundings(job, w, n, column)
                                           : pass_roundings(job, w, NULL, n);
}

/* The bound on how far a path's sums can move an integer result, for
 * sums rounding by u: `roundings` counts every rounding it makes on the
 * way, in units of u X sum|w| as above (passes, scratch stores, scale,
 * delta), `extra` a known error of the weights.  Where the terms cannot
 * cancel (weights, values and the border value of one sign), each
 * rounding is relative to the sum itself, and only sums whose result
 * lands near the output's range can move a result: the bound is then the
 * smaller of the two. */
static double int_bound(const oclconv__job *job, double roundings, double extra, double u)
{
    const oclconv_filter *f = job->filter;
    double scale = fabs(job->opt.scale), delta = fabs(job->opt.delta);
    double bound = (roundings * u * f->abs_sum + extra) * oclconv__max_input(job) * scale +
                   2 * u * delta;
    int one_sign = job->src->type != OCLCONV_F32 && !f->has_negative &&
                   !(job->opt.border == OCLCONV_BORDER_CONSTANT && job->opt.border_value < 0);
    if (one_sign) {
        double top = (job->dst->type == OCLCONV_U8 ? 255 : 65535) + 1 + delta;
        bound = fmin(bound, roundings * u * top + extra * oclconv__max_input(job) * scale +
                                2 * u * delta);
    }
    return bound;
}

/* Whether a path's float sums could miss the contract: where the bound
 * above could move an integer result by 1e-3, the tests' window around
 * rounding ties, or a float result by 1e-5 of its terms, the path
 * accumulates in double instead. */
static int needs_double(const oclconv__job *job, double roundings, double extra)
{
    const double u = 0x1p-24 * 1.01;
    const oclconv_filter *f = job->filter;
    /* NORMALIZE: the in-image sum can cancel, or the rescale overflow a
     * float. */
    if (job->opt.border == OCLCONV_BORDER_NORMALIZE &&
        (f->has_negative || !oclconv__float_rescale_finite(f)))
        return 1;
    if (job->dst->type == OCLCONV_F32)
        return roundings * u + extra / (f->abs_sum ? f->abs_sum : 1) > 1e-5;
    double scale = fabs(job->opt.scale);
    double bound = (roundings * u * f->abs_sum + extra) * oclconv__max_input(job) * scale +
                   2 * u * fabs(job->opt.delta);
    return !(bound < 1e-3);
}

/* Whether float sums could pass a float's range (2^128) before the scale
 * applies: every partial sum is at most sum|w| X the largest input (the
 * constant border's included), and the box path weighs the border's taps
 * by their count first.  A float image's own values are known only as the
 * kernels run, so for them only the border counts (see the header). */
static int float_range_short(const oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    double border = job->opt.border == OCLCONV_BORDER_CONSTANT ? fabs(job->opt.border_value) : 0;
    double values = job->src->type == OCLCONV_F32 ? border : oclconv__max_input(job);
    double most = values * f->abs_sum;
    if (job->method == OCLCONV_METHOD_BOX)
        most = fmax(most, border * (double)f->width * (double)f->height);
    return !(most < 0x1p126);
}

/* The least k >= 0 with 2^k >= 2 m: weights of magnitudes summing to m,
 * times 2^-k, keep every partial sum of values up to FLT_MAX under half
 * of it, room for the sums' rounding. */
static int shift_for(double m)
{
    int e;
    double f = frexp(m, &e); /* m = f 2^e, 0.5 <= f < 1 */
    int k = f == 0.5 ? e : e + 1;
    return m > 0 && k > 0 ? k : 0;
}

/* Whether each non-zero tap times 2^-k stays a normal float. */
static int taps_shift_exactly(const float *taps, int n, int k)
{
    for (int i = 0; i < n; i++)
        if (taps[i] != 0 && !(fabs(ldexp(taps[i], -k)) >= FLT_MIN))
            return 0;
    return 1;
}

void oclconv__range_shifts(oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    job->shift[0] = job->shift[1] = job->value_shift = 0;
    if (job->src->type != OCLCONV_F32 || job->acc_double || job->method == OCLCONV_METHOD_BOX)
        return;
    int exact;
    if (job->method == OCLCONV_METHOD_SEPARABLE) {
        double row = 0, col = 0;
        for (int i = 0; i < f->width; i++)
            row += fabs(f->row[i]);
        for (int j = 0; j < f->height; j++)
            col += fabs(f->col[j]);
        /* Equal taps add their values first: the row's source values, the
         * column's row results, as many at once as the pass has taps. */
        if (job->equal_row)
            job->value_shift = shift_for(f->width);
        if (job->equal_col) {
            row *= f->height;
            col /= f->height;
        }
        job->shift[0] = shift_for(row);
        job->shift[1] = shift_for(col);
        exact = taps_shift_exactly(f->row, f->width, job->shift[0]) &&
                taps_shift_exactly(f->col, f->height, job->shift[1]);
    } else {
        job->shift[0] = shift_for(f->abs_sum);
        exact = !(f->min_magnitude > 0 && !(ldexp(f->min_magnitude, -job->shift[0]) >= FLT_MIN));
    }
    /* The scale takes the shifts back: it must stay a finite float. */
    if (!exact || !(fabs(oclconv__shifted_scale(job)) <= FLT_MAX))
        job->shift[0] = job->shift[1] = job->value_shift = 0;
}

double oclconv__shifted_scale(const oclconv__job *job)
{
    return ldexp((float)job->opt.scale, job->shift[0] + job->shift[1] + job->value_shift);
}

/* Whether every weight is a float already (else uploading rounds them). */
static int weights_are_floats(const oclconv_filter *f)
{
    for (size_t k = 0; k < (size_t)f->width * (size_t)f->height; k++)
        if ((double)(float)f->weights[k] != f->weights[k])
            return 0;
    return 1;
}

/* Scale and delta round once each. */
static double tail_roundings(const oclconv__job *job)
{
    return (job->opt.scale != 1) + (job->opt.delta != 0);
}

/* The roundings the planned path makes and the known error of its
 * weights, as needs_double() counts them. */
static void path_roundings(const oclconv__job *job, double *roundings, double *extra)
{
    const oclconv_filter *f = job->filter;
    double tail = tail_roundings(job);
    *extra = 0;
    switch (job->method) {
    case OCLCONV_METHOD_SEPARABLE:
        *roundings = separable_pass(job, f->row, f->width, 0) +
                     separable_pass(job, f->col, f->height, 1) + tail;
        *extra = f->separable_error;
        return;
    case OCLCONV_METHOD_BOX:
        /* Integer sums are exact, then converted and weighted, and
         * NORMALIZE's count of in-image taps rescales them. */
        *roundings = 5 + tail +
                     (job->opt.border == OCLCONV_BORDER_NORMALIZE ? f->width + f->height + 2 : 0);
        return;
    case OCLCONV_METHOD_RUNS:
        /* Exact integer sums, each level's weighed and added once (at
         * most a run a level), its in-image weights too. */
        *roundings = 4 * (double)f->runs + 4 + tail;
        return;
    case OCLCONV_METHOD_FFT:
        /* The transforms' own bound is the FFT path's (path_fft.c); here
         * the final scale and delta. */
        *roundings = 2 + tail;
        return;
    default:
        *roundings = pass_roundings(job, NULL, f->weights, f->width * f->height) +
                     !weights_are_floats(f) + tail;
        return;
    }
}

/* The direct 2-D paths' row sums (cl/buffer.cl and cl/tiled.cl,
 * ROW_SUMS), for integer results of integer images and for float results:
 * each tap row summed in float, the rows' sums added in double, their
 * total rounded to float once.  A row's roundings are of its own weights'
 * size, which together are all of them, so the float roundings are at
 * most the worst row's; with the conversion, the doubles' additions (FH
 * of 2^-29 float units) and the scale and delta.  Whether that keeps the
 * contract where one float sum would not.  (A float result's bound is
 * relative to its terms' size, so the analysis holds for float images
 * too, whose partial sums the weights' shift keeps in range as in one
 * float sum; an integer result of a float image has no such bound.) */
static int row_sums_keep(const oclconv__job *job, double extra)
{
    const oclconv_filter *f = job->filter;
    if ((job->method != OCLCONV_METHOD_TILED && job->method != OCLCONV_METHOD_BUFFER) ||
        (job->src->type == OCLCONV_F32 && job->dst->type != OCLCONV_F32) ||
        job->opt.border == OCLCONV_BORDER_NORMALIZE)
        return 0;
    double most = 0;
    for (int j = 0; j < f->height; j++)
        most = fmax(most, pass_roundings(job, NULL, f->weights + (size_t)j * (size_t)f->width,
                                         f->width));
    double roundings =
        most + 1 + f->height * 0x1p-29 + !weights_are_floats(f) + tail_roundings(job);
    return !needs_double(job, roundings, extra);
}

oclconv_status oclconv__precision(oclconv_context *ctx, oclconv__job *job)
{
    double roundings, extra;
    path_roundings(job, &roundings, &extra);
    int out_of_range = float_range_short(job);
    /* Float sources sum in double on the box path regardless. */
    int want = (job->method == OCLCONV_METHOD_BOX && !job->sum_int) ||
               job->method == OCLCONV_METHOD_RUNS || job->method == OCLCONV_METHOD_FFT ||
               needs_double(job, roundings, extra) || out_of_range;
    job->row_sums = want && ctx->facts.fp64 && !out_of_range && row_sums_keep(job, extra);
    want = want && !job->row_sums;
    job->acc_double = ctx->facts.fp64 && want;
    if (out_of_range && !job->acc_double)
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "this filter's sums over values up to %g pass a float's range "
                             "(weights' magnitudes sum to %g), and this device lacks double",
                             job->src->type == OCLCONV_F32 ? fabs(job->opt.border_value)
                                                           : oclconv__max_input(job),
                             job->filter->abs_sum);
    if (job->opt.border == OCLCONV_BORDER_NORMALIZE && !job->acc_double &&
        !oclconv__float_rescale_finite(job->filter))
        return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                             "NORMALIZE's rescale of this filter (all its weights over the "
                             "smallest) passes a float's range, and this device lacks double");
    /* Integer images: where even double's rounding could move a result by
     * 1e-3, no path keeps the contract (a CONSTANT border of 1e38 beside
     * values of 255, or weights whose terms cancel far above the result). */
    if (job->acc_double && job->src->type != OCLCONV_F32 && job->dst->type != OCLCONV_F32) {
        double bound = int_bound(job, roundings, extra, 0x1p-53 * 1.01);
        if (!(bound < 1e-3))
            return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                                 "this filter's sums (weights' magnitudes summing to %g, over "
                                 "values up to %g, scale %g) can round by %.3g even in double, "
                                 "past the 0.001 integer results allow: no path keeps them exact",
                                 job->filter->abs_sum, oclconv__max_input(job),
                                 (double)job->opt.scale, bound);
    }
    return OCLCONV_OK;
}
