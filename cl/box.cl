/*
 * Box filters by window sums whose cost does not grow with the radius: in
 * one pass over lines of columns on GPUs (box_tile; 8-bit RGBA up to 15x15
 * in quads of pixels, box_quads, whose row sums grow with it), in one pass down bands
 * of whole rows on CPUs (box_fused), or in two passes through a scratch
 * image of row sums (rows `pitch` values apart) where a GPU's line would
 * not fit local memory.  Outside taps of ZERO / CONSTANT / NORMALIZE
 * add nothing; the last two are corrected from the count of in-image taps,
 * cx * cy, at the end.
 *  - Integer sources sum in uint, exactly, by running sums: a window is the
 *    one before it plus the value that enters minus the one that leaves
 *    (modulo 2^32, still exact).  box_tile and box_fused: see there;
 *    box_rows: a work-group makes the row sums of a segment of a row from
 *    prefix sums in local memory; box_cols: a work-item slides VEC values
 *    wide down a band of BAND rows.
 *  - Float sources sum in double.  box_check first finds whether every
 *    running sum of the image is exact (all values finite, multiples of
 *    the smallest one's last bit, and the sums small enough for double's
 *    53 bits): then the kernels above run as for integers and give exact
 *    sums.  Else box_walk_rows and box_walk_cols run instead: their sums
 *    never subtract (WINDOW_WALK), so each window adds its own values only
 *    and rounds like a direct sum, and a NaN, an infinity or a huge value
 *    stays in the windows that hold it.  Each kernel reads the check and
 *    returns at once when it is not the one to run.
 * A program is common.cl, this file and one shape's (src/path_box.c):
 * box_cpu.cl (box_fused) or box_gpu.cl (box_rows and box_cols, box_tile,
 * box_quads, the walks through local memory).  This file holds what both
 * share: the sums' types, the finish of a window sum, box_check, and the
 * walks a work-item makes alone (CPUs, and GPUs whose local memory holds
 * no walk's block).
 * Expects -DSUM_INT, -DNARROW_ROWS, -DBAND, -DSEGMENT, -DWALK_BAND,
 * -DWALK_MOST (and -DLINE, which box_check's bound reads, for box_tile)
 * besides common.cl's macros, and the shape file's own.
 */
/* The CPU shape's program takes the radii as arguments (-DRX=rx -DRY=ry
 * -DRADIUS_ARGS=1, src/plan.c): its running sums cost the same whatever
 * they are, so one program serves every box of a type and border.  The
 * kernels that read them end their parameters with RADII_PARAM, and so do
 * the helpers, which their callers pass RADII; GPU shapes, whose tiles and
 * quads are sized by the radii, keep them in the program, and both are
 * empty there. */
#if RADIUS_ARGS
#define RADII_PARAM , int rx, int ry
#define RADII , rx, ry
#else
#define RADII_PARAM
#define RADII
#endif
#if SUM_INT
#define SUM_NAME uint
#elif ACC_DOUBLE
#define SUM_NAME double
#else
#define SUM_NAME float
#endif
typedef SUM_NAME sum_t;
/* The CN values of one pixel. */
#if CN == 1
typedef sum_t px_t;
#define LOAD_PX(p) ((sum_t)(p)[0])
#define STORE_PX(v, p) ((p)[0] = (v))
#else
typedef CAT(SUM_NAME, CN) px_t;
#define LOAD_PX(p) CAT(convert_, CAT(SUM_NAME, CN))(CAT(vload, CN)(0, p))
#define STORE_PX(v, p) CAT(vstore, CN)(v, 0, p)
#endif
/* A pixel of dst_t stored in one access where its values are 2 or 4, as
 * LOAD_PIXEL (common.cl) loads the source's (LOAD_PX stays for sums, whose
 * rows are `pitch` apart). */
#if CN == 2 || CN == 4
#define STORE_DST_PX(v, p) (*(__global CAT(DST_NAME, CN) *)(p) = (v))
#else
#define STORE_DST_PX(v, p) CAT(vstore, CN)(v, 0, p)
#endif
/* The two-pass scratch holds row sums as row_t: ushort with -DNARROW_ROWS
 * (8-bit sources, rows of at most 257 taps: the sums fit), half the
 * traffic of uint. */
