/*
 * Box filters by running sums, so the cost does not grow with the radius.
 * box_rows: a work-group makes the row sums of a segment of a row, all
 * channels of a pixel at once, from prefix sums in local memory, into a
 * row_t scratch image with rows `pitch` values apart.  box_cols: one
 * work-item slides VEC values wide down a band of BAND rows, adding the row
 * that enters and subtracting the one that leaves.  Integer sources sum in
 * uint, exactly; float sources in double (or float without fp64),
 * restarting every segment and band so rounding cannot drift far.  Outside taps
 * of ZERO / CONSTANT / NORMALIZE add nothing; the last two are corrected
 * from the count of in-image taps, cx * cy, at the end.
 * Expects -DSUM_INT, -DNARROW_ROWS, -DBAND, -DSEGMENT besides common.cl's
 * macros.
 */
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

/* box_rows: a work-group of SEGMENT work-items makes the row sums of SEGMENT
 * pixels of one row.  Its line is the pixels from x0 - RX - 1 to
 * x0 + SEGMENT + RX - 1; with P the line's prefix sums, the window of
 * work-item i is P[i + 2 RX + 1] - P[i].  The line goes through local memory
 * in blocks of 2 SEGMENT pixels, loaded side by side and scanned there
 * (each work-item its two, then the SEGMENT pair totals), the earlier
 * blocks' total carried on.  Integer sums wrap modulo 2^32 and the
 * difference is still exact; double sums lose nothing that shows. */
