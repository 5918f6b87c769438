/*
 * The runs path: filters of few distinct weights (discs, rings, hexagons:
 * bokeh) on 8- and 16-bit images.  Each row of such a filter is a few runs
 * of equal taps, and a run's sum over a window of a source row is the
 * difference of two of that row's prefix sums, so an output costs two
 * loads a run, not a multiply-add a tap: a 63x63 disc about 126, not 3969.
 * Integer sums are exact; each level's sum is weighed once, in double.
 *
 * runs_prefix: row y's prefix sums P[k], k = 0 .. width + 2 rx, of the row
 * laid out from column -rx to width - 1 + rx as the border makes it (0
 * where it reads no pixel), a channel at a time: P[0] = 0 and P[k + 1] =
 * P[k] + v(k - rx).  In uint, modulo 2^32: a difference of two is a run's
 * sum, at most 4095 taps of 65535, so it comes out exact.
 *
 * runs_sum: VEC output values a work-item.  Each run (dy, a, b) of the table
 * (src/path_runs.c) adds row y + dy's values x + a .. x + b; runs come
 * sorted by level, after the levels' weights.  Under ZERO, CONSTANT and
 * NORMALIZE the in-image taps of a run are counted from its columns.
 */
#if SRC_TYPE == 0
#define LEVEL_SUM uint /* at most 2^22 taps of 255 */
#else
#define LEVEL_SUM ulong
#endif
typedef LEVEL_SUM level_sum_t;

__kernel void runs_prefix(__global const src_t *src, __global uint *prefix, int width,
                          int height, int rx)
{
    int y = get_global_id(0);
    if (y >= height)
        return;
    size_t plen = (size_t)(width + 2 * rx + 1) * CN;
    __global const src_t *row = src + (size_t)y * width * CN;
    __global uint *p = prefix + (size_t)y * plen;
    uint sum[CN];
    for (int c = 0; c < CN; c++) {
        sum[c] = 0;
        p[c] = 0;
    }
    for (int k = 0; k < width + 2 * rx; k++) {
        int sx = border_index(k - rx, width);
        for (int c = 0; c < CN; c++) {
            sum[c] += sx >= 0 ? (uint)row[(size_t)sx * CN + c] : 0u;
            p[(size_t)(k + 1) * CN + c] = sum[c];
        }
    }
}

/* The sums of every run for `col`, the prefix sums of an output's (or
 * VEC consecutive outputs') first tap column x - rx in row 0, into sum_
 * (T: a value or VEC of them, LOAD(p) as many prefix sums from p, CVT them
 * to double) and win_ (NORMALIZE: the weights of the taps in the image,
 * counted at column x, which stands for every output of a vector whose
 * taps all lie in the image's columns).  Each level's integer sum is
 * weighed once, when its runs end; CONSTANT adds its outside taps times
 * the border's value.  Rows whose taps all lie in the image (inside_y)
 * read their source rows unfolded (1.05x). */
#if BORDER == BORDER_CONSTANT
#define LEVEL_DONE(CVT)                                                                    \
    (sum_ += levels[lvl_] * CVT(acc_) +                                                    \
             levels[lvl_] * (border_value * (double)(taps_ - inside_)))
#else
#define LEVEL_DONE(CVT) (sum_ += levels[lvl_] * CVT(acc_), win_ += levels[lvl_] * (double)inside_)
#endif
#define RUN_SUMS(T, LOAD, WIDEN, CVT)                                                      \
    T acc_ = 0;                                                                            \
    int inside_ = 0, taps_ = 0, lvl_ = runs[0].w;                                          \
    for (int r = 0; r < run_count; r++) {                                                  \
        int4 q = runs[r];                                                                  \
        if (q.w != lvl_) {                                                                 \
            LEVEL_DONE(CVT);                                                               \
            acc_ = 0;                                                                      \
            inside_ = taps_ = 0;                                                           \
            lvl_ = q.w;                                                                    \
        }                                                                                  \
        int sy = inside_y ? y + q.x : border_index(y + q.x, height);                      \
        taps_ += q.z - q.y + 1;                                                            \
        if (sy < 0)                                                                        \
            continue;                                                                      \
        __global const uint *p = col + (size_t)sy * plen;                                  \
        acc_ += WIDEN(LOAD(p + (q.z + 1) * CN) - LOAD(p + q.y * CN));                      \
        if (BORDER_HAS_OUTSIDE)                                                            \
            inside_ += max(0, min(x + q.z, width - 1) - max(x + q.y, 0) + 1);              \
    }                                                                                      \
    LEVEL_DONE(CVT)

