/*
 * The buffer path: a row is width * CN values; one work-item computes VEC
 * consecutive values of each of ROWS rows (-DROWS, 1 on CPUs), CHUNKS such
 * vectors side by side (-DCHUNKS, 1 on GPUs).  Where every
 * tap of those values lies in the image (most of it), taps are vector loads
 * VEC values wide with no border test (on GPUs each source row's from its
 * window, loaded and converted once for all the work-item's rows that take
 * it); near the edges each value takes the general route through
 * border_index().  With ROW_SUMS (common.cl) each tap row's sum comes
 * first, added to the others' in double.  A work-item's values lie in the
 * window of the image the destination is (all of it, or a region's kept
 * rectangle), source rows src_pitch values apart and destination rows
 * dst_pitch apart (layout_t): CPUs read and write strided images where
 * they lie; GPUs are given packed rows and the whole image.
 */

/* The source's row pitch: its packed rows' own length where -DPACKED_SRC
 * says the rows are packed (PoCL, 2-core EPYC, 4K f32 gray 9x9 and 15x15:
 * the pitch argument as the rows' stride ran 0.91-0.93x this). */
#if PACKED_SRC
#define SRC_PITCH(pitch) (width * CN)
#else
#define SRC_PITCH(pitch) (pitch)
#endif

/* The rows' pitches, and the window made: values keep_x .. v_end - 1 of
 * rows keep_y .. y_end - 1, in the image's coordinates. */
typedef struct {
    int src_pitch, dst_pitch, keep_x, keep_y, v_end, y_end;
} layout_t;

/* The result at value v of row y, in the destination. */
#define RESULT_AT(dst, l, v, y) \
    ((dst) + (size_t)((y) - (l)->keep_y) * (l)->dst_pitch + (v) - (l)->keep_x)

/* VEC values from v0 of ROWS rows from y0. */
static inline void buffer_vector(__global const src_t *src, __global dst_t *dst, int width,
                                 int height, WEIGHTS w, acc_t border_value, acc_t scale,
                                 acc_t delta, acc_t wsum, const layout_t *l, int v0, int y0)
{
    int rowlen = width * CN, pitch = SRC_PITCH(l->src_pitch);
    if (v0 >= l->v_end || y0 >= l->y_end)
        return;
    int inside_x = v0 >= RX * CN && v0 + VEC + RX * CN <= rowlen && v0 + VEC <= l->v_end;
    int inside_y = y0 + ROWS <= l->y_end &&
                   (!BORDER_HAS_OUTSIDE || (y0 >= RY && y0 + ROWS - 1 + RY < height));
    if (inside_x && inside_y) {
        totalv_t total[ROWS];
#pragma unroll
        for (int k = 0; k < ROWS; k++)
            total[k] = 0;
        /* Decided once, outside the loop over rows: decided inside it,
         * u8 gray r1 measured 0.73-0.88x on NVIDIA. */
        if (window_fits(src, rowlen, v0)) {
#if ROWS == 1
            for (int j = 0; j < FH; j++) {
                int sy = border_index(y0 + j - RY, height);
                IN_ROW_V(total[0], row,
                         row = window_taps(row, src + (size_t)sy * pitch, v0, w + j * FW));
            }
#else
            /* Source row t of the ROWS + FH - 1 the work-item reads is tap
             * row t - k of its output row k: each output still adds its
             * tap rows in order, each row's taps in order, as one row a
             * work-item does, and every tap's index is a constant.  A
             * plain pragma: given through a macro's _Pragma(), 15x15 ran
             * at one row's rate on NVIDIA's OpenCL (H200), 1.3x slower. */
#pragma unroll
            for (int t = 0; t < ROWS + FH - 1; t++) {
                WINDOW_ARRAY;
                load_window(win, src + (size_t)border_index(y0 + t - RY, height) * pitch, v0);
#pragma unroll
                for (int k = 0; k < ROWS; k++)
                    if (t - k >= 0 && t - k < FH)
                        IN_ROW_V(total[k], row, WINDOW_TAPS(row, win, w + (t - k) * FW));
            }
#endif
        } else {
            for (int k = 0; k < ROWS; k++)
                for (int j = 0; j < FH; j++) {
                    __global const src_t *p =
                        src + (size_t)border_index(y0 + k + j - RY, height) * pitch + v0 - RX * CN;
                    IN_ROW_V(total[k], row, {
                        for (int i = 0; i < FW; i++)
                            row += w[j * FW + i] * LOAD_V(p + i * CN);
                    });
                }
        }
        accv_t sum[ROWS];
#pragma unroll
        for (int k = 0; k < ROWS; k++)
            sum[k] = TOTAL_ACC_V(total[k]);
        store_rows(sum, scale, delta, RESULT_AT(dst, l, v0, y0), l->dst_pitch);
        return;
    }
    for (int y = y0; y < y0 + ROWS && y < l->y_end; y++)
        for (int v = v0; v < v0 + VEC && v < l->v_end; v++)
            *RESULT_AT(dst, l, v, y) = value_2d(src, pitch, width, height, v / CN, y, v % CN, w,
                                                border_value, scale, delta, wsum);
}