#if NARROW_ROWS
#define ROW_NAME ushort
#else
#define ROW_NAME SUM_NAME
#endif
typedef ROW_NAME row_t;
#if CN == 1
#define STORE_ROW(v, p) ((p)[0] = (row_t)(v))
#else
#define STORE_ROW(v, p) CAT(vstore, CN)(CAT(convert_, CAT(ROW_NAME, CN))(v), 0, p)
#endif
#if VEC == 1
#define LOAD_ROW_V(p) ((sum_t)(p)[0])
#else
#define LOAD_ROW_V(p) CAT(convert_, CAT(SUM_NAME, VEC))(CAT(vload, VEC)(0, p))
#endif
#if VEC == 1
typedef sum_t sumv_t;
#define LOAD_SUM_V(p) ((p)[0])
#define SUM_TO_ACC_V(s) ((acc_t)(s))
#else
typedef CAT(SUM_NAME, VEC) sumv_t;
#define LOAD_SUM_V(p) CAT(vload, VEC)(0, p)
#define SUM_TO_ACC_V(s) CAT(convert_, CAT(ACC_NAME, VEC))(s)
#endif

#if SUM_INT
#define CHECK_ARG
#define RUN_IF_EXACT(exact)
#else
/* box_check's findings: check[0] the bits of the largest |value| (NaN and
 * Inf the largest), check[1] the exponent of the last bit of the finest
 * nonzero value.  Every sum is exact in double when all values are
 * multiples of 2^check[1] and no sum reaches 2^(53 + check[1]); the
 * largest sums (a GPU row pass's prefixes over a line, the column and row
 * sums on CPUs) add at most SUM_TERMS values. */
#define CHECK_ARG , __global const uint *check
#ifdef LINE
#define SUM_TERMS ((double)max(LINE, FW + 1 + 2 * SEGMENT) * (double)(FH + 1))
#else
#define SUM_TERMS ((double)(FW + 1 + 2 * SEGMENT) * (double)(FH + 1))
#endif
static inline int sums_exact(__global const uint *check RADII_PARAM)
{
    uint top = check[0];
    return top == 0 || (top < 0x7f800000u &&
                        SUM_TERMS * (double)as_float(top) < ldexp(1.0, 53 + (int)check[1]));
}
#define RUN_IF_EXACT(exact)               \
    if (sums_exact(check RADII) != (exact)) \
        return
#endif

/* How many of the taps centred on i within radius r lie in 0..n-1. */
static inline int taps_inside(int i, int r, int n)
{
    return min(i + r, n - 1) - max(i - r, 0) + 1;
}

/* The output value of a sum of taps r (times their weight) at pixel x of row
 * y: CONSTANT adds the outside taps' share, NORMALIZE rescales by all taps
 * / inside taps. */
static inline dst_t finish_taps(acc_t r, int x, int y, int width, int height, acc_t weight,
                         acc_t border_value, acc_t scale, acc_t delta RADII_PARAM)
{
#if BORDER == BORDER_CONSTANT || BORDER == BORDER_NORMALIZE
    /* Only near the edges: elsewhere the correction adds 0 or scales by 1. */
    int inside = taps_inside(x, RX, width) * taps_inside(y, RY, height);
    if (inside != FW * FH) {
#if BORDER == BORDER_CONSTANT
        r = r + border_value * (acc_t)(FW * FH - inside) * weight;
#else
        r = r * ((acc_t)(FW * FH) / (acc_t)inside);
#endif
    }
#endif
    return TO_DST(scale * r + delta);
}

/* The VEC output values from v0 of row y, from their window sums s: each
 * tap has the same `weight` (row tap * column tap, exact); those before
 * v_end (the row's end, or a window's) stored from out on. */
