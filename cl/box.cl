/*
 * Box filters by running sums, so the cost does not grow with the radius.
 * box_rows: one work-item slides a window along one channel of one row,
 * adding the value that enters and subtracting the one that leaves, into a
 * sum_t scratch image with rows `pitch` values apart.  box_cols: one
 * work-item slides VEC values wide down a band of BAND rows.  Integer
 * sources sum in uint, exactly; float sources in double (or float without
 * fp64), restarting every band so rounding cannot drift far.  Outside taps
 * of ZERO / CONSTANT / NORMALIZE add nothing; the last two are corrected
 * from the count of in-image taps, cx * cy, at the end.
 * Expects -DSUM_INT, -DBAND besides common.cl's macros.
 */
#if SUM_INT
#define SUM_NAME uint
#elif ACC_DOUBLE
#define SUM_NAME double
#else
#define SUM_NAME float
#endif
typedef SUM_NAME sum_t;
#if VEC == 1
typedef sum_t sumv_t;
#define LOAD_SUM_V(p) ((p)[0])
#define SUM_TO_ACC_V(s) ((acc_t)(s))
#else
typedef CAT(SUM_NAME, VEC) sumv_t;
#define LOAD_SUM_V(p) CAT(vload, VEC)(0, p)
#define SUM_TO_ACC_V(s) CAT(convert_, CAT(ACC_NAME, VEC))(s)
#endif

/* Where a row's running sum starts afresh: once for exact integer sums,
 * every 256 values for float sums. */
#if SUM_INT
#define RESTART(x) ((x) == 0)
#else
#define RESTART(x) ((x) % 256 == 0)
#endif

__kernel void box_rows(__global const src_t *src, __global sum_t *tmp, int width, int height,
                       int pitch)
{
    int c = get_global_id(0), y = get_global_id(1);
    if (c >= CN || y >= height)
        return;
    __global const src_t *in = src + (size_t)y * width * CN + c;
    __global sum_t *out = tmp + (size_t)y * pitch + c;
    sum_t s = 0;
    for (int x = 0; x < width; x++) {
        if (RESTART(x)) {
            s = 0;
            for (int i = -RX; i <= RX; i++) {
                int sx = border_index(x + i, width);
                if (sx >= 0)
                    s += (sum_t)in[sx * CN];
            }
        } else {
            int enter = border_index(x + RX, width), leave = border_index(x - RX - 1, width);
            if (enter >= 0)
                s += (sum_t)in[enter * CN];
            if (leave >= 0)
                s -= (sum_t)in[leave * CN];
        }
        out[x * CN] = s;
    }
}

/* How many of the taps centred on i within radius r lie in 0..n-1. */
inline int taps_inside(int i, int r, int n)
{
    return min(i + r, n - 1) - max(i - r, 0) + 1;
}

/* `weight` is the one weight every tap has (row tap * column tap, exact). */
__kernel void box_cols(__global const sum_t *tmp, __global dst_t *dst, int width, int height,
                       int pitch, acc_t weight, acc_t border_value, acc_t scale, acc_t delta)
{
    int v0 = get_global_id(0) * VEC, y0 = get_global_id(1) * BAND, rowlen = width * CN;
    if (v0 >= rowlen || y0 >= height)
        return;
    sumv_t s = 0;
    for (int j = -RY; j <= RY; j++) {
        int sy = border_index(y0 + j, height);
        if (sy >= 0)
            s += LOAD_SUM_V(tmp + (size_t)sy * pitch + v0);
    }
    int y_end = min(y0 + BAND, height);
    for (int y = y0; y < y_end; y++) {
        if (y > y0) {
            int enter = border_index(y + RY, height), leave = border_index(y - RY - 1, height);
            if (enter >= 0)
                s += LOAD_SUM_V(tmp + (size_t)enter * pitch + v0);
            if (leave >= 0)
                s -= LOAD_SUM_V(tmp + (size_t)leave * pitch + v0);
        }
        accv_t r = SUM_TO_ACC_V(s) * weight;
        __global dst_t *out = dst + (size_t)y * rowlen + v0;
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
}
