/*
 * The separable path, w[j][i] = col[j] * row[i], over rows of width * CN
 * values, each work-item VEC consecutive values.  Three ways:
 *  - separable_rows filters along x into an acc_t scratch image whose rows
 *    are `pitch` values apart (a multiple of VEC), separable_cols filters
 *    that along y into the destination, each work-item making several
 *    outputs from one load of each value their taps share (SLIDE; CPUs:
 *    for filters taller than a band's ring; GPUs: for rows too wide for a
 *    tile's registers, or halos too tall for its local memory);
 *  - separable_fused does both for CHUNKS vectors side by side down a band
 *    of BAND rows, keeping the row pass of the last FH rows in private
 *    memory, so nothing goes through scratch (CPUs: caches instead of
 *    memory traffic);
 *  - separable_tile does both for a tile of TILE_W * VEC values by
 *    TILE_H * PY rows: the work-group's row pass of those rows and RY more
 *    above and below goes to local memory (each row's from its aligned
 *    window, window_taps() in common.cl, where that fits, 8-bit rows of
 *    4 or 2 channels in segments of several work-items' values, or at the
 *    row's ends from edge_window_taps()), then each
 *    work-item slides down PY rows of it, every value loaded once (GPUs:
 *    one read of the source and one write of the destination); a pass
 *    whose taps are all equal adds its values, then weighs the sums
 *    (EQUAL_SUMS in common.cl).
 * NORMALIZE rescales in each pass, the in-image part of the filter being a
 * rectangle: the host gives each pass the rescale of every position whose
 * taps pass the image's edge.  All three add in the same order and give
 * the same values, but for a box's equal taps, which the tiles add in an
 * order of their own.
 * A program is common.cl, this file (what the three share, and
 * separable_rows and separable_cols) and, for a fused shape, separable_cpu.cl
 * (separable_fused) or separable_gpu.cl (separable_tile), as
 * src/path_separable.c names them.
 */

/* sum[k] += w[t - k] * v(t) for k < N, for t = 0 .. N + TAPS - 2 in turn:
 * each value v(t) loaded once and added to the N sums it belongs to, sum k
 * taking its taps in order from t = k.  The first and last N - 1 values
 * are unrolled with their conditions settled at compile time, and the ones
 * between, which every sum takes, go in a loop: any number of taps, the
 * sums still in registers.  LOAD(t) declares v, the value t. */
#define SLIDE(N, TAPS, w, sum, LOAD)                                               \
    do {                                                                           \
        _Pragma("unroll") for (int t = 0; t < (N) - 1; t++) {                      \
            LOAD(t);                                                               \
            _Pragma("unroll") for (int k = 0; k < (N); k++) if (t - k >= 0 &&      \
                                                                t - k < (TAPS))    \
                sum[k] += w[t - k] * v;                                            \
        }                                                                          \
        for (int t = (N) - 1; t < (TAPS); t++) {                                   \
            LOAD(t);                                                               \
            _Pragma("unroll") for (int k = 0; k < (N); k++) sum[k] += w[t - k] * v;\
        }                                                                          \
        _Pragma("unroll") for (int u = 0; u < (N) - 1; u++) {                      \
            int t = (TAPS) + u;                                                    \
            if (t < (N) - 1)                                                       \
                continue;                                                          \
            LOAD(t);                                                               \
            _Pragma("unroll") for (int k = 0; k < (N); k++) if (t - k >= 0 &&      \
                                                                t - k < (TAPS))    \
                sum[k] += w[t - k] * v;                                            \
        }                                                                          \
    } while (0)

/* A pixel's CN values as acc_t (a scalar for CN 1), stored whole where
 * they are 2 or 4 (the scratch image's rows are aligned). */
#if CN == 1
typedef acc_t accp_t;
#define STORE_PX_ACC(v, p) ((p)[0] = (v))
#elif CN == 3
typedef CAT(ACC_NAME, 3) accp_t;
#define STORE_PX_ACC(v, p) vstore3(v, 0, p)
#else
typedef CAT(ACC_NAME, CN) accp_t;
#define STORE_PX_ACC(v, p) (*(__global accp_t *)(p) = (v))
#endif

/* SLIDE's LOAD for a row pass: pixel x0 - RX + t of the row `in` as accp_t,
 * or the border value where border_index() finds none. */
