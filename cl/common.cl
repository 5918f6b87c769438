/*
 * Shared by every kernel (prepended to each program): value types, vectors of
 * VEC values, border index arithmetic and the final scale / delta / convert.
 * Expects -DSRC_TYPE -DDST_TYPE (0 u8, 1 u16, 2 f32), -DCN (1..4),
 * -DBORDER (the oclconv_border value), -DRX -DRY, -DACC_DOUBLE,
 * -DWEIGHTS_GLOBAL, -DVEC (1, 2, 4, 8 or 16), -DROW_WINDOW and -DSAT_CONVERT;
 * -DTAPS_BY_VALUE where the kernel takes its weights as arguments;
 * -DEQUAL_ROW and -DEQUAL_COL where a pass's taps are all equal (rows:
 * 1 adds each window in registers, 2 from chunk sums, cl/separable.cl).
 */
#ifndef EQUAL_ROW
#define EQUAL_ROW 0
#define EQUAL_COL 0
#endif
#if ACC_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define ACC_NAME double
#else
#define ACC_NAME float
#endif
typedef ACC_NAME acc_t;

#if SRC_TYPE == 0
#define SRC_NAME uchar
#elif SRC_TYPE == 1
#define SRC_NAME ushort
#else
#define SRC_NAME float
#endif
typedef SRC_NAME src_t;

#if DST_TYPE == 0
#define DST_NAME uchar
#elif DST_TYPE == 1
#define DST_NAME ushort
#else
#define DST_NAME float
#endif
typedef DST_NAME dst_t;

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* Values a pass adds before it weighs them (equal taps, -DVALUE_SHIFT on
 * float images) come in times 2^-VALUE_SHIFT, so that no sum of them
 * passes a float's range; the host takes the power of two back in the
 * scale, exactly (src/precision.c, oclconv__range_shifts()). */
#if defined(VALUE_SHIFT) && VALUE_SHIFT
#define SCALED(x) ((x) * (acc_t)(1.0f / (1 << VALUE_SHIFT)))
#else
#define SCALED(x) (x)
#endif

/* A pixel's CN source values as T (CN 1) or a vector of T, in one access
 * where they are 2 or 4: packed rows start at a multiple of a pixel's size
 * (in a buffer the runtime aligned, or in image memory the host checked),
 * and GPU compilers split a vloadN they cannot prove aligned into N loads. */
#if CN == 2 || CN == 4
#define LOAD_PIXEL(T, p) SCALED(CAT(convert_, CAT(T, CN))(*(__global const CAT(SRC_NAME, CN) *)(p)))
#elif CN == 3
#define LOAD_PIXEL(T, p) SCALED(CAT(convert_, CAT(T, 3))(vload3(0, p)))
#else
#define LOAD_PIXEL(T, p) SCALED((T)(p)[0])
#endif

/* acc_t to dst_t: integers rounded half to even and saturated, NaN to 0, as
 * the OpenCL spec defines convert_*_sat_rte.  Spelled out as a clamp, a
 * rounding by the float's own precision and a plain conversion: CPU
 * compilers emulate the built-in in two dozen instructions, and NVIDIA's
 * turns NaN into 128.  (x + 1.5 * 2^23 - 1.5 * 2^23 rounds x, 0 <= x <
 * 2^22, half to even; 2^52 for double.)  The built-in itself with
 * -DSAT_CONVERT, where no sum can be NaN (GPUs, integer sources, a border
 * other than NORMALIZE): one instruction on NVIDIA instead of five, 8-bit
 * Gaussians r1-r3 1.03-1.14x. */
