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
inline acc_t edge_rescale(int i, int n, int r, RESCALES table)
{
    i = min(i, n - 1); /* a lane past the row's end, not stored */
    if (all_taps_inside(i, r, n))
        return 1;
    return table[n > 2 * r ? (i < r ? i : r + n - 1 - i) : i];
}

/* The row pass of VEC values from v0 of one source row. */
inline accv_t row_pass(__global const src_t *in, int width, int v0, WEIGHTS row,
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
inline acc_t col_rescale(int y, int height, RESCALES col_edges)
{
    return BORDER == BORDER_NORMALIZE ? edge_rescale(y, height, RY, col_edges) : 1;
}

/* NORMALIZE: the rescales of the VEC values from v0 along their row (1 for
 * the other borders), for the row passes of a work-item's rows. */
inline accv_t row_rescales(int v0, int width, RESCALES row_edges)
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
inline void store_result(accv_t sum, acc_t rescaled, acc_t scale, acc_t delta,
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

#ifdef BAND
/* sum[c] = the sum over taps i < TAPS of w[i] * VALUE, for c < CHUNKS
 * (VALUE names c and i): tap by tap across the vectors, so that CHUNKS
 * independent sums are in flight, not one chain of dependent multiply-adds
 * a vector that waits on itself; each sum still takes its taps in order
 * (PoCL, 4K: u8 gray Gaussian r1 1.6-2x, r7 1.5x, RGBA8 r3 1.2-1.5x, which
 * permutes of converted vectors had gained 1.07-1.22x). */
#define SUM_ACROSS(sum, TAPS, w, VALUE)                                        \
    do {                                                                       \
        _Pragma("unroll") for (int c = 0; c < CHUNKS; c++) sum[c] = 0;         \
        for (int i = 0; i < (TAPS); i++) {                                     \
            acc_t w_i = (w)[i];                                                \
            _Pragma("unroll") for (int c = 0; c < CHUNKS; c++) sum[c] += w_i * (VALUE); \
        }                                                                      \
    } while (0)

/* Source rows a band's work-item asks the caches for ahead of its row
 * pass.  Its walk goes down rows, and rows more than a 4 KB page apart
 * (RGBA8, RGB8 and f32 rows of 4K images) leave the hardware prefetchers
 * behind, so each row's first loads waited on memory.  PoCL's prefetch()
 * built-in emits no instruction; clang's, where the compiler has it, does.
 * CPU devices only (PREFETCH, from the host): a GPU compiler given these
 * bands (OCLCONV_TUNE=cpu) may have no such instruction
 * (PoCL, 4K, three alternating rounds against no prefetch: RGBA8
 * Gaussians r1 1.25-1.27x, r3 1.40-1.43x, r5 3.07-3.31x, r7 1.77-2.07x,
 * r11-r15 1.05-1.16x; RGB8 r7 1.76-2.29x, r1 0.91-0.95x; f32 gray r3-r11
 * 1.52-1.90x; RGBA16 r7 2.53-2.58x; u8 gray, whose rows are 3840 bytes
 * apart, 0.92-1.36x; 2 rows ahead gained less, 8 and 16 no more). */
#define PREFETCH_ROWS 4
inline void prefetch_bytes(__global const src_t *p, int bytes)
{
#if PREFETCH && defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
    __global const uchar *b = (__global const uchar *)p;
    for (int i = 0; i < bytes + 63; i += 64)
        __builtin_prefetch((const void *)(ulong)(b + i));
#endif
#endif
}

/* A work-item: CHUNKS vectors side by side (CHUNKS * VEC values of a row)
 * down a band of BAND rows.  Each source row's row pass goes into a ring of
 * the last FH rows, and each output row is made as soon as its FH rows are
 * in, so rows are read and written along their length and the ring stays
 * in L1/L2. */
__kernel void separable_fused(__global const src_t *src, __global dst_t *dst, int width,
                              int height, WEIGHTS row, WEIGHTS col, acc_t border_value,
                              RESCALES row_edges, acc_t outside_row, acc_t scale, acc_t delta,
                              RESCALES col_edges)
{
    int v0 = get_global_id(0) * CHUNKS * VEC, y0 = get_global_id(1) * BAND, rowlen = width * CN;
    if (v0 >= rowlen || y0 >= height)
        return;
    int rows = min(BAND, height - y0), chunks = min(CHUNKS, (rowlen - v0 + VEC - 1) / VEC);
    /* Each row twice, FH apart, so no read wraps; vectors past the row's
     * end stay 0. */
    accv_t ring[2 * FH * CHUNKS];
    for (int k = 0; k < 2 * FH * CHUNKS; k++)
        ring[k] = 0;
    int whole = chunks == CHUNKS && v0 >= RX * CN && v0 + CHUNKS * VEC + RX * CN <= rowlen;
    for (int t = 0; t < rows + 2 * RY; t++) {
        int sy = border_index(y0 - RY + t, height);
        accv_t *slot = ring + t % FH * CHUNKS;
        int ahead = border_index(y0 - RY + t + PREFETCH_ROWS, height);
        if (whole && t + PREFETCH_ROWS < rows + 2 * RY && IS_PIXEL(ahead))
            prefetch_bytes(src + (size_t)ahead * rowlen + v0 - RX * CN,
                           (CHUNKS * VEC + 2 * RX * CN) * (int)sizeof(src_t));
        if (whole && IS_PIXEL(sy)) {
            __global const src_t *in = src + (size_t)sy * rowlen + v0 - RX * CN;
            accv_t h[CHUNKS];
            SUM_ACROSS(h, FW, row, LOAD_V(in + c * VEC + i * CN));
#pragma unroll
            for (int c = 0; c < CHUNKS; c++)
                slot[c] = slot[FH * CHUNKS + c] = h[c];
        } else {
            for (int c = 0; c < chunks; c++) {
                accv_t h = IS_PIXEL(sy) ? row_pass(src + (size_t)sy * rowlen, width,
                                                   v0 + c * VEC, row, border_value) *
                                              row_rescales(v0 + c * VEC, width, row_edges)
                                        : (accv_t)outside_row;
                slot[c] = slot[FH * CHUNKS + c] = h;
            }
        }
        if (t < 2 * RY)
            continue;
        /* Output row k takes rows k .. k + 2 RY, oldest first: ring rows
         * k % FH and on. */
        int k = t - 2 * RY, y = y0 + k, first = k % FH;
        acc_t rescaled = col_rescale(y, height, col_edges);
        accv_t sum[CHUNKS];
        SUM_ACROSS(sum, FH, col, ring[(first + i) * CHUNKS + c]);
#pragma unroll
        for (int c = 0; c < CHUNKS; c++)
            if (c < chunks)
                store_result(sum[c], rescaled, scale, delta,
                             dst + (size_t)y * rowlen + v0 + c * VEC, rowlen - v0 - c * VEC);
    }
}
#endif

#ifdef TILE_W
#define TILE_ROWS (TILE_H * PY + 2 * RY)
#define ROW_TRIPS ((TILE_ROWS + TILE_H - 1) / TILE_H)
/* The last trip's work-items past the tile's rows skip it, where they are
 * a sixteenth of the trips' rows or more (NVIDIA, 8K and 4K: RGBA8
 * Gaussians r1 1.02-1.04x, r7 1.04-1.06x); with fewer, splitting the last
 * trip's loads from the others' cost more than the work it saved (f32 r7
 * 0.94x, u8 gray r7 0.97x). */
#define SPARE_ROWS (ROW_TRIPS * TILE_H - TILE_ROWS)
#define SKIP_SPARE_ROWS (SPARE_ROWS * 16 >= ROW_TRIPS * TILE_H)
/* A tile row of 32-byte vectors (float8, double4) is kept as two planes of
 * 16-byte halves: GPUs access local memory 16 bytes a lane at most, and a
 * warp's 16-byte accesses 32 bytes apart meet each bank twice (NVIDIA,
 * RGBA8 Gaussian r1-r15 and box r1: 1.05-1.08x at 8K). */
#if VEC == 8 && !ACC_DOUBLE
#define HOR_HALF float4
#elif VEC == 4 && ACC_DOUBLE
#define HOR_HALF double2
#endif
/* Rows HOR_PAD vectors longer than the tile, so that a row segment's
 * store spreads over more of local memory's banks (src/plan.c). */
#define HOR_W (TILE_W + HOR_PAD)
#ifdef HOR_HALF
#define HOR_DECL __local HOR_HALF hor[2][TILE_ROWS * HOR_W]
#define HOR_SET(i, v) (hor[0][i] = (v).lo, hor[1][i] = (v).hi)
#define HOR_GET(i) ((accv_t)(hor[0][i], hor[1][i]))
#else
#define HOR_DECL __local accv_t hor[TILE_ROWS * HOR_W]
#define HOR_SET(i, v) (hor[i] = (v))
#define HOR_GET(i) (hor[i])
#endif
/* The taps come by value (-DTAPS_BY_VALUE): NVIDIA keeps kernel arguments
 * in a constant bank that a multiply-add reads directly, where taps behind
 * a __constant pointer take a load each and a register to hold it (RGBA8
 * r3 66 registers -> 60, r15 64 -> 58; 8K and 4K, RGBA8 Gaussians r3-r15
 * 1.02-1.16x, f32 r15 1.04-1.11x, u8 gray r3 1.03-1.1x, r1 level). */
#if EQUAL_ROW == 2
/*
 * -DEQUAL_ROW=2: a gray row of equal taps too wide to add in registers
 * (float boxes from r15), from sums of chunks, a chunk being the VEC
 * values one work-item makes.  Every window of a work-item holds the
 * 2 CHUNK_K - 1 chunks around its own whole and at most 2 VEC - 2 values
 * on each side: the window of value k is the CHUNK_L0 values before those
 * chunks from the k-th on, the chunks' sum, and the first
 * CHUNK_L0 - VEC + 1 + k values after them.  A work-group sums the chunks
 * its rows' windows reach into local memory, then each work-item adds
 * 2 CHUNK_K - 1 chunk sums and its windows' two ends, where its row
 * window took 2 RX + VEC multiply-adds a value (NVIDIA, 8K and 4K, f32
 * gray box r19 1.10-1.24x, r27 1.21-1.27x, r31 1.25-1.38x, r35 1.32-1.47x;
 * r9-r13 0.92-1.08x).  Each window adds its own values only, so it rounds
 * as any order of them does.
 */
#define CHUNK_K ((RX + 1) / VEC)
#define CHUNK_L0 (RX + VEC - CHUNK_K * VEC)
#define CHUNK_RIGHT (CHUNK_L0 + (2 * CHUNK_K - 1) * VEC) /* the right end's first */
#define CHUNKS_A_ROW (TILE_W + 2 * CHUNK_K - 2)
#define CHUNK_TRIPS ((CHUNKS_A_ROW + TILE_W - 1) / TILE_W)
/* Where the trips have room for a chunk more on each side, a work-item's
 * loads start a chunk earlier: its first is then its windows' left end's
 * chunk, and where 2 CHUNK_K is a multiple of TILE_W its last the right
 * end's, so those need no load of their own (NVIDIA, 8K / 4K, f32 gray box
 * r23-r27 1.08-1.14x / 1.05-1.10x, r31 1.07-1.12x / 0.99-1.08x, r39
 * 1.09-1.13x / 1.06-1.13x; r15-r19 level). */
#define CHUNK_SHIFT (CHUNKS_A_ROW + 2 <= CHUNK_TRIPS * TILE_W)
#define CHUNK_RIGHT_LOADED (CHUNK_SHIFT && 2 * CHUNK_K % TILE_W == 0)
/* Rows of chunk sums an odd number of TILE_W apart, so that the rows of a
 * warp meet different banks. */
#define CHUNK_STRIDE ((CHUNK_TRIPS | 1) * TILE_W)
#define CHUNK_LEFT (WIN_PAD - RX) /* the left end's first in win */
#define CHUNK_END_BLOCK(k)                                                     \
    (((k) + 4 > CHUNK_LEFT && (k) < CHUNK_LEFT + CHUNK_L0) ||                   \
     ((k) + 4 > CHUNK_LEFT + CHUNK_RIGHT && (k) < CHUNK_LEFT + CHUNK_RIGHT + CHUNK_L0))
/* A column of equal taps likewise, from sums of chunks of PY rows, in the
 * room the rows' chunk sums took: output k of a work-item adds its own
 * rows from the k-th, COL_MID chunk sums below them and the next
 * COL_REST + k rows (NVIDIA, 8K and 4K, against the column's values added
 * one by one: f32 gray box r27 1.04-1.09x, r31 1.07-1.14x, r35
 * 1.03-1.09x, r15-r23 0.97-1.05x; with the work-item's rows held in
 * registers rather than read twice, 80 registers to 64, 0.95-1.05x). */
#define COL_MID (FH / PY - 1)
#define COL_REST (FH % PY)
#define CHUNK_COL (EQUAL_COL && COL_MID >= 1)
/* The room of the rows' CHUNK_BUFS buffers of chunk sums, or of the
 * columns' if larger, in vectors (src/plan.c's chunk_bytes()): two
 * buffers, one barrier a trip, where they fit beside the tile, else one
 * and two barriers (NVIDIA, 8K and 4K, one against two: f32 gray box
 * r23-r36 0.91-1.01x; where two do not fit, r37-r39, against the
 * multiply-adds 1.26-1.58x). */
#define CHUNK_ROW_ROOM (CHUNK_BUFS * TILE_H * CHUNK_STRIDE)
#define CHUNK_COL_ROOM (CHUNK_COL ? (TILE_H + COL_MID) * TILE_W * VEC : 0)
#define CHUNK_ROOM                                                             \
    (((CHUNK_ROW_ROOM > CHUNK_COL_ROOM ? CHUNK_ROW_ROOM : CHUNK_COL_ROOM) + VEC - 1) / VEC)

/* The two ends of the windows of the VEC values from v0 of a row whose
 * window fits (window_fits()), into win as window_taps() places them; the
 * chunks the work-item loaded, `loaded`, hold some (CHUNK_SHIFT). */
inline void chunk_ends(__global const src_t *row, int v0, const accv_t *loaded, acc_t *win)
{
#pragma unroll
    for (int k = 0; k < WIN_LEN; k += 4)
        if (CHUNK_END_BLOCK(k))
            vstore4(CHUNK_SHIFT && k == WIN_PAD - CHUNK_K * VEC ? loaded[0]
                    : CHUNK_RIGHT_LOADED && k == WIN_PAD + CHUNK_K * VEC
                        ? loaded[CHUNK_TRIPS - 1]
                        : LOAD_ALIGNED4(row + v0 - WIN_PAD + k),
                    0, win + k);
}

/* Those values' windows, from their ends and the chunk sums `cs` from the
 * work-item's first. */
inline accv_t chunk_window(const acc_t *win, __local const acc_t *cs, WEIGHTS w)
{
    const acc_t *end = win + CHUNK_LEFT;
    acc_t mid[2] = {cs[0], cs[1]}, out[VEC], run = 0;
#pragma unroll
    for (int d = 2; d < 2 * CHUNK_K - 1; d++)
        mid[d % 2] += cs[d];
    acc_t chunks = CHUNK_K > 1 ? mid[0] + mid[1] : cs[0];
#pragma unroll
    for (int k = 0; k < VEC; k++)
        out[k] = 0;
#pragma unroll
    for (int i = CHUNK_L0 - 1; i >= 0; i--) {
        run += end[i];
        if (i < VEC)
            out[i] = run;
    }
    run = 0;
#pragma unroll
    for (int k = 0; k < VEC; k++)
        out[k] += chunks;
#pragma unroll
    for (int i = CHUNK_RIGHT; i < CHUNK_RIGHT + CHUNK_L0; i++) {
        run += end[i];
        if (i >= 2 * RX)
            out[i - 2 * RX] += run;
    }
    return LOAD_ACC_V(out) * w[0];
}
#endif

/*
 * 8-bit rows of 4 or 2 channels in float from r3: the tile's row pass in
 * segments of SEG_PX pixels a work-item (RGBA 4, from r5 8; two channels
 * 8: two to four tile work-items' values), SEGS to a tile row and
 * SEG_ROWS rows a trip, each from one load of the 16-byte chunks of its
 * window, SEG_PAD pixels each side; a window pixel is converted for its
 * segment, not for each work-item whose window holds it, and comes in a
 * fifth to a tenth as many loads.  The taps go in SLIDE's order, which is
 * window_taps()' for each value, so the values are the same to the bit.
 * Where a work-group's windows lie in the row and the rows are 16-byte
 * aligned (segments_fit()); the rest take the work-items' own windows
 * (NVIDIA, 8K / 4K, against those: RGBA8 r3 1.06-1.07x / 1.01-1.08x, r5
 * 1.08-1.10x / 1.06-1.08x, r7 1.17x / 1.13-1.15x, r11 1.20-1.21x /
 * 1.19-1.22x, r15 1.29-1.30x / 1.25-1.29x; two channels r3 1.08-1.15x /
 * 0.94-1.11x, r7 1.20-1.25x / 1.10-1.22x, r15 1.28-1.33x / 1.24-1.33x;
 * r1 0.81-0.95x, gray r5-r15 1.03-1.15x / 0.86-1.14x).
 */
#define ROW_SEGMENTS                                                           \
    (WINDOWS && EQUAL_ROW == 0 && !ACC_DOUBLE && SRC_TYPE == 0 && (CN == 4 || CN == 2) && \
     VEC % CN == 0 && RX >= 3)
#define CHUNK_PX (16 / CN)
#define SEG_PX (CN == 4 && RX >= 5 ? 8 : CHUNK_PX)
#define SEGS (TILE_W * VEC / CN / SEG_PX)
#define SEG_ROWS (TILE_W * TILE_H / SEGS)
#define SEG_TRIPS ((TILE_ROWS + SEG_ROWS - 1) / SEG_ROWS)
#define SEG_PAD ((RX + CHUNK_PX - 1) / CHUNK_PX * CHUNK_PX)
#define SEG_CHUNKS ((2 * SEG_PAD + SEG_PX) / CHUNK_PX)
inline bool segments_fit(__global const src_t *src, int rowlen, int g0)
{
    return ((size_t)src & 15) == 0 && rowlen % 16 == 0 && g0 >= SEG_PAD * CN &&
           g0 + TILE_W * VEC + SEG_PAD * CN <= rowlen;
}
/* SLIDE's LOAD for a segment: its window's pixel t from the chunks, the
 * 32-bit word q_ of chunk o_ / 16 holding it. */
#define SEG_PIXEL(t)                                                           \
    int o_ = (SEG_PAD - RX + (t)) * CN, q_ = o_ % 16 / 4;                       \
    uint4 c_ = chunk[o_ / 16];                                                  \
    uchar4 b_ = as_uchar4(q_ == 0 ? c_.s0 : q_ == 1 ? c_.s1 : q_ == 2 ? c_.s2 : c_.s3); \
    accp_t v = SEG_VALUE(b_, o_ % 4)
#if CN == 4
#define SEG_VALUE(b, k) convert_float4(b)
#else
#define SEG_VALUE(b, k) convert_float2((k) == 0 ? (b).s01 : (b).s23)
#endif

typedef struct { acc_t w[FW]; } row_taps_t;
typedef struct { acc_t w[FH]; } col_taps_t;
__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1)))
void separable_tile(__global const src_t *src, __global dst_t *dst, int width, int height,
                    row_taps_t row_taps, col_taps_t col_taps, acc_t border_value,
                    RESCALES row_edges, acc_t outside_row, acc_t scale, acc_t delta,
                    RESCALES col_edges)
{
    WEIGHTS row = row_taps.w;
    WEIGHTS col = col_taps.w;
    HOR_DECL;
    int lx = get_local_id(0), ly = get_local_id(1), rowlen = width * CN;
    int v0 = (int)get_global_id(0) * VEC, y0 = (int)get_group_id(1) * TILE_H * PY;
    /* Every row's loads unconditional (a row outside the image loads row 0
     * and drops it), so they can all be in flight at once: TRIPS trips of
     * a work-item's rows t0 = FIRST, FIRST + STEP, ..., the last skipped
     * where SKIP and t0 is past the tile; BODY finds row t of the tile at
     * `in` and stores only where t0 is in it. */
#define TRIPS_OF(FIRST, STEP, TRIPS, SKIP, ...)                                    \
    _Pragma("unroll") for (int n = 0; n < (TRIPS); n++) {                          \
        int t0 = (FIRST) + n * (STEP);                                             \
        if ((SKIP) && n == (TRIPS) - 1 && t0 >= TILE_ROWS)                         \
            break;                                                                 \
        int t = min(t0, TILE_ROWS - 1), sy = border_index(y0 - RY + t, height);    \
        __global const src_t *in = src + (size_t)max(sy, 0) * rowlen;            \
        __VA_ARGS__                                                                \
    }
#define ROW_TRIPS_OF(TAPS)                                                         \
    TRIPS_OF(ly, TILE_H, ROW_TRIPS, SKIP_SPARE_ROWS, accv_t h = TAPS;              \
             if (t0 < TILE_ROWS)                                                   \
                 HOR_SET(t * HOR_W + lx, IS_PIXEL(sy) ? h : (accv_t)outside_row);)
#if EQUAL_ROW == 2
    /* A trip of TILE_H rows at a time: the chunk sums of its rows (every
     * work-item, where rows are aligned as window_fits() wants them) into
     * a buffer, then the windows. */
    __local accv_t chunk_room[CHUNK_ROOM];
    int q_first = (int)get_group_id(0) * TILE_W - CHUNK_K + 1 - CHUNK_SHIFT;
    int last = rowlen / VEC - 1;
    bool aligned = window_fits(src, rowlen, WIN_PAD), fits = window_fits(src, rowlen, v0);
    for (int n = 0; n < ROW_TRIPS; n++) {
        int t = min(ly + n * TILE_H, TILE_ROWS - 1), sy = border_index(y0 - RY + t, height);
        __global const src_t *in = src + (size_t)max(sy, 0) * rowlen;
        __local acc_t *cs =
            (__local acc_t *)chunk_room + (n % CHUNK_BUFS * TILE_H + ly) * CHUNK_STRIDE;
        acc_t win[WIN_LEN];
        accv_t loaded[CHUNK_TRIPS];
#pragma unroll
        for (int m = 0; m < CHUNK_TRIPS; m++)
            loaded[m] = aligned ? LOAD_ALIGNED4(in + clamp(q_first + lx + m * TILE_W, 0, last) * VEC)
                                : 0;
        if (fits)
            chunk_ends(in, v0, loaded, win);
        if (CHUNK_BUFS == 1 && n > 0) /* the trip before has read the buffer */
            barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int m = 0; m < CHUNK_TRIPS; m++)
            if (aligned && lx + m * TILE_W < CHUNKS_A_ROW + 2 * CHUNK_SHIFT)
                cs[lx + m * TILE_W] =
                    (loaded[m].s0 + loaded[m].s1) + (loaded[m].s2 + loaded[m].s3);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (fits && ly + n * TILE_H < TILE_ROWS)
            HOR_SET(t * HOR_W + lx, IS_PIXEL(sy) ? chunk_window(win, cs + lx + CHUNK_SHIFT, row)
                                                  : (accv_t)outside_row);
    }
    if (fits) {
#else
#if ROW_SEGMENTS
    int g0 = (int)get_group_id(0) * TILE_W * VEC;
    if (segments_fit(src, rowlen, g0)) {
        int item = ly * TILE_W + lx, seg = item % SEGS;
        int x0 = g0 / CN + seg * SEG_PX, first = seg * (SEG_PX * CN / VEC);
        TRIPS_OF(item / SEGS, SEG_ROWS, SEG_TRIPS, 1, {
            __global const uint4 *c0 = (__global const uint4 *)(in + (x0 - SEG_PAD) * CN);
            uint4 chunk[SEG_CHUNKS];
            _Pragma("unroll") for (int k = 0; k < SEG_CHUNKS; k++) chunk[k] = c0[k];
            accp_t px[SEG_PX];
            _Pragma("unroll") for (int k = 0; k < SEG_PX; k++) px[k] = 0;
            SLIDE(SEG_PX, FW, row, px, SEG_PIXEL);
            if (t0 < TILE_ROWS)
                _Pragma("unroll") for (int k = 0; k < SEG_PX * CN / VEC; k++)
                    HOR_SET(t * HOR_W + first + k,
                            IS_PIXEL(sy) ? LOAD_ACC_V((acc_t *)(px + k * VEC / CN))
                                         : (accv_t)outside_row);
        })
    } else
#endif
    if (window_fits(src, rowlen, v0)) {
        ROW_TRIPS_OF(window_taps((accv_t)0, in, v0, row))
#endif
    } else if (EDGE_WINDOWS) {
        /* The same for the work-items at the row's ends, whose tiles used
         * to take a trip's loads at a time and finish last. */
        if (v0 < rowlen)
            ROW_TRIPS_OF(edge_window_taps((accv_t)0, in, v0, width, border_value, row))
    } else {
        accv_t rescaled = row_rescales(v0, width, row_edges);
        for (int t = ly; t < TILE_ROWS; t += TILE_H) {
            int sy = border_index(y0 - RY + t, height);
            accv_t h = IS_PIXEL(sy) ? row_pass(src + (size_t)sy * rowlen, width, v0, row,
                                               border_value) * rescaled
                                    : (accv_t)outside_row;
            HOR_SET(t * HOR_W + lx, h);
        }
    }
#undef ROW_TRIPS_OF
#undef TRIPS_OF
    barrier(CLK_LOCAL_MEM_FENCE);
    int r0 = ly * PY;
    /* Output row r0 + k takes tile rows r0 + k .. r0 + k + 2 RY: each tile
     * row is loaded once and added to the outputs it belongs to. */
    accv_t sum[PY];
#if CHUNK_COL
    {
        /* Every work-item sums its own PY rows, and the first COL_MID of a
         * column the chunks below the tile's last output row too. */
        __local accv_t *col_sums = chunk_room;
        accv_t s = HOR_GET(r0 * HOR_W + lx), extra = 0;
#pragma unroll
        for (int t = 1; t < PY; t++)
            s += HOR_GET((r0 + t) * HOR_W + lx);
        if (ly < COL_MID) {
#pragma unroll
            for (int t = 0; t < PY; t++)
                extra += HOR_GET(((TILE_H + ly) * PY + t) * HOR_W + lx);
            col_sums[(TILE_H + ly) * TILE_W + lx] = extra;
        }
        col_sums[ly * TILE_W + lx] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        accv_t mid = col_sums[(ly + 1) * TILE_W + lx], run = 0;
#pragma unroll
        for (int j = 2; j <= COL_MID; j++)
            mid += col_sums[(ly + j) * TILE_W + lx];
#pragma unroll
        for (int k = PY - 1; k >= 0; k--) {
            run += HOR_GET((r0 + k) * HOR_W + lx);
            sum[k] = run + mid;
        }
        run = 0;
#pragma unroll
        for (int t = 0; t < COL_REST + PY - 1; t++) {
            run += HOR_GET((r0 + (COL_MID + 1) * PY + t) * HOR_W + lx);
            if (t >= COL_REST - 1 && t - COL_REST + 1 < PY)
                sum[t - COL_REST + 1] += run;
        }
    }
#endif
    if (v0 >= rowlen || y0 + r0 >= height)
        return;
#if EQUAL_COL
#if !CHUNK_COL
#define TILE_ROW(t) accv_t v = HOR_GET((r0 + (t)) * HOR_W + lx)
    EQUAL_SUMS(PY, FH, accv_t, sum, TILE_ROW);
#undef TILE_ROW
#endif
    for (int k = 0; k < PY; k++)
        sum[k] *= col[0];
#else
    for (int k = 0; k < PY; k++)
        sum[k] = 0;
#pragma unroll
    for (int t = 0; t < PY + 2 * RY; t++) {
        accv_t h = HOR_GET((r0 + t) * HOR_W + lx);
#pragma unroll
        for (int k = 0; k < PY; k++)
            if (t - k >= 0 && t - k < FH)
                sum[k] += col[t - k] * h;
    }
#endif
    for (int k = 0; k < PY && y0 + r0 + k < height; k++) {
        int y = y0 + r0 + k;
        store_result(sum[k], col_rescale(y, height, col_edges), scale, delta,
                     dst + (size_t)y * rowlen + v0, rowlen - v0);
    }
}
#endif