#define LOAD_ONE(p) (*(p))
#define WIDEN_ONE(a) ((level_sum_t)(a))
#define TO_DOUBLE(a) ((double)(a))
#if VEC > 1
typedef CAT(LEVEL_SUM, VEC) level_sumv_t;
/* A prefix sum's vector starts at any value: loaded through a type aligned
 * to one value, which LLVM takes in one unaligned load where vloadN of
 * uint came out as 8-byte pieces put together (PoCL, AVX-512: 4K u8 gray
 * 31x31 disc 1.6-2x, RGBA8 1.3x). */
typedef CAT(uint, VEC) __attribute__((aligned(4))) prefixv_t;
#define LOAD_VEC(p) (*(__global const prefixv_t *)(p))
#define WIDEN_VEC(a) CAT(convert_, CAT(LEVEL_SUM, VEC))(a)
#define TO_DOUBLE_V(a) CAT(convert_double, VEC)(a)
#else
typedef level_sum_t level_sumv_t;
#define LOAD_VEC LOAD_ONE
#define WIDEN_VEC WIDEN_ONE
#define TO_DOUBLE_V TO_DOUBLE
#endif

/* VEC consecutive values of a row a work-item: where every tap of theirs
 * lies in the image's columns, together, as vectors; else one at a time. */
__kernel void runs_sum(__global const uint *prefix, __global dst_t *dst, int width, int height,
                       int rx, int ry, __global const int4 *table, int level_count, int run_count,
                       double border_value, double scale, double delta, double wsum)
{
    int v0 = get_global_id(0) * VEC, y = get_global_id(1), rowlen = width * CN;
    if (v0 >= rowlen || y >= height)
        return;
    __global const double *levels = (__global const double *)table;
    __global const int4 *runs = table + level_count / 2;
    size_t plen = (size_t)(width + 2 * rx + 1) * CN;
    __global dst_t *out = dst + (size_t)y * rowlen + v0;
    int inside_y = y >= ry && y + ry < height;
    if (v0 / CN >= rx && (v0 + VEC - 1) / CN + rx < width && v0 + VEC <= rowlen) {
        /* Column k of the laid-out row holds image column k - rx. */
        __global const uint *col = prefix + v0 + rx * CN;
        int x = v0 / CN;
        accv_t sum_ = 0;
        double win_ = 0;
        RUN_SUMS(level_sumv_t, LOAD_VEC, WIDEN_VEC, TO_DOUBLE_V);
#if BORDER == BORDER_NORMALIZE
        sum_ *= rescale(inside_y ? wsum : win_, wsum);
#endif
        STORE_V(scale * sum_ + delta, out);
        return;
    }
    for (int k = 0; k < VEC && v0 + k < rowlen; k++) {
        int x = (v0 + k) / CN;
        __global const uint *col = prefix + v0 + k + rx * CN;
        double sum_ = 0, win_ = 0;
        RUN_SUMS(level_sum_t, LOAD_ONE, WIDEN_ONE, TO_DOUBLE);
        /* NORMALIZE: every tap in the image rescales by exactly 1. */
        out[k] = finish_value(sum_, inside_y && x >= rx && x + rx < width ? wsum : win_, wsum,
                              scale, delta);
    }
}