static inline void finish_values(sumv_t s, int v0, int y, int width, int height, acc_t weight,
                                 acc_t border_value, acc_t scale, acc_t delta, int v_end,
                                 __global dst_t *out RADII_PARAM)
{
    int rowlen = width * CN;
    accv_t r = SUM_TO_ACC_V(s) * weight;
#if BORDER == BORDER_CONSTANT || BORDER == BORDER_NORMALIZE
    /* A value at a time only where some window passes the image's edge
     * (the windows of the vector's first and last values, RX * CN values
     * each side); elsewhere finish_taps() would change nothing, and the
     * vectors stay whole (PoCL, 4K: RGBA8 r7 CONSTANT 3.2x, NORMALIZE
     * 2.6-2.7x; u8 gray r31 1.3-2x and 1.5-1.7x; f32 gray r31 1.2x). */
    if (!all_taps_inside(y, RY, height) || !all_taps_inside(v0, RX * CN, rowlen) ||
        !all_taps_inside(v0 + VEC - 1, RX * CN, rowlen)) {
        acc_t lanes[VEC];
        STORE_ACC_V(r, lanes);
        for (int k = 0; k < VEC && v0 + k < v_end; k++)
            out[k] = finish_taps(lanes[k], (v0 + k) / CN, y, width, height, weight,
                                 border_value, scale, delta RADII);
        return;
    }
#endif
    r = scale * r + delta;
    if (v0 + VEC <= v_end) {
        STORE_V(r, out);
    } else {
        acc_t lanes[VEC];
        STORE_ACC_V(r, lanes);
        for (int k = 0; v0 + k < v_end; k++)
            out[k] = TO_DST(lanes[k]);
    }
}

#if !SUM_INT
typedef CAT(uint, VEC) uintv_t;
typedef CAT(int, VEC) intv_t;

/* Folds VEC values into the bits of the largest |value| and the exponent of
 * the finest last bit (values of 0 have none). */
static inline void fold_values(CAT(float, VEC) x, uintv_t *top, intv_t *grain)
{
    uintv_t bits = CAT(as_uint, VEC)(x) & 0x7fffffffu;
    uintv_t e = bits >> 23, m = (bits & 0x7fffffu) | (e != 0 ? 0x800000u : 0u);
    /* m's last bit, 2^k, has the float exponent field k + 127; the value is
     * m * 2^(max(e, 1) - 150). */
    uintv_t k = CAT(as_uint, VEC)(CAT(convert_float, VEC)(m & (0u - m))) >> 23;
    intv_t g = CAT(as_int, VEC)(max(e, 1u) + k) - (150 + 127);
    *top = max(*top, bits);
    *grain = min(*grain, select((intv_t)INT_MAX, g, CAT(as_int, VEC)(bits) != 0));
}

/* A work-item: blocks of `chunk` vectors of VEC values, every global-size-th
 * block from its own (GPUs: chunk 1, side by side; CPUs: one long block),
 * work-item 0 the last values padded with 0; then a group's findings go
 * into check (see sums_exact). */
__kernel void box_check(__global const src_t *src, ulong values, ulong chunk,
                        __global uint *check)
{
    uintv_t top = 0;
    intv_t grain = INT_MAX;
    ulong vectors = values / VEC;
    for (ulong b = get_global_id(0) * chunk; b < vectors; b += get_global_size(0) * chunk)
        for (ulong v = b * VEC; v < min(vectors, b + chunk) * VEC; v += VEC)
            fold_values(CAT(vload, VEC)(0, src + v), &top, &grain);
    if (get_global_id(0) == 0 && vectors * VEC < values) {
        float tail[VEC];
        for (int i = 0; i < VEC; i++)
            tail[i] = vectors * VEC + i < values ? src[vectors * VEC + i] : 0.0f;
        fold_values(CAT(vload, VEC)(0, tail), &top, &grain);
    }
    uint top1 = 0;
    int grain1 = INT_MAX;
    for (int i = 0; i < VEC; i++) {
        top1 = max(top1, ((uint *)&top)[i]);
        grain1 = min(grain1, ((int *)&grain)[i]);
    }
    /* The group's findings first, then one update of check a group. */
    __local uint group_top;
    __local int group_grain;
    if (get_local_id(0) == 0) {
        group_top = 0;
        group_grain = INT_MAX;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_max(&group_top, top1);
    atomic_min(&group_grain, grain1);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        atomic_max(&check[0], group_top);
        atomic_min((__global int *)&check[1], group_grain);
    }
}

/*
 * Window sums of F elements along a line that never subtract.  Cut the
 * line into blocks of F elements from its element 0: the window from
 * element m is the rest of m's block (its suffix from m) plus the start of
 * the next block up to m + F - 1 (a prefix), or m's whole block when m
 * starts one.  A walk backwards makes the suffixes of the windows' first
 * elements, one forwards the prefixes and the sums.  AT(t) is element t
 * (t from 0 to n + F - 2), EMIT(m, s) takes the sum of window m,
 * m < n <= WALK_BAND.
 */