#if DST_TYPE == 2
#define TO_DST(v) ((float)(v))
#define TO_DST_V(v) CAT(convert_float, VECN)(v)
#elif SAT_CONVERT
#define TO_DST(v) CAT(CAT(convert_, DST_NAME), _sat_rte)(v)
#define TO_DST_V(v) CAT(CAT(CAT(convert_, DST_NAME), VECN), _sat_rte)(v)
#else
#define DST_MAX (DST_TYPE == 0 ? 255 : 65535)
#if ACC_DOUBLE
#define ROUND_MAGIC 0x1.8p52
#else
#define ROUND_MAGIC 0x1.8p23f
#endif
#define TO_RANGE(v) (fmin(fmax(v, (acc_t)0), (acc_t)DST_MAX) + ROUND_MAGIC - ROUND_MAGIC)
#define TO_DST(v) CAT(convert_, DST_NAME)(TO_RANGE(v))
#if ACC_DOUBLE
#define TO_DST_V(v) CAT(CAT(convert_, DST_NAME), VECN)(TO_RANGE(v))
#else
/* Vectors: the magic added first and the sum clamped to [magic, magic +
 * DST_MAX], whose floats' bits less the magic's are the rounded integer:
 * one addition and no conversion (PoCL, CPU bands, 4K, alternating calls
 * in one process: u8 gray and RGBA8 Gaussians r1 and r3 1.02-1.07x, RGBA8
 * r3 0.98-1.04x). */
#define TO_DST_V(v)                                                            \
    CAT(CAT(convert_, DST_NAME), VECN)                                         \
    (CAT(as_int, VECN)(fmin(fmax((v) + ROUND_MAGIC, ROUND_MAGIC),              \
                            ROUND_MAGIC + (acc_t)DST_MAX)) -                   \
     0x4b400000)
#endif
#endif

/* VEC consecutive values as one vector (VEC 1: a scalar).  Results are
 * stored as one vector: CPU compilers split vstoreN of small types into N
 * scalar stores, and GPU compilers split a store of unknown alignment, so
 * an aligned address takes an aligned store and any other an unaligned
 * one. */
#if VEC == 1
#define VECN
typedef acc_t accv_t;
#define LOAD_V(p) SCALED((acc_t)(p)[0])
#define STORE_V(v, p) ((p)[0] = TO_DST(v))
#define STORE_V_ALIGNED(v, p) STORE_V(v, p)
#define STORE_V_UNALIGNED(v, p) STORE_V(v, p)
#define LOAD_ACC_V(p) ((p)[0])
#define STORE_ACC_V(v, p) ((p)[0] = (v))
#else
#define VECN VEC
typedef CAT(ACC_NAME, VEC) accv_t;
typedef CAT(DST_NAME, VEC) __attribute__((aligned(1))) dstv_unaligned_t;
#define LOAD_V(p) SCALED(CAT(convert_, CAT(ACC_NAME, VEC))(CAT(vload, VEC)(0, p)))
typedef CAT(DST_NAME, VEC) dstv_t;
#define STORE_V_ALIGNED(v, p) (*(__global dstv_t *)(p) = TO_DST_V(v))
#define STORE_V_UNALIGNED(v, p) (*(__global dstv_unaligned_t *)(p) = TO_DST_V(v))
#define STORE_V(v, p)                                                                   \
    do {                                                                                \
        if (((size_t)(p) & (sizeof(dstv_t) - 1)) == 0)                                  \
            STORE_V_ALIGNED(v, p);                                                      \
        else                                                                            \
            STORE_V_UNALIGNED(v, p);                                                    \
    } while (0)
#define LOAD_ACC_V(p) CAT(vload, VEC)(0, p)
#define STORE_ACC_V(v, p) CAT(vstore, VEC)(v, 0, p)
#endif

/* ROW_SUMS (src/precision.c row_sums_keep(), the buffer and tiled paths):
 * a 2-D filter's sums each tap row's in float, the rows' sums in double,
 * where one float sum of all the taps could miss the contract and double
 * sums throughout would run at the device's double rate.  IN_ROW(total,
 * row, body) and IN_ROW_V for vectors: body adds one tap row into `row`;
 * without ROW_SUMS `row` is `total` itself, every sum in the order of one. */
