/*
 * The buffer path: a row is width * CN values; one work-item computes VEC
 * consecutive values of one row.  Where every tap of those values lies in the
 * image (most of it), taps are vector loads VEC values wide with no border
 * test (on GPUs each row's from its window: window_taps()); near the edges
 * each value takes the general route through border_index().
 */

/* One output value (x, y, channel c) the general way. */
static inline dst_t value_2d(__global const src_t *src, int width, int height, int x, int y, int c,
                      WEIGHTS w, acc_t border_value, acc_t scale, acc_t delta, acc_t wsum)
{
    acc_t sum = 0, win = 0;
    for (int j = 0; j < FH; j++) {
        int sy = border_index(y + j - RY, height);
        for (int i = 0; i < FW; i++) {
            int sx = border_index(x + i - RX, width);
            acc_t wt = w[j * FW + i];
            if (sx >= 0 && sy >= 0) {
                sum += wt * (acc_t)src[((size_t)sy * width + sx) * CN + c];
                win += wt;
            } else {
                sum += wt * border_value;
            }
        }
    }
    return finish_value(sum, window_2d(win, wsum, x, y, width, height), wsum, scale, delta);
}

/* GPUs take the taps by value where they fit (see separable_tile). */
#if TAPS_BY_VALUE
typedef struct { acc_t w[FW * FH]; } taps_t;
#define BUFFER_TAPS taps_t taps
#else
#define BUFFER_TAPS WEIGHTS w
#endif
__kernel void convolve_buffer(__global const src_t *src, __global dst_t *dst, int width,
                              int height, BUFFER_TAPS, acc_t border_value, acc_t scale,
                              acc_t delta, acc_t wsum)
{
#if TAPS_BY_VALUE
    WEIGHTS w = taps.w;
#endif
    int v0 = get_global_id(0) * VEC, y = get_global_id(1), rowlen = width * CN;
    if (v0 >= rowlen || y >= height)
        return;
    __global dst_t *out = dst + (size_t)y * rowlen + v0;
    int inside_x = v0 >= RX * CN && v0 + VEC + RX * CN <= rowlen;
    int inside_y = !BORDER_HAS_OUTSIDE || (y >= RY && y + RY < height);
    if (inside_x && inside_y) {
        accv_t sum = 0;
        /* Decided once, outside the loop over rows: decided inside it,
         * u8 gray r1 measured 0.73-0.88x on NVIDIA. */
        if (window_fits(src, rowlen, v0)) {
            for (int j = 0; j < FH; j++)
                sum = window_taps(sum, src + (size_t)border_index(y + j - RY, height) * rowlen,
                                  v0, w + j * FW);
        } else {
            for (int j = 0; j < FH; j++) {
                __global const src_t *p =
                    src + (size_t)border_index(y + j - RY, height) * rowlen + v0 - RX * CN;
                for (int i = 0; i < FW; i++)
                    sum += w[j * FW + i] * LOAD_V(p + i * CN);
            }
        }
        STORE_V(scale * sum + delta, out);
        return;
    }
    for (int k = 0; k < VEC && v0 + k < rowlen; k++) {
        int v = v0 + k;
        out[k] = value_2d(src, width, height, v / CN, y, v % CN, w, border_value, scale, delta,
                          wsum);
    }
}
