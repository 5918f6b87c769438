/*
 * The separable path on CPUs (see separable.cl, which comes before this file
 * in the program): separable_fused, a work-item CHUNKS vectors side by side
 * down a band of BAND rows.
 * Expects -DBAND -DCHUNKS -DPREFETCH and -DSYM_ROW -DSYM_COL besides
 * separable.cl's macros; its sums go tap by tap across the vectors
 * (SUM_ACROSS, chunks.cl).
 */
#ifdef BAND
/* SUM_ACROSS for a pass whose taps are symmetric (w[i] == w[TAPS - 1 - i],
 * SYM_ROW and SYM_COL, integer sources only): the two values of each
 * equal pair added first, then weighed, half the multiply-adds and the
 * additions on the other pipes (PoCL, 2-core EPYC, 4K, with the converted
 * windows below: u8 gray Gaussians r1 1.07x, r2 1.31x, r3 1.22x, r7
 * 1.19x, r15 1.17x; RGBA8 r2 1.13x, r3 1.17x, r7 1.12x, r15 1.41x; RGB8
 * r3 1.10x).  A pair of integer values adds exactly, so a sum still has
 * at most TAPS roundings on any term's way (src/precision.c); float
 * images keep SUM_ACROSS, whose pairs could pass a float's range. */
#define SUM_PAIRED(sum, TAPS, w, VALUE, UNROLL)                                \
    do {                                                                       \
        _Pragma("unroll") for (int c = 0; c < CHUNKS; c++) sum[c] = 0;         \
        UNROLL for (int j = 0; j < (TAPS) / 2; j++) {                          \
            acc_t w_j = (w)[j];                                                \
            _Pragma("unroll") for (int c = 0; c < CHUNKS; c++) {               \
                int i = j;                                                     \
                accv_t first_ = (VALUE);                                       \
                i = (TAPS) - 1 - j;                                            \
                sum[c] += w_j * (first_ + (VALUE));                            \
            }                                                                  \
        }                                                                      \
        int i = (TAPS) / 2;                                                    \
        acc_t w_i = (w)[i];                                                    \
        _Pragma("unroll") for (int c = 0; c < CHUNKS; c++) sum[c] += w_i * (VALUE); \
    } while (0)

/* The row pass of integer sources: each VEC values of a work-item's
 * window converted once (WIN_VECS vectors: loaded where they lie in the
 * row, else a value at a time through border_index()), and each tap's
 * vector put together from two of them by a shuffle of constant lanes,
 * instead of a load and a conversion a tap and vector.  The edge
 * work-items take it too, where row_pass() made their end vectors a lane
 * at a time.  Not for 3 taps of several channels, whose loads are few
 * (RGBA8 r1 0.79-0.89x, 2 channels 0.85x). */
#define SHUFFLED_ROWS (SRC_TYPE != 2 && VEC == 16 && !ACC_DOUBLE && (FW > 3 || CN == 1))
#if SHUFFLED_ROWS
/* The VEC window values from q0 (>= -RX * CN) of a source row. */
static inline accv_t window_part(__global const src_t *in, int width, int q0,
                                 acc_t border_value)
{
    if (q0 >= 0 && q0 + VEC <= width * CN)
        return LOAD_V(in + q0);
    acc_t lanes[VEC];
    for (int l = 0; l < VEC; l++) {
        int q = q0 + l + RX * CN; /* value q - RX * CN of the row, >= 0 */
        int sx = border_index(q / CN - RX, width);
        lanes[l] = IS_PIXEL(sx) ? SCALED((acc_t)in[sx * CN + q % CN]) : border_value;
    }
    return LOAD_ACC_V(lanes);
}

/* A work-item's window from q0 of a source row, its WIN_VECS vectors:
 * loaded whole where it lies in the row, else each through window_part()
 * in a loop left rolled, whose value-at-a-time code is then built once and
 * not once a vector (PoCL 3.1, 2-core Xeon: a band program of 8-bit values
 * 0.75-1.35 CPU-s to its first call against 0.52-1.06, 0.76x over ten
 * programs; the kernels level).
 * The loop fills part[], copied into cv at constant indices: cv indexed
 * by the loop's variable would keep it in memory, not in registers. */
static inline void window_vectors(accv_t *cv, __global const src_t *in, int width, int q0,
                                  acc_t border_value)
{
    if (q0 >= 0 && q0 + WIN_VECS * VEC <= width * CN) {
#pragma unroll
        for (int k = 0; k < WIN_VECS; k++)
            cv[k] = LOAD_V(in + q0 + k * VEC);
        return;
    }
    accv_t part[WIN_VECS];
#pragma nounroll
    for (int k = 0; k < WIN_VECS; k++)
        part[k] = window_part(in, width, q0 + k * VEC, border_value);
#pragma unroll
    for (int k = 0; k < WIN_VECS; k++)
        cv[k] = part[k];
}