#if ROW_SUMS
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double total_t;
#if VEC > 1
typedef CAT(double, VEC) totalv_t;
#define TOTAL_V(v) CAT(convert_double, VEC)(v)
#define TOTAL_ACC_V(t) CAT(convert_, CAT(ACC_NAME, VEC))(t)
#else
typedef double totalv_t;
#define TOTAL_V(v) ((double)(v))
#define TOTAL_ACC_V(t) ((acc_t)(t))
#endif
#define ROW_INTO(T, CVT, total, row, body)                                     \
    do {                                                                       \
        T row = 0;                                                             \
        body;                                                                  \
        total += CVT(row);                                                     \
    } while (0)
#else
typedef acc_t total_t;
typedef accv_t totalv_t;
#define TOTAL_V(v) (v)
#define TOTAL_ACC_V(t) (t)
#define ROW_INTO(T, CVT, total, row, body)                                     \
    do {                                                                       \
        T row = total;                                                         \
        body;                                                                  \
        total = row;                                                           \
    } while (0)
#endif
#define IN_ROW(total, row, body) ROW_INTO(acc_t, (total_t), total, row, body)
#define IN_ROW_V(total, row, body) ROW_INTO(accv_t, TOTAL_V, total, row, body)

/* Weights live in __constant memory unless they exceed the device's limit,
 * or in the kernel's arguments (TAPS_BY_VALUE), which the helpers below
 * then reach through a private pointer. */
#if TAPS_BY_VALUE
#define WEIGHTS const acc_t *
#elif WEIGHTS_GLOBAL
#define WEIGHTS __global const acc_t *
#else
#define WEIGHTS __constant acc_t *
#endif

#define FW (2 * RX + 1)
#define FH (2 * RY + 1)

/* The 2-D kernels' weights (buffer, tiled): by value where they fit
 * (-DTAPS_BY_VALUE; see separable_tile), else through WEIGHTS. */
#if TAPS_BY_VALUE && !RADIUS_ARGS
typedef struct { acc_t w[FW * FH]; } taps_t;
#define TAPS_2D taps_t taps
#define TAKE_TAPS_2D WEIGHTS w = taps.w
#else
#define TAPS_2D WEIGHTS w
#define TAKE_TAPS_2D
#endif

/* The weighted kernels' taps (to #endif, and again at edge_window_taps()
 * and window_2d()): none in a box program whose radii are its arguments
 * (RADIUS_ARGS, cl/box.cl). */
#if !RADIUS_ARGS
/* A row's FW taps for the VEC values from v0, added to `sum` in tap order,
 * from one aligned load of each 4 values of the taps' window, each
 * converted once; a tap at an odd offset is put together from them in
 * registers (GPUs: a vload a tap splits into single loads where the
 * address is not a multiple of the vector).  For a window of at most
 * -DROW_WINDOW values (0 on CPUs, whose vloads are cheap) whose first value
 * is aligned to 4 values in every row: window_fits() says where. */
#define WIN_PAD ((RX * CN + 3) / 4 * 4)
#define WIN_LEN (2 * WIN_PAD + VEC)
#define WINDOWS (VEC % 4 == 0 && WIN_LEN <= ROW_WINDOW)
static inline bool window_fits(__global const src_t *src, int rowlen, int v0)
{
    return WINDOWS && v0 >= WIN_PAD && v0 + VEC + WIN_PAD <= rowlen && rowlen % 4 == 0 &&
           ((size_t)(src + v0 - WIN_PAD) & (4 * sizeof(src_t) - 1)) == 0;
}

/* Filters whose taps along a pass are all equal (boxes) add values, not
 * products (-DEQUAL_ROW, -DEQUAL_COL; separable tiles only), N sums side by
 * side: sum[k] = v(k) + ... + v(k + TAPS - 1) for k < N <= TAPS.  The
 * values every sum takes are added once, in up to four chains that need
 * not wait on each other, then each sum's own few before and after them:
 * about TAPS + 2 N additions for N sums, not N TAPS multiply-adds.  Every
 * partial sum holds only the sum's own terms, so its rounding stays within
 * what any order of them gives (src/plan.c counts n a pass). */
