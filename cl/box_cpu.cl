/*
 * Box filters on CPUs (see box.cl, which comes before this file in the
 * program): box_fused, a work-item a band of whole rows.
 * Expects -DFUSED besides box.cl's macros.
 */
#ifdef FUSED
/*
 * CPUs: one work-item filters a band of BAND whole rows with no scratch
 * image in between.  It keeps the column sums of the current window, one
 * row of sum_t in `colsum` (its own slice of scratch, cache-resident),
 * slides them down a row by adding the row that enters and subtracting the
 * one that leaves, slides a window along them into `rowsum`, and finishes
 * that row VEC values at a time.  The rows made are those of the window
 * the destination is (keep_w values by keep_h rows from value keep_x of
 * row keep_y: the image, or a region's kept rectangle), into rows
 * dst_pitch values apart; the source's lie src_pitch apart.
 */
/* One step of the window s along a row `in`, anywhere: the taps go
 * through border_index. */
#define SLIDE_PX(x)                                                               \
    do {                                                                          \
        int enter = border_index((x) + RX, width), leave = border_index((x) - RX - 1, width); \
        if (IS_PIXEL(enter))                                                      \
            s += LOAD_PX(in + enter * CN);                                        \
        if (IS_PIXEL(leave))                                                      \
            s -= LOAD_PX(in + leave * CN);                                        \
    } while (0)

/* colsum[v] += sign * row[v] for a whole row, VEC values at a time. */
static inline void add_row(__global sum_t *colsum, __global const src_t *row, int rowlen, int sign)
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
                        acc_t scale, acc_t delta CHECK_ARG RADII_PARAM, int src_pitch,
                        int dst_pitch, int keep_x, int keep_y, int keep_w, int keep_h)
{
    RUN_IF_EXACT(1);
    int y0 = keep_y + get_global_id(1) * BAND, rowlen = width * CN;
    if (get_global_id(0) != 0 || y0 >= keep_y + keep_h)
        return;
    __global sum_t *colsum = scratch + (size_t)get_global_id(1) * 2 * pitch;
    __global sum_t *rowsum = colsum + pitch;
    for (int v = 0; v < rowlen; v++)
        colsum[v] = 0;
    for (int j = -RY; j <= RY; j++) {
        int sy = border_index(y0 + j, height);
        if (IS_PIXEL(sy))
            add_row(colsum, src + (size_t)sy * src_pitch, rowlen, 1);
    }
    int y_end = min(y0 + BAND, keep_y + keep_h);
    for (int y = y0; y < y_end; y++) {
        if (y > y0) {
            int enter = border_index(y + RY, height), leave = border_index(y - RY - 1, height);
            if (IS_PIXEL(enter))
                add_row(colsum, src + (size_t)enter * src_pitch, rowlen, 1);
            if (IS_PIXEL(leave))
                add_row(colsum, src + (size_t)leave * src_pitch, rowlen, -1);
        }
        __global const sum_t *in = colsum;
        px_t s = 0;
        for (int i = -RX; i <= RX; i++) {
            int sx = border_index(i, width);
            if (IS_PIXEL(sx))
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
        for (int v0 = keep_x; v0 < keep_x + keep_w; v0 += VEC)
            finish_values(LOAD_SUM_V(rowsum + v0), v0, y, width, height, weight, border_value,
                          scale, delta, keep_x + keep_w,
                          dst + (size_t)(y - keep_y) * dst_pitch + v0 - keep_x RADII);
    }
}
#endif