#define BLOCK (2 * SEGMENT)
__kernel __attribute__((reqd_work_group_size(SEGMENT, 1, 1)))
void box_rows(__global const src_t *src, __global row_t *tmp, int width, int height, int pitch)
{
    __local px_t line[BLOCK], part[SEGMENT];
    int i = get_local_id(0), y = get_group_id(1), x = get_global_id(0);
    int first = (int)get_group_id(0) * SEGMENT - RX - 1, len = SEGMENT + 2 * RX + 1;
    __global const src_t *in = src + (size_t)y * width * CN;
    px_t lo = 0, hi = 0, carry = 0;
    for (int b0 = 0; b0 < len; b0 += BLOCK) {
        for (int k = i; k < BLOCK; k += SEGMENT) {
            int sx = b0 + k < len ? border_index(first + b0 + k, width) : -1;
            line[k] = sx >= 0 ? LOAD_PX(in + sx * CN) : (px_t)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        px_t pair0 = line[2 * i], pair1 = pair0 + line[2 * i + 1];
        part[i] = pair1;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = 1; d < SEGMENT; d *= 2) {
            px_t add = i >= d ? part[i - d] : (px_t)0;
            barrier(CLK_LOCAL_MEM_FENCE);
            part[i] += add;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        px_t before = carry + (i > 0 ? part[i - 1] : (px_t)0);
        line[2 * i] = before + pair0;
        line[2 * i + 1] = before + pair1;
        carry += part[SEGMENT - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
        int a = i - b0, c = i + 2 * RX + 1 - b0;
        if (a >= 0 && a < BLOCK)
            lo = line[a];
        if (c >= 0 && c < BLOCK)
            hi = line[c];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (x < width && y < height)
        STORE_ROW(hi - lo, tmp + (size_t)y * pitch + x * CN);
}

/* How many of the taps centred on i within radius r lie in 0..n-1. */
inline int taps_inside(int i, int r, int n)
{
    return min(i + r, n - 1) - max(i - r, 0) + 1;
}

/* The VEC output values from v0 of row y, from their window sums s: each
 * tap has the same `weight` (row tap * column tap, exact); CONSTANT adds
 * the outside taps' share, NORMALIZE rescales by all taps / inside taps. */
inline void finish_values(sumv_t s, int v0, int y, int width, int height, acc_t weight,
                          acc_t border_value, acc_t scale, acc_t delta, __global dst_t *out)
{
    int rowlen = width * CN;
    accv_t r = SUM_TO_ACC_V(s) * weight;
#if BORDER == BORDER_CONSTANT || BORDER == BORDER_NORMALIZE
    acc_t lanes[VEC];
    STORE_ACC_V(r, lanes);
    int cy = taps_inside(y, RY, height);
    for (int k = 0; k < VEC && v0 + k < rowlen; k++) {
        int inside = taps_inside((v0 + k) / CN, RX, width) * cy;
#if BORDER == BORDER_CONSTANT
        acc_t v = lanes[k] + border_value * (acc_t)(FW * FH - inside) * weight;
#else
        acc_t v = lanes[k] * ((acc_t)(FW * FH) / (acc_t)inside);
#endif
        out[k] = TO_DST(scale * v + delta);
    }
#else
    r = scale * r + delta;
    if (v0 + VEC <= rowlen) {
        STORE_V(r, out);
    } else {
        acc_t lanes[VEC];
        STORE_ACC_V(r, lanes);
        for (int k = 0; v0 + k < rowlen; k++)
            out[k] = TO_DST(lanes[k]);
    }
#endif
}


__kernel void box_cols(__global const row_t *tmp, __global dst_t *dst, int width, int height,
                       int pitch, acc_t weight, acc_t border_value, acc_t scale, acc_t delta)
{
    int v0 = get_global_id(0) * VEC, y0 = get_global_id(1) * BAND, rowlen = width * CN;
    if (v0 >= rowlen || y0 >= height)
        return;
    sumv_t s = 0;
    for (int j = -RY; j <= RY; j++) {
        int sy = border_index(y0 + j, height);
        if (sy >= 0)
            s += LOAD_ROW_V(tmp + (size_t)sy * pitch + v0);
    }
    int y_end = min(y0 + BAND, height);
    for (int y = y0; y < y_end; y++) {
        if (y > y0) {
            int enter = border_index(y + RY, height), leave = border_index(y - RY - 1, height);
            if (enter >= 0)
                s += LOAD_ROW_V(tmp + (size_t)enter * pitch + v0);
            if (leave >= 0)
                s -= LOAD_ROW_V(tmp + (size_t)leave * pitch + v0);
        }
        finish_values(s, v0, y, width, height, weight, border_value, scale, delta,
                      dst + (size_t)y * rowlen + v0);
    }
}

#ifdef FUSED
/*
 * CPUs: one work-item filters a band of BAND whole rows with no scratch
 * image in between.  It keeps the column sums of the current window, one
 * row of sum_t in `colsum` (its own slice of scratch, cache-resident),
 * slides them down a row by adding the row that enters and subtracting the
 * one that leaves, slides a window along them into `rowsum`, and finishes
 * that row VEC values at a time.
 */
/* One step of the window s along a row `in`, anywhere: the taps go
 * through border_index. */
#define SLIDE_PX(x)                                                               \
    do {                                                                          \
        int enter = border_index((x) + RX, width), leave = border_index((x) - RX - 1, width); \
        if (enter >= 0)                                                           \
            s += LOAD_PX(in + enter * CN);                                        \
        if (leave >= 0)                                                           \
            s -= LOAD_PX(in + leave * CN);                                        \
    } while (0)

/* colsum[v] += sign * row[v] for a whole row, VEC values at a time. */
inline void add_row(__global sum_t *colsum, __global const src_t *row, int rowlen, int sign)
{
    int v = 0;
    for (; v + VEC <= rowlen; v += VEC) {
        sumv_t r = CAT(convert_, CAT(SUM_NAME, VECN))(CAT(vload, VECN)(0, row + v));
        sumv_t c = LOAD_SUM_V(colsum + v);
        CAT(vstore, VECN)(sign > 0 ? c + r : c - r, 0, colsum + v);
    }
    for (; v < rowlen; v++)
        colsum[v] = sign > 0 ? colsum[v] + (sum_t)row[v] : colsum[v] - (sum_t)row[v];
}

__kernel void box_fused(__global const src_t *src, __global dst_t *dst, __global sum_t *scratch,
                        int width, int height, int pitch, acc_t weight, acc_t border_value,
                        acc_t scale, acc_t delta)
{
    int y0 = get_global_id(1) * BAND, rowlen = width * CN;
    if (get_global_id(0) != 0 || y0 >= height)
        return;
    __global sum_t *colsum = scratch + (size_t)get_global_id(1) * 2 * pitch;
    __global sum_t *rowsum = colsum + pitch;
    for (int v = 0; v < rowlen; v++)
        colsum[v] = 0;
    for (int j = -RY; j <= RY; j++) {
        int sy = border_index(y0 + j, height);
        if (sy >= 0)
            add_row(colsum, src + (size_t)sy * rowlen, rowlen, 1);
    }
    int y_end = min(y0 + BAND, height);
    for (int y = y0; y < y_end; y++) {
        if (y > y0) {
            int enter = border_index(y + RY, height), leave = border_index(y - RY - 1, height);
            if (enter >= 0)
                add_row(colsum, src + (size_t)enter * rowlen, rowlen, 1);
            if (leave >= 0)
                add_row(colsum, src + (size_t)leave * rowlen, rowlen, -1);
        }
        __global const sum_t *in = colsum;
        px_t s = 0;
        for (int i = -RX; i <= RX; i++) {
            int sx = border_index(i, width);
            if (sx >= 0)
                s += LOAD_PX(in + sx * CN);
        }
        STORE_PX(s, rowsum);
        int x = 1;
        for (; x < width && x - RX - 1 < 0; x++) {
            SLIDE_PX(x);
            STORE_PX(s, rowsum + x * CN);
        }
        for (int end = width - RX; x < end; x++) {
            s += LOAD_PX(in + (x + RX) * CN) - LOAD_PX(in + (x - RX - 1) * CN);
            STORE_PX(s, rowsum + x * CN);
        }
        for (; x < width; x++) {
            SLIDE_PX(x);
            STORE_PX(s, rowsum + x * CN);
        }
        for (int v0 = 0; v0 < rowlen; v0 += VEC)
            finish_values(LOAD_SUM_V(rowsum + v0), v0, y, width, height, weight, border_value,
                          scale, delta, dst + (size_t)y * rowlen + v0);
    }
}
#endif