#define EQUAL_CHAINS(N, TAPS) ((TAPS) - (N) + 1 < 4 ? (TAPS) - (N) + 1 : 4)
#define EQUAL_SUMS(N, TAPS, T, sum, LOAD)                                          \
    do {                                                                           \
        T mid_[4], head_, tail_;                                                   \
        _Pragma("unroll") for (int t = (N) - 1; t < (TAPS); t++) {                 \
            LOAD(t);                                                               \
            int j_ = t - (N) + 1;                                                  \
            mid_[j_ % 4] = j_ < 4 ? v : mid_[j_ % 4] + v;                          \
        }                                                                          \
        int chains_ = EQUAL_CHAINS(N, TAPS);                                       \
        T mid = chains_ == 1   ? mid_[0]                                           \
                : chains_ == 2 ? mid_[0] + mid_[1]                                 \
                : chains_ == 3 ? (mid_[0] + mid_[1]) + mid_[2]                     \
                               : (mid_[0] + mid_[1]) + (mid_[2] + mid_[3]);        \
        sum[(N) - 1] = mid;                                                        \
        _Pragma("unroll") for (int k = (N) - 2; k >= 0; k--) {                     \
            LOAD(k);                                                               \
            head_ = k == (N) - 2 ? v : v + head_;                                  \
            sum[k] = head_ + mid;                                                  \
        }                                                                          \
        _Pragma("unroll") for (int k = 1; k < (N); k++) {                          \
            LOAD((TAPS) + k - 1);                                                  \
            tail_ = k == 1 ? v : tail_ + v;                                        \
            sum[k] += tail_;                                                       \
        }                                                                          \
    } while (0)

#if EQUAL_ROW == 1
/* The VEC lanes from a window as EQUAL_SUMS makes them, a channel at a
 * time (VEC % CN == 0), times the taps' weight. */
#define LANE_VALUE(q) acc_t v = win_[c + CN * (q)]
#define WINDOW_TAPS(sum, win, w)                                               \
    do {                                                                       \
        const acc_t *win_ = (win) + WIN_PAD - RX * CN;                         \
        acc_t lanes_[VEC];                                                     \
        _Pragma("unroll") for (int c = 0; c < CN; c++) {                       \
            acc_t s_[VEC / CN];                                                \
            EQUAL_SUMS(VEC / CN, FW, acc_t, s_, LANE_VALUE);                   \
            _Pragma("unroll") for (int p = 0; p < VEC / CN; p++)               \
                lanes_[c + CN * p] = s_[p];                                    \
        }                                                                      \
        sum += LOAD_ACC_V(lanes_) * (w)[0];                                    \
    } while (0)
#else
#define WINDOW_TAPS(sum, win, w)                                               \
    _Pragma("unroll") for (int i = 0; i < (WINDOWS ? FW : 0); i++) sum +=          \
        (w)[i] * LOAD_ACC_V((win) + WIN_PAD - RX * CN + i * CN)
#endif

/* 4 source values from p, aligned to 4 values, as acc_t. */
#define LOAD_ALIGNED4(p) \
    SCALED(CAT(convert_, CAT(ACC_NAME, 4))(*(__global const CAT(SRC_NAME, 4) *)(p)))

/* The window of a row's taps for the VEC values from v0, converted. */
#define WINDOW_ARRAY acc_t win[WINDOWS ? WIN_LEN : 4]
static inline void load_window(acc_t *win, __global const src_t *row, int v0)
{
    __global const src_t *first = row + v0 - WIN_PAD;
#pragma unroll
    for (int k = 0; k < (WINDOWS ? WIN_LEN : 0); k += 4)
        vstore4(LOAD_ALIGNED4(first + k), 0, win + k);
}

static inline accv_t window_taps(accv_t sum, __global const src_t *row, int v0, WEIGHTS w)
{
    WINDOW_ARRAY;
    load_window(win, row, v0);
    WINDOW_TAPS(sum, win, w);
    return sum;
}
#endif

