/*
 * The separable path on GPUs (see separable.cl, which comes before this file
 * in the program): separable_tile, a work-group a tile, its row pass in
 * local memory.
 * Expects -DTILE_W -DTILE_H -DPY -DEQUAL_ROW -DEQUAL_COL -DCHUNK_BUFS
 * -DHOR_PAD besides separable.cl's macros.
 */
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
static inline void chunk_ends(__global const src_t *row, int v0, const accv_t *loaded, acc_t *win)
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
static inline accv_t chunk_window(const acc_t *win, __local const acc_t *cs, WEIGHTS w)
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
static inline bool segments_fit(__global const src_t *src, int rowlen, int g0)
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
    STACKED(src, (size_t)width * height * CN);
    STACKED(dst, (size_t)width * height * CN);
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