#define WINDOW_VALUE window_vec(cv, c * VEC + i * CN)
#if SYM_ROW
#define SUM_WINDOW(sum, w) SUM_PAIRED(sum, FW, w, WINDOW_VALUE, _Pragma("unroll"))
#else
#define SUM_WINDOW(sum, w) SUM_ACROSS(sum, FW, w, WINDOW_VALUE, _Pragma("unroll"))
#endif
#endif

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
 * apart, 0.92-1.36x; 2 rows ahead gained less, 8 and 16 no more).
 * The destination's rows too, for writing, where an 8- or 16-bit row is
 * not a whole number of cache lines: there the results' stores waited on
 * memory (PoCL, 2-core EPYC, 2048 rows, three alternating rounds against
 * without: RGBA8 Gaussians 2049 and 1366 wide r1 1.30-1.72x, 2052 and
 * 1366 r3 1.20-1.94x, 2049 and 1366 r8 1.49-1.57x; u8 gray 8196 wide r1
 * 1.45-1.84x, 8200 r8 1.05-1.16x; RGBA16 r8 2049 and 1366 wide
 * 1.10-1.14x, u16 gray 8196 wide r1 1.21-1.27x; 2049-wide RGBA8 r8 had
 * run 0.73x the rate of 2048-wide, and now runs at it). */
#define PREFETCH_ROWS 4
#if PREFETCH && defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
#define PREFETCH_LINES(p, bytes, write)                                        \
    do {                                                                       \
        __global const uchar *b_ = (__global const uchar *)(p);                \
        for (int i_ = 0; i_ < (bytes) + 63; i_ += 64)                          \
            __builtin_prefetch((const void *)(ulong)(b_ + i_), write);         \
    } while (0)
#endif
#endif
#ifndef PREFETCH_LINES
#define PREFETCH_LINES(p, bytes, write) ((void)0)
#endif

/* The row pass of a work-item at a row's ends, where the taps reach a
 * vector or more past them: its values and the taps' reach through
 * border_index() once each into private memory (the border value where it
 * finds no pixel), then the taps across the vectors as inside the row, in
 * row_pass()'s order; vectors past the row's end are made and not stored.
 * Otherwise each vector goes through row_pass(), whose edge vectors take
 * a lane at a time.  (PoCL, against row_pass(): RGBA8 Gaussian s=2 r8 on
 * 518x8288 1.5x, on 2072x2072 1.15x; 4K RGBA8 r15 1.24x, RGB8 r7 on
 * 1000x1000 1.16x; where the reach is under a vector, u8 gray r1-r3 and
 * RGBA8 r3 at 4K and 256x256 0.8-1.0x, so they keep row_pass().) */
#define GATHER_EDGES (RX * CN >= VEC)

/* The ring of row passes holds each row twice, FH slots apart, so that the
 * column pass reads FH consecutive slots without a wrap; filters of at most
 * 5 rows hold each once and wrap the index (PoCL, 4K, against twice: RGBA8
 * Gaussian r2 1.4-1.7x, r1 1.03-1.08x, r3 level; at r7 the wrap cost
 * 0.96x). */
#define RING_COPIES (FH <= 5 ? 1 : 2)
#define RING_ROW(i) (RING_COPIES == 1 ? (i) % FH : (i))
#define PUT_SLOT(c, v) (slot[c] = slot[(RING_COPIES - 1) * FH * CHUNKS + (c)] = (v))

/* A work-item: CHUNKS vectors side by side (CHUNKS * VEC values of a row)
 * down a band of BAND rows.  The source's rows lie src_pitch values apart
 * (a strided image in the caller's memory is read where it lies).  The
 * results made are the window of keep_w values by keep_h rows from value
 * keep_x of row keep_y (all of the image, or a region's kept rectangle of
 * its grown image, whose other results are never made), into dst rows
 * dst_pitch values apart (a strided destination written where it lies).
 * Each source row's row pass goes into a ring of the last FH rows, and each
 * output row is made as soon as its FH rows are in, so rows are read and
 * written along their length and the ring stays in L1/L2. */