#define BORDER_CLAMP 0
#define BORDER_ZERO 1
#define BORDER_CONSTANT 2
#define BORDER_REFLECT 3
#define BORDER_REFLECT101 4
#define BORDER_WRAP 5
#define BORDER_NORMALIZE 6
/* CPU shapes: one program for CLAMP, REFLECT, REFLECT101 and WRAP, the
 * border plus one the launch's global offset in its third dimension (always
 * 0 else): a value every function of the kernel can read, which the kernels
 * consult only at the image's edges, and a quarter of the programs to
 * build.  Plus one, so that no border's launch has all offsets 0: PoCL
 * compiles a kernel again for such launches (its "goffs0" variant), and
 * CLAMP's launches then cost a second compile of a program the other
 * borders had built. */
#define BORDER_FOLDS 7
#if BORDER == BORDER_FOLDS
#define FOLD ((int)get_global_offset(2) - 1)
#else
#define FOLD BORDER
#endif

/* A batch's stack (src/batch.c): same-shaped images one after the other in
 * each buffer, filtered by one launch whose third dimension, past the
 * fold's offset, is the image.  Moves p to its image's first value, an
 * image being `values` values. */
#define STACKED(p, values) \
    ((p) += (size_t)(get_global_id(2) - get_global_offset(2)) * (size_t)(values))

/* Borders where an outside tap reads no pixel of the image. */
#define BORDER_HAS_OUTSIDE \
    (BORDER == BORDER_ZERO || BORDER == BORDER_CONSTANT || BORDER == BORDER_NORMALIZE)

/* The index a tap at i (maybe outside 0..n-1) reads, or -1 for no pixel.
 * One reflection or wrap settles every tap of a filter no larger than the
 * image; the modulo, a few dozen instructions on GPUs, is left to the taps
 * it does not.  With -DONE_FOLD the host has found that the filter
 * reaches no further past the image's edges than one fold, and the modulo
 * goes from the code, where its mere presence slowed the GPU tiles
 * (NVIDIA, 8K and 4K, REFLECT, REFLECT101 and WRAP: f32 gray Gaussian r7
 * 1.2-1.7x without it, r15 1.0-1.3x, 8-bit RGBA r7-r15 1.0-1.65x, most
 * under REFLECT101, u8 gray box r31 under WRAP 1.15-1.3x; 8-bit RGBA
 * r1-r3 and box r7 0.94-1.0x).  An index a kernel loads past the filter's
 * reach (a window rounded up to whole vectors, a line's spare columns)
 * then reads the last pixel: one that no output takes. */
static inline int border_index(int i, int n)
{
    if ((uint)i < (uint)n)
        return i;
    if (FOLD == BORDER_CLAMP)
        return clamp(i, 0, n - 1);
    if (FOLD == BORDER_REFLECT) {
        int once = i < 0 ? -1 - i : 2 * n - 1 - i;
#if ONE_FOLD
        return (int)min((uint)once, (uint)n - 1);
#else
        if ((uint)once < (uint)n)
            return once;
        int m = i % (2 * n);
        m = m < 0 ? m + 2 * n : m;
        return m < n ? m : 2 * n - 1 - m;
#endif
    }
    if (FOLD == BORDER_REFLECT101) {
        int once = i < 0 ? -i : 2 * n - 2 - i;
#if ONE_FOLD
        return (int)min((uint)once, (uint)n - 1);
#else
        if (n == 1)
            return 0;
        if ((uint)once < (uint)n)
            return once;
        int m = i % (2 * n - 2);
        m = m < 0 ? m + 2 * n - 2 : m;
        return m < n ? m : 2 * n - 2 - m;
#endif
    }
    if (FOLD == BORDER_WRAP) {
        int once = i < 0 ? i + n : i - n;
#if ONE_FOLD
        return (int)min((uint)once, (uint)n - 1);
#else
        if ((uint)once < (uint)n)
            return once;
        int m = i % n;
        return m < 0 ? m + n : m;
#endif
    }
    return -1;
}