/* CPUs (-DCHUNKS > 1, ROWS 1): CHUNKS vectors side by side, each tap
 * across all of them before the next, so that CHUNKS independent chains
 * of multiply-adds are in flight where one vector's chain waits on each of
 * its own; each vector's sum still takes its taps in the one order.
 * Integer sources up to 31 taps a row convert each tap row's window once
 * and take each tap's vectors from it by shuffles (window_vec()), not a
 * load and a conversion a tap and vector; not for 3 taps of several
 * channels, as in the separable bands. */
#define SHUFFLED_TAPS                                                          \
    (VEC == 16 && SRC_TYPE != 2 && !ACC_DOUBLE && FW <= 31 && (FW > 3 || CN == 1))
__kernel void convolve_buffer(__global const src_t *src, __global dst_t *dst, int width,
                              int height, TAPS_2D, acc_t border_value, acc_t scale,
                              acc_t delta, acc_t wsum, int src_pitch, int dst_pitch, int keep_x,
                              int keep_y, int keep_w, int keep_h)
{
    TAKE_TAPS_2D;
    STACKED(src, (size_t)src_pitch * height);
    STACKED(dst, (size_t)dst_pitch * keep_h);
    layout_t l = {src_pitch, dst_pitch, keep_x, keep_y, keep_x + keep_w, keep_y + keep_h};
    int v0 = keep_x + get_global_id(0) * VEC * CHUNKS, y0 = keep_y + get_global_id(1) * ROWS;
    int rowlen = width * CN;
#if CHUNKS > 1 && ROWS == 1
#if SHUFFLED_TAPS
    int reach = WIN_VECS * VEC - RX * CN; /* the window's end, from v0 */
#else
    int reach = CHUNKS * VEC + RX * CN;
#endif
    if (v0 >= RX * CN && v0 + reach <= rowlen && v0 + CHUNKS * VEC <= l.v_end && y0 < l.y_end &&
        (!BORDER_HAS_OUTSIDE || (y0 >= RY && y0 + RY < height))) {
        totalv_t total[CHUNKS];
#pragma unroll
        for (int c = 0; c < CHUNKS; c++)
            total[c] = 0;
        for (int j = 0; j < FH; j++) {
            __global const src_t *p =
                src + (size_t)border_index(y0 + j - RY, height) * SRC_PITCH(src_pitch) + v0 -
                RX * CN;
            accv_t row[CHUNKS];
#pragma unroll
            for (int c = 0; c < CHUNKS; c++)
                row[c] = ROW_SUMS ? 0 : TOTAL_ACC_V(total[c]);
#if SHUFFLED_TAPS
            accv_t cv[WIN_VECS];
#pragma unroll
            for (int k = 0; k < WIN_VECS; k++)
                cv[k] = LOAD_V(p + k * VEC);
            ADD_ACROSS(row, FW, w + j * FW, window_vec(cv, c * VEC + i * CN),
                       _Pragma("unroll"));
#else
            ADD_ACROSS(row, FW, w + j * FW, LOAD_V(p + c * VEC + i * CN), );
#endif
#pragma unroll
            for (int c = 0; c < CHUNKS; c++)
                total[c] = ROW_SUMS ? total[c] + TOTAL_V(row[c]) : TOTAL_V(row[c]);
        }
#pragma unroll
        for (int c = 0; c < CHUNKS; c++) {
            accv_t sum = TOTAL_ACC_V(total[c]);
            store_rows(&sum, scale, delta, RESULT_AT(dst, &l, v0 + c * VEC, y0), dst_pitch);
        }
        return;
    }
#endif
    for (int c = 0; c < CHUNKS; c++)
        buffer_vector(src, dst, width, height, w, border_value, scale, delta, wsum, &l,
                      v0 + c * VEC, y0);
}