#define ROW_PIXEL(t)                                                           \
    int sx = border_index(x0 - RX + (t), width);                               \
    accp_t v = IS_PIXEL(sx) ? LOAD_PIXEL(ACC_NAME, in + sx * CN) : (accp_t)border_value

/* NORMALIZE's rescales, all the taps' sum over those in the image, for
 * the positions of a pass whose taps pass the image's edge: the host's, in
 * double and rounded once, in a table of the r positions at the start, then
 * the r at the end from the last, or where n <= 2 r of every position.
 * edge_rescale() is 1 where all the taps lie in the image, so results there
 * are the other borders' to the bit.  A work-item finds its values'
 * rescales once for all its rows (row_rescales()): with a table load a
 * row, a tile's edge work-items, which the rest of the tile waits for,
 * made 0.8-0.95x the f32 gray r7 kernel's rate (NVIDIA, 8K and 4K). */
#define RESCALES __global const acc_t *
static inline acc_t edge_rescale(int i, int n, int r, RESCALES table)
{
    i = min(i, n - 1); /* a lane past the row's end, not stored */
    if (all_taps_inside(i, r, n))
        return 1;
    return table[n > 2 * r ? (i < r ? i : r + n - 1 - i) : i];
}

/* The row pass of VEC values from v0 of one source row. */
static inline accv_t row_pass(__global const src_t *in, int width, int v0, WEIGHTS row,
                       acc_t border_value)
{
    int rowlen = width * CN;
    /* (Equal taps added in registers take the route below, in
     * window_taps()' order; those added from chunk sums, EQUAL_ROW 2, this
     * one at the row's ends.) */
    if (EQUAL_ROW != 1 && v0 >= RX * CN && v0 + VEC + RX * CN <= rowlen) {
        accv_t sum = 0;
        __global const src_t *p = in + v0 - RX * CN;
        for (int i = 0; i < FW; i++)
            sum += row[i] * LOAD_V(p + i * CN);
        return sum;
    }
#if ROW_WINDOW && VEC % CN == 0
    /* GPUs: each pixel of the taps' window loaded once and added to the
     * sums it belongs to, not a load a tap of each value (the edge
     * work-items' tiles finish last: 4K gray f32 r7-r15 1.1-1.2x, REFLECT
     * 1.6-2x). */
    int x0 = v0 / CN;
    accp_t px[VEC / CN];
#if EQUAL_ROW == 1
    /* In window_taps()' order, so that a value is the same whichever way
     * a tile's work-item makes it. */
    EQUAL_SUMS(VEC / CN, FW, accp_t, px, ROW_PIXEL);
    return LOAD_ACC_V((acc_t *)px) * row[0];
#else
    for (int k = 0; k < VEC / CN; k++)
        px[k] = 0;
    SLIDE(VEC / CN, FW, row, px, ROW_PIXEL);
    return LOAD_ACC_V((acc_t *)px);
#endif
#else
    acc_t lanes[VEC];
    for (int k = 0; k < VEC; k++) {
        int x = (v0 + k) / CN, c = (v0 + k) % CN;
        acc_t sum = 0;
        for (int i = 0; i < FW && v0 + k < rowlen; i++) {
            int sx = border_index(x + i - RX, width);
            if (IS_PIXEL(sx))
                sum += row[i] * (acc_t)in[sx * CN + c];
            else
                sum += row[i] * border_value;
        }
        lanes[k] = sum;
    }
    return LOAD_ACC_V(lanes);
#endif
}

/* NORMALIZE: the rescale of output row y (1 for the other borders, which
 * do not use it). */
static inline acc_t col_rescale(int y, int height, RESCALES col_edges)
{
    return BORDER == BORDER_NORMALIZE ? edge_rescale(y, height, RY, col_edges) : 1;
}

/* NORMALIZE: the rescales of the VEC values from v0 along their row (1 for
 * the other borders), for the row passes of a work-item's rows. */
static inline accv_t row_rescales(int v0, int width, RESCALES row_edges)
{
    if (BORDER != BORDER_NORMALIZE ||
        (all_taps_inside(v0 / CN, RX, width) && all_taps_inside((v0 + VEC - 1) / CN, RX, width)))
        return 1;
    acc_t lanes[VEC];
    for (int k = 0; k < VEC; k++)
        lanes[k] = edge_rescale((v0 + k) / CN, width, RX, row_edges);
    return LOAD_ACC_V(lanes);
}