/* Whether border_index()'s answer is a pixel, known at compile time for the
 * borders whose every tap reads one, so that the selects and branches on it
 * go (NVIDIA: separable Gaussians 1.03-1.23x, boxes r7-r31 1.1-1.26x; the
 * 2-D buffer kernel measured 0.77-0.93x with it and keeps its own test). */
#define IS_PIXEL(i) (!BORDER_HAS_OUTSIDE || (i) >= 0)

#if ACC_DOUBLE
/* Where the FFT and runs paths check a float result, and make it again
 * directly where the check fails (cl/fft.cl, cl/runs.cl). */
/* |v|, NaN for NaN (CPU builds declare only the built-ins cl/builtins.cl names). */
static inline double magnitude(double v)
{
    return v < 0 ? -v : v;
}

/* Whether a float result this large beside the least its check keeps is
 * kept: not where `least` is NaN or infinite, nor where the sum is NaN. */
static inline bool kept(double sum, double least)
{
    return least < INFINITY && magnitude(sum) >= least;
}

/* Channel c of pixel (sx, sy), border_index()'s answers, or the border's value. */
static inline double source_value(__global const src_t *src, int width, int sx, int sy, int c,
                                  double border_value)
{
    return IS_PIXEL(sx) && IS_PIXEL(sy) ? (double)src[((size_t)sy * width + sx) * CN + c]
                                        : border_value;
}

/* Output (x, y) of channel c summed directly over every tap of w, in
 * double, zero taps too (0 times a NaN or an infinity is NaN, as the
 * reference has it); *win the in-image taps' weights (NORMALIZE). */
static inline double direct_window(__global const src_t *src, __global const double *w,
                                   int width, int height, int rx, int ry, int x, int y, int c,
                                   double border_value, double *win)
{
    double sum = 0, in = 0;
    for (int j = 0; j <= 2 * ry; j++) {
        int sy = border_index(y + j - ry, height);
        for (int i = 0; i <= 2 * rx; i++) {
            int sx = border_index(x + i - rx, width);
            double t = w[j * (2 * rx + 1) + i];
            sum += t * source_value(src, width, sx, sy, c, border_value);
            in += IS_PIXEL(sx) && IS_PIXEL(sy) ? t : 0;
        }
    }
    *win = in;
    return sum;
}
#endif

#if !RADIUS_ARGS
/* window_taps() for a window that passes the row's ends or is not aligned:
 * each value through border_index(), all of them loaded before the taps as
 * there.  For windows of one channel of at most 20 values (NVIDIA, tiles,
 * 8K and 4K: f32 gray r1 1.04x and 1.11x, r3 1.04x and 1.08x, r7 0.98x
 * and 1.08x, 1001x601 r7 1.5x; u8 gray r1 1.07x and 1.12x, r3 1.02x,
 * 1001x601 1.3x); with 8-bit RGBA windows or wider ones the kernels lost
 * 0.6-0.97x, f32 r15 0.74-0.87x.  Not NORMALIZE: its edge work-items
 * take row_pass() and multiply by their rescales (separable_tile), which
 * through this route measured 0.86-0.98x (u8 gray r3-r7, 8K).  ZERO and
 * CONSTANT, whose window values are each loaded or not, only for windows
 * of at most 12 values: with longer ones the whole tile kernel ran faster
 * without the route (8K and 4K: f32 gray Gaussian r5 1.14-1.19x under
 * ZERO and 1.11-1.31x under CONSTANT, r7 1.04-1.21x and 1.17-1.28x, u8
 * gray r7 under ZERO 1.03-1.05x at 8K), with shorter ones not (f32 gray
 * r1 under ZERO 0.90-0.97x at 8K, r3 0.91-1.10x). */
#define EDGE_WINDOWS                                                           \
    (WINDOWS && CN == 1 && BORDER != BORDER_NORMALIZE &&                        \
     WIN_LEN <= (BORDER_HAS_OUTSIDE ? 12 : 20))
