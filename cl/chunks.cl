/*
 * CPU kernels whose work-items make CHUNKS vectors side by side (the
 * separable bands, cl/separable_cpu.cl; the buffer path, cl/buffer.cl):
 * their sums across the vectors and their windows of converted values.
 * Comes after common.cl in those programs; expects -DCHUNKS.
 */
/* ADD_ACROSS: sum[c] += the sum over taps i < TAPS of w[i] * VALUE, for
 * c < CHUNKS (VALUE names c and i), tap by tap across the vectors, so that
 * CHUNKS independent sums are in flight, not one chain of dependent
 * multiply-adds a vector that waits on itself; each sum still takes its
 * taps in order (PoCL, 4K, separable bands: u8 gray Gaussian r1 1.6-2x, r7
 * 1.5x, RGBA8 r3 1.2-1.5x; the buffer path: 3x3 to 9x9 1.2-1.6x).  UNROLL
 * is _Pragma("unroll") where VALUE needs i constant (window_vec()), else
 * empty.  SUM_ACROSS: the same from 0. */
#define ADD_ACROSS(sum, TAPS, w, VALUE, UNROLL)                                \
    do {                                                                       \
        UNROLL for (int i = 0; i < (TAPS); i++) {                              \
            acc_t w_i = (w)[i];                                                \
            _Pragma("unroll") for (int c = 0; c < CHUNKS; c++) sum[c] += w_i * (VALUE); \
        }                                                                      \
    } while (0)
#define SUM_ACROSS(sum, TAPS, w, VALUE, UNROLL)                                \
    do {                                                                       \
        _Pragma("unroll") for (int c = 0; c < CHUNKS; c++) sum[c] = 0;         \
        ADD_ACROSS(sum, TAPS, w, VALUE, UNROLL);                               \
    } while (0)

#if VEC == 16 && !ACC_DOUBLE
/* Their source row's window, the taps' reach of RX pixels on each side
 * included, converted once into WIN_VECS vectors, and the VEC values from
 * q of it put together from two of them by a shuffle of constant lanes
 * (float sums). */
#define WIN_VECS (CHUNKS + (2 * RX * CN + VEC - 1) / VEC)
static inline accv_t window_vec(const accv_t *cv, int q)
{
    const uint16 lanes = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int b = q / VEC, s = q % VEC;
    return s == 0 ? cv[b] : shuffle2(cv[b], cv[b + 1], lanes + (uint)s);
}
#endif
