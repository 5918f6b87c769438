/*
 * Shared by every kernel (prepended to each program): value types, border
 * index arithmetic and the final scale / delta / normalise / convert step.
 * Expects -DSRC_TYPE -DDST_TYPE (0 u8, 1 u16, 2 f32), -DCN (1..4),
 * -DBORDER (the oclconv_border value), -DRX -DRY, -DACC_DOUBLE, -DWEIGHTS_GLOBAL.
 */
#if ACC_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#else
typedef float acc_t;
#endif

#if SRC_TYPE == 0
typedef uchar src_t;
#elif SRC_TYPE == 1
typedef ushort src_t;
#else
typedef float src_t;
#endif

#if DST_TYPE == 0
typedef uchar dst_t;
#define TO_DST(v) convert_uchar_sat_rte(v)
#elif DST_TYPE == 1
typedef ushort dst_t;
#define TO_DST(v) convert_ushort_sat_rte(v)
#else
typedef float dst_t;
#define TO_DST(v) ((float)(v))
#endif

/* Weights live in __constant memory unless they exceed the device's limit. */
#if WEIGHTS_GLOBAL
#define WEIGHTS __global const acc_t *
#else
#define WEIGHTS __constant acc_t *
#endif

#define FW (2 * RX + 1)
#define FH (2 * RY + 1)

#define BORDER_CLAMP 0
#define BORDER_ZERO 1
#define BORDER_CONSTANT 2
#define BORDER_REFLECT 3
#define BORDER_REFLECT101 4
#define BORDER_WRAP 5
#define BORDER_NORMALIZE 6
/* Borders where an outside tap reads no pixel of the image. */
#define BORDER_HAS_OUTSIDE (BORDER == BORDER_ZERO || BORDER == BORDER_CONSTANT || BORDER == BORDER_NORMALIZE)

/* The index a tap at i (maybe outside 0..n-1) reads, or -1 for no pixel. */
inline int border_index(int i, int n)
{
    if ((uint)i < (uint)n)
        return i;
#if BORDER == BORDER_CLAMP
    return clamp(i, 0, n - 1);
#elif BORDER == BORDER_REFLECT
    int m = i % (2 * n);
    m = m < 0 ? m + 2 * n : m;
    return m < n ? m : 2 * n - 1 - m;
#elif BORDER == BORDER_REFLECT101
    if (n == 1)
        return 0;
    int m = i % (2 * n - 2);
    m = m < 0 ? m + 2 * n - 2 : m;
    return m < n ? m : 2 * n - 2 - m;
#elif BORDER == BORDER_WRAP
    int m = i % n;
    return m < 0 ? m + n : m;
#else
    return -1;
#endif
}

/* out = scale * sum + delta, after NORMALIZE's rescale by wsum / win (the
 * sums of all and of the in-image weights). */
inline dst_t finish_value(acc_t sum, acc_t win, acc_t wsum, acc_t scale, acc_t delta)
{
#if BORDER == BORDER_NORMALIZE
    sum = win != 0 ? sum * (wsum / win) : 0;
#endif
    return TO_DST(scale * sum + delta);
}