/* The column pass's end: NORMALIZE's rescale of the row, scale, delta;
 * stores the VEC values from v0 that lie in the row. */
static inline void store_result(accv_t sum, acc_t rescaled, acc_t scale, acc_t delta,
                         __global dst_t *out, int lanes_left)
{
#if BORDER == BORDER_NORMALIZE
    sum *= rescaled;
#endif
    accv_t r = scale * sum + delta;
    if (lanes_left >= VEC) {
        STORE_V(r, out);
    } else {
        acc_t lanes[VEC];
        STORE_ACC_V(r, lanes);
        for (int k = 0; k < lanes_left; k++)
            out[k] = TO_DST(lanes[k]);
    }
}

#ifdef SLIDE_X
/* The row pass into an acc_t scratch image whose rows are `pitch` values
 * apart (a multiple of VEC): a work-item makes SLIDE_X pixels of a row,
 * loading each pixel of their taps once (NVIDIA, RGBA8 r40-r63 and gray
 * r127: 3.3-3.8x a load a tap), or with SLIDE_X 0 the VEC values from
 * row_pass() (CPUs, whose vector loads a tap are cheap: on PoCL, gray
 * r40 1.2-2x SLIDE_X 8, RGBA8 0.8x). */
__kernel void separable_rows(__global const src_t *src, __global acc_t *tmp, int width,
                             int height, int pitch, WEIGHTS row, acc_t border_value,
                             RESCALES row_edges)
{
    STACKED(src, (size_t)width * height * CN);
    STACKED(tmp, (size_t)pitch * height);
#if SLIDE_X == 0
    int v0 = get_global_id(0) * VEC, y = get_global_id(1);
    if (v0 >= width * CN || y >= height)
        return;
    accv_t h = row_pass(src + (size_t)y * width * CN, width, v0, row, border_value) *
               row_rescales(v0, width, row_edges);
    STORE_ACC_V(h, tmp + (size_t)y * pitch + v0);
#else
    int x0 = get_global_id(0) * SLIDE_X, y = get_global_id(1);
    if (x0 >= width || y >= height)
        return;
    __global const src_t *in = src + (size_t)y * width * CN;
    accp_t sum[SLIDE_X];
    for (int k = 0; k < SLIDE_X; k++)
        sum[k] = 0;
    SLIDE(SLIDE_X, FW, row, sum, ROW_PIXEL);
#if BORDER == BORDER_NORMALIZE
    for (int k = 0; k < SLIDE_X; k++)
        sum[k] *= edge_rescale(x0 + k, width, RX, row_edges);
#endif
    for (int k = 0; k < SLIDE_X && x0 + k < width; k++)
        STORE_PX_ACC(sum[k], tmp + (size_t)y * pitch + (x0 + k) * CN);
#endif
}

/* The column pass from that scratch image: a work-item makes VEC values of
 * SLIDE_Y rows, loading each scratch row of their taps once.  `outside_row`
 * is what a whole row outside the image contributes after the row pass:
 * border_value * sum(row) for CONSTANT, else 0. */
__kernel void separable_cols(__global const acc_t *tmp, __global dst_t *dst, int width,
                             int height, int pitch, WEIGHTS col, acc_t outside_row, acc_t scale,
                             acc_t delta, RESCALES col_edges)
{
    STACKED(tmp, (size_t)pitch * height);
    STACKED(dst, (size_t)width * height * CN);
    int v0 = get_global_id(0) * VEC, y0 = get_global_id(1) * SLIDE_Y, rowlen = width * CN;
    if (v0 >= rowlen || y0 >= height)
        return;
    accv_t sum[SLIDE_Y];
    for (int k = 0; k < SLIDE_Y; k++)
        sum[k] = 0;
#define ROW(t)                                                                 \
    int sy = border_index(y0 - RY + (t), height);                              \
    accv_t v = IS_PIXEL(sy) ? *(__global const accv_t *)(tmp + (size_t)sy * pitch + v0)   \
                            : (accv_t)outside_row
    SLIDE(SLIDE_Y, FH, col, sum, ROW);
#undef ROW
    for (int k = 0; k < SLIDE_Y && y0 + k < height; k++) {
        int y = y0 + k;
        store_result(sum[k], col_rescale(y, height, col_edges), scale, delta,
                     dst + (size_t)y * rowlen + v0, rowlen - v0);
    }
}
#endif
