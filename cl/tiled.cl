/*
 * The tiled path: a TX x TY work-group converts its tile of the source, with
 * the filter's halo, into __local memory once (borders settled there); each
 * work-item then makes VEC consecutive values of each of ROWS rows, every
 * source row's window of taps read from the tile once for all the
 * work-item's rows that take it.  Expects -DTX -DTY -DROWS (VEC a multiple
 * of 4) besides common.cl's macros; src/path_tiled.c sizes the tile to the
 * device's local memory.  Each output adds its tap rows in order, each
 * row's taps in order, as the buffer kernel does: the same sums (with
 * ROW_SUMS, common.cl, each row's sum is its own first).
 */
#define TILE_V (TX * VEC)                /* values of a tile row */
#define TILE_W (TILE_V + 2 * WIN_PAD)    /* values of a tile row with its halo */
#define TILE_H (TY * ROWS + 2 * RY)      /* rows with the halo */
#define TILE_WIN (VEC + 2 * WIN_PAD)     /* a work-item's window of a row */

typedef CAT(ACC_NAME, 4) acc4_t;

/* The source's values gv .. gv + 3 of row y (a multiple of 4 from the
 * tile's first), through the border where they pass the image.  The tile
 * is read and written in whole vectors of 4: NVIDIA's compiler splits a
 * vload4 from __local it cannot prove aligned into 4 loads, which the
 * work-items' strides put on the same banks. */
static inline acc4_t fill_quad(__global const src_t *src, int width, int height, int y, int gv,
                               acc_t border_value)
{
    int rowlen = width * CN, sy = border_index(y, height);
    if (IS_PIXEL(sy) && gv >= 0 && gv + 4 <= rowlen) {
        __global const src_t *p = src + (size_t)sy * rowlen + gv;
        if (((size_t)p & (4 * sizeof(src_t) - 1)) == 0)
            return LOAD_ALIGNED4(p);
        return SCALED(CAT(convert_, CAT(ACC_NAME, 4))(vload4(0, p)));
    }
    acc_t q[4];
    for (int k = 0; k < 4; k++) {
        int v = gv + k, x = v >= 0 ? v / CN : -((CN - 1 - v) / CN), sx = border_index(x, width);
        q[k] = IS_PIXEL(sy) && IS_PIXEL(sx)
                   ? SCALED((acc_t)src[((size_t)sy * width + sx) * CN + v - x * CN])
                   : border_value;
    }
    return (acc4_t)(q[0], q[1], q[2], q[3]);
}

/* The FW taps of one tile row's window for the VEC values, in tap order. */
#define TILE_TAPS(sum, win, w)                                                 \
    _Pragma("unroll") for (int i = 0; i < FW; i++) sum +=                      \
        (w)[i] * LOAD_ACC_V((win) + WIN_PAD - RX * CN + i * CN)

static inline void tile_window(acc_t *win, __local const acc4_t *row)
{
#pragma unroll
    for (int k = 0; k < TILE_WIN / 4; k++)
        vstore4(row[k], 0, win + 4 * k);
}

__kernel __attribute__((reqd_work_group_size(TX, TY, 1))) void
convolve_tiled(__global const src_t *src, __global dst_t *dst, int width, int height, TAPS_2D,
               acc_t border_value, acc_t scale, acc_t delta, acc_t wsum)
{
    TAKE_TAPS_2D;
    __local acc4_t tile[TILE_H * TILE_W / 4];
    STACKED(src, (size_t)width * height * CN);
    STACKED(dst, (size_t)width * height * CN);
    int lx = get_local_id(0), ly = get_local_id(1), rowlen = width * CN;
    int gv0 = get_group_id(0) * TILE_V - WIN_PAD, gy0 = get_group_id(1) * TY * ROWS - RY;
    for (int t = ly * TX + lx; t < TILE_H * (TILE_W / 4); t += TX * TY) {
        int r = t / (TILE_W / 4), q = t % (TILE_W / 4) * 4;
        tile[t] = fill_quad(src, width, height, gy0 + r, gv0 + q, border_value);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int v0 = get_global_id(0) * VEC, y0 = get_global_id(1) * ROWS;
    if (v0 >= rowlen || y0 >= height)
        return;
#if BORDER == BORDER_NORMALIZE
    /* Outputs whose taps pass the edges rescale by their in-image weights. */
    if (!(v0 >= RX * CN && v0 + VEC + RX * CN <= rowlen && y0 >= RY &&
          y0 + ROWS - 1 + RY < height)) {
        for (int y = y0; y < y0 + ROWS && y < height; y++)
            for (int v = v0; v < v0 + VEC && v < rowlen; v++)
                dst[(size_t)y * rowlen + v] = value_2d(src, rowlen, width, height, v / CN, y,
                                                       v % CN, w, border_value, scale, delta, wsum);
        return;
    }
#endif
    __local const acc4_t *first = tile + (ly * ROWS * TILE_W + lx * VEC) / 4;
    totalv_t total[ROWS];
#pragma unroll
    for (int k = 0; k < ROWS; k++)
        total[k] = 0;
#if ROWS == 1
    for (int j = 0; j < FH; j++) {
        acc_t win[TILE_WIN];
        tile_window(win, first + j * (TILE_W / 4));
        IN_ROW_V(total[0], row, TILE_TAPS(row, win, w + j * FW));
    }
#else
    /* Tile row t is tap row t - k of output row k (see convolve_buffer). */
#pragma unroll
    for (int t = 0; t < ROWS + FH - 1; t++) {
        acc_t win[TILE_WIN];
        tile_window(win, first + t * (TILE_W / 4));
#pragma unroll
        for (int k = 0; k < ROWS; k++)
            if (t - k >= 0 && t - k < FH)
                IN_ROW_V(total[k], row, TILE_TAPS(row, win, w + (t - k) * FW));
    }
#endif
    accv_t sum[ROWS];
#pragma unroll
    for (int k = 0; k < ROWS; k++)
        sum[k] = TOTAL_ACC_V(total[k]);
    __global dst_t *out = dst + (size_t)y0 * rowlen + v0;
    if (v0 + VEC <= rowlen && y0 + ROWS <= height) {
        store_rows(sum, scale, delta, out, rowlen);
        return;
    }
    for (int k = 0; k < ROWS && y0 + k < height; k++) {
        acc_t lanes[VEC];
        STORE_ACC_V(scale * sum[k] + delta, lanes);
        for (int p = 0; p < VEC && v0 + p < rowlen; p++)
            out[(size_t)k * rowlen + p] = TO_DST(lanes[p]);
    }
}