static inline accv_t edge_window_taps(accv_t sum, __global const src_t *row, int v0, int width,
                               acc_t border_value, WEIGHTS w)
{
    acc_t win[WINDOWS ? WIN_LEN : 4];
#pragma unroll
    for (int k = 0; k < (EDGE_WINDOWS ? WIN_LEN : 0); k++) {
        int sx = border_index(v0 - WIN_PAD + k, width);
        win[k] = IS_PIXEL(sx) ? SCALED((acc_t)row[sx]) : border_value;
    }
    WINDOW_TAPS(sum, win, w);
    return sum;
}
#endif

/* NORMALIZE's rescale, all the weights over those in the image: exactly 1
 * where every tap lies in the image, where the kernels pass wsum itself
 * for win (their in-order float sum of the in-image weights can miss the
 * host's, rounded once, by an ulp), whatever the device's division; 0 where
 * the in-image weights sum to 0. */
static inline acc_t rescale(acc_t win, acc_t wsum)
{
    return win == wsum ? 1 : win != 0 ? wsum / win : 0;
}

/* Whether the taps centred on i within radius r all lie in 0..n-1. */
static inline bool all_taps_inside(int i, int r, int n)
{
    return i >= r && i + r < n;
}

#if !RADIUS_ARGS
/* The in-image weights of 2-D output (x, y) as rescale() takes them. */
static inline acc_t window_2d(acc_t win, acc_t wsum, int x, int y, int width, int height)
{
    return all_taps_inside(x, RX, width) && all_taps_inside(y, RY, height) ? wsum : win;
}
#endif

static inline acc_t normalized(acc_t sum, acc_t win, acc_t wsum)
{
#if BORDER == BORDER_NORMALIZE
    return sum * rescale(win, wsum);
#else
    return sum;
#endif
}

/* out = scale * sum + delta, after NORMALIZE's rescale, as dst_t. */
static inline dst_t finish_value(acc_t sum, acc_t win, acc_t wsum, acc_t scale, acc_t delta)
{
    return TO_DST(scale * normalized(sum, win, wsum) + delta);
}

#ifdef ROWS
/* The 2-D kernels' ROWS rows of VEC results from out on, rows rowlen values
 * apart.  Aligned stores or not, decided once for all the rows: with
 * STORE_V()'s test at each store in this unrolled loop, NVIDIA's OpenCL
 * (driver 580.159) stored every row as the first row's test said, and
 * faulted on 8-bit rows whose length is not a multiple of the vector
 * (found by taking the kernel apart, H200). */
static inline void store_rows(const accv_t *sum, acc_t scale, acc_t delta, __global dst_t *out,
                              int rowlen)
{
    if (((size_t)out & (VEC * sizeof(dst_t) - 1)) == 0 && rowlen % VEC == 0) {
#pragma unroll
        for (int k = 0; k < ROWS; k++)
            STORE_V_ALIGNED(scale * sum[k] + delta, out + (size_t)k * rowlen);
    } else {
#pragma unroll
        for (int k = 0; k < ROWS; k++)
            STORE_V_UNALIGNED(scale * sum[k] + delta, out + (size_t)k * rowlen);
    }
}
#endif

#if !RADIUS_ARGS
/* One output value (x, y, channel c) of a 2-D filter the general way, from
 * source rows `pitch` values apart. */
static inline dst_t value_2d(__global const src_t *src, int pitch, int width, int height, int x,
                             int y, int c, WEIGHTS w, acc_t border_value, acc_t scale,
                             acc_t delta, acc_t wsum)
{
    total_t total = 0;
    acc_t win = 0;
    for (int j = 0; j < FH; j++) {
        int sy = border_index(y + j - RY, height);
        IN_ROW(total, sum, {
            for (int i = 0; i < FW; i++) {
                int sx = border_index(x + i - RX, width);
                acc_t wt = w[j * FW + i];
                if (sx >= 0 && sy >= 0) {
                    sum += wt * (acc_t)src[(size_t)sy * pitch + sx * CN + c];
                    win += wt;
                } else {
                    sum += wt * border_value;
                }
            }
        });
    }
    return finish_value((acc_t)total, window_2d(win, wsum, x, y, width, height), wsum, scale,
                        delta);
}
#endif