__kernel void separable_fused(__global const src_t *src, __global dst_t *dst, int width,
                              int height, WEIGHTS row, WEIGHTS col, acc_t border_value,
                              RESCALES row_edges, acc_t outside_row, acc_t scale, acc_t delta,
                              RESCALES col_edges, int src_pitch, int dst_pitch, int keep_x,
                              int keep_y, int keep_w, int keep_h)
{
    STACKED(src, (size_t)src_pitch * height);
    STACKED(dst, (size_t)dst_pitch * keep_h);
    int v0 = keep_x + get_global_id(0) * CHUNKS * VEC, y0 = keep_y + get_global_id(1) * BAND;
    int rowlen = width * CN, v_end = keep_x + keep_w;
    if (v0 >= v_end || y0 >= keep_y + keep_h)
        return;
    int rows = min(BAND, keep_y + keep_h - y0), chunks = min(CHUNKS, (v_end - v0 + VEC - 1) / VEC);
    dst += (size_t)(y0 - keep_y) * dst_pitch + (v0 - keep_x); /* the band's first result */
    /* Vectors past the row's end stay 0. */
    accv_t ring[RING_COPIES * FH * CHUNKS];
    for (int k = 0; k < RING_COPIES * FH * CHUNKS; k++)
        ring[k] = 0;
    int whole = chunks == CHUNKS && v0 >= RX * CN && v0 + CHUNKS * VEC + RX * CN <= rowlen;
    /* 8- and 16-bit rows that are not a whole number of cache lines, and
     * windows narrower than the image: their results go to lines asked for
     * ahead (PREFETCH_LINES above; float rows ran no slower, and 2049-wide
     * f32 gray r3 0.71-0.94x with it.  A 2048² RGBA8 window of an 8192²
     * image, Gaussian r8, kernel 5.4-6.2 ms against 9.4-10.8 without, with
     * any destination pitch from 2048 to 3072 pixels but 2056, whose rows
     * are not whole lines; a whole 2048² crop written where it lies in an
     * 8192² image level with or without). */
    bool ask_ahead = DST_TYPE != 2 &&
                     ((size_t)dst_pitch * sizeof(dst_t) % 64 != 0 || keep_w != rowlen);
    for (int t = 0; t < rows + 2 * RY; t++) {
        int sy = border_index(y0 - RY + t, height);
        accv_t *slot = ring + t % FH * CHUNKS;
        int ahead = border_index(y0 - RY + t + PREFETCH_ROWS, height);
        if (whole && t + PREFETCH_ROWS < rows + 2 * RY && IS_PIXEL(ahead))
            PREFETCH_LINES(src + (size_t)ahead * src_pitch + v0 - RX * CN,
                           (CHUNKS * VEC + 2 * RX * CN) * (int)sizeof(src_t), 0);
        if (SHUFFLED_ROWS && IS_PIXEL(sy)) {
#if SHUFFLED_ROWS
            __global const src_t *in = src + (size_t)sy * src_pitch;
            accv_t cv[WIN_VECS], h[CHUNKS];
            window_vectors(cv, in, width, v0 - RX * CN, border_value);
            SUM_WINDOW(h, row);
#pragma unroll
            for (int c = 0; c < CHUNKS; c++)
                PUT_SLOT(c, whole ? h[c] : h[c] * row_rescales(v0 + c * VEC, width, row_edges));
#endif
        } else if (whole && IS_PIXEL(sy)) {
            __global const src_t *in = src + (size_t)sy * src_pitch + v0 - RX * CN;
            accv_t h[CHUNKS];
            SUM_ACROSS(h, FW, row, LOAD_V(in + c * VEC + i * CN), );
#pragma unroll
            for (int c = 0; c < CHUNKS; c++)
                PUT_SLOT(c, h[c]);
        } else if (GATHER_EDGES && IS_PIXEL(sy)) {
            __global const src_t *in = src + (size_t)sy * src_pitch;
            acc_t win[CHUNKS * VEC + 2 * RX * CN];
            for (int k = 0; k < CHUNKS * VEC + 2 * RX * CN; k++) {
                int q = v0 + k; /* value q - RX * CN of the row, >= 0 */
                int sx = border_index(q / CN - RX, width);
                win[k] = IS_PIXEL(sx) ? (acc_t)in[sx * CN + q % CN] : border_value;
            }
            accv_t h[CHUNKS];
            SUM_ACROSS(h, FW, row, LOAD_ACC_V(win + c * VEC + i * CN), );
            for (int c = 0; c < chunks; c++)
                PUT_SLOT(c, h[c] * row_rescales(v0 + c * VEC, width, row_edges));
        } else {
            for (int c = 0; c < chunks; c++) {
                accv_t h = IS_PIXEL(sy) ? row_pass(src + (size_t)sy * src_pitch, width,
                                                   v0 + c * VEC, row, border_value) *
                                              row_rescales(v0 + c * VEC, width, row_edges)
                                        : (accv_t)outside_row;
                PUT_SLOT(c, h);
            }
        }
        if (t < 2 * RY)
            continue;
        /* Output row k takes rows k .. k + 2 RY, oldest first: ring rows
         * k % FH and on. */
        int k = t - 2 * RY, y = y0 + k, first = k % FH;
        acc_t rescaled = col_rescale(y, height, col_edges);
        if (ask_ahead && whole && k + PREFETCH_ROWS < rows)
            PREFETCH_LINES(dst + (size_t)(k + PREFETCH_ROWS) * dst_pitch,
                           CHUNKS * VEC * (int)sizeof(dst_t), 1);
        accv_t sum[CHUNKS];
#if SYM_COL
        SUM_PAIRED(sum, FH, col, ring[RING_ROW(first + i) * CHUNKS + c], );
#else
        SUM_ACROSS(sum, FH, col, ring[RING_ROW(first + i) * CHUNKS + c], );
#endif
#pragma unroll
        for (int c = 0; c < CHUNKS; c++)
            if (c < chunks)
                store_result(sum[c], rescaled, scale, delta, dst + (size_t)k * dst_pitch + c * VEC,
                             v_end - v0 - c * VEC);
    }
}
#endif