#define WINDOW_WALK(T, F, n, AT, EMIT)                                         \
    do {                                                                       \
        T suf_[WALK_BAND], s_ = 0;                                             \
        int o_ = (F) - 1; /* t's offset in its block */                        \
        for (int t = ((n) - 1) / (F) * (F) + (F) - 1; t >= 0; t--) {           \
            s_ = o_ == (F) - 1 ? AT(t) : s_ + AT(t);                           \
            if (t < (n))                                                       \
                suf_[t] = s_;                                                  \
            o_ = o_ ? o_ - 1 : (F) - 1;                                        \
        }                                                                      \
        o_ = 0;                                                                \
        for (int t = 0; t < (n) + (F) - 1; t++) {                              \
            s_ = o_ ? s_ + AT(t) : AT(t);                                      \
            /* window t - F + 1 starts a block if t ends one */                \
            if (t >= (F) - 1)                                                  \
                EMIT(t - (F) + 1, o_ == (F) - 1 ? s_ : suf_[t - (F) + 1] + s_); \
            o_ = o_ == (F) - 1 ? 0 : o_ + 1;                                   \
        }                                                                      \
    } while (0)

/* The pixel at x of a row, or 0 for an outside tap. */
static inline px_t pixel_at(__global const src_t *in, int x, int width)
{
    int sx = border_index(x, width);
    return IS_PIXEL(sx) ? LOAD_PIXEL(SUM_NAME, in + sx * CN) : (px_t)0;
}

/* VEC row sums from v0 of row y, or 0 for a row outside. */
static inline sumv_t row_sums_at(__global const row_t *tmp, int pitch, int v0, int y, int height)
{
    int sy = border_index(y, height);
    return IS_PIXEL(sy) ? LOAD_ROW_V(tmp + (size_t)sy * pitch + v0) : (sumv_t)0;
}

#ifndef WALK_OUTS
/* A work-item: the row sums of row y, WALK_BAND pixels at a time from x0 =
 * its x times WALK_BAND, striding over the work-items along x (CPUs: one a
 * row). */
__kernel void box_walk_rows(__global const src_t *src, __global row_t *tmp, int width,
                            int height, int pitch CHECK_ARG RADII_PARAM)
{
    RUN_IF_EXACT(0);
    int y = get_global_id(1);
    if (y >= height)
        return;
    __global const src_t *in = src + (size_t)y * width * CN;
    for (int x0 = get_global_id(0) * WALK_BAND; x0 < width;
         x0 += get_global_size(0) * WALK_BAND) {
        __global row_t *out = tmp + (size_t)y * pitch + x0 * CN;
#define PIXEL(t) pixel_at(in, x0 - RX + (t), width)
#define ROW_SUM(m, s) STORE_ROW(s, out + (m) * CN)
        WINDOW_WALK(px_t, FW, min(WALK_BAND, width - x0), PIXEL, ROW_SUM);
    }
}
#endif

#ifndef WALK_ROWS
/* A work-item: VEC values from v0 of WALK_BAND output rows from y0. */
__kernel void box_walk_cols(__global const row_t *tmp, __global dst_t *dst, int width,
                            int height, int pitch, acc_t weight, acc_t border_value,
                            acc_t scale, acc_t delta CHECK_ARG RADII_PARAM)
{
    RUN_IF_EXACT(0);
    int v0 = get_global_id(0) * VEC, y0 = get_global_id(1) * WALK_BAND, rowlen = width * CN;
    if (v0 >= rowlen || y0 >= height)
        return;
#define ROW_SUMS(t) row_sums_at(tmp, pitch, v0, y0 - RY + (t), height)
#define FINISH(m, s)                                                                     \
    finish_values(s, v0, y0 + (m), width, height, weight, border_value, scale, delta,    \
                  rowlen, dst + (size_t)(y0 + (m)) * rowlen + v0 RADII)
    WINDOW_WALK(sumv_t, FH, min(WALK_BAND, height - y0), ROW_SUMS, FINISH);
}
#endif
#endif
