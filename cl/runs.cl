/*
 * The runs path: filters of few distinct weights (discs, rings, hexagons:
 * bokeh).  Each row of such a filter is a few runs of equal taps, and a
 * run's sum over a window of a source row is the difference of two of
 * that row's prefix sums, so an output costs two loads a run, not a
 * multiply-add a tap: a 63x63 disc about 126, not 3969.  Each level's sum
 * is weighed once, in double.
 *
 * runs_prefix: row y's prefix sums P[k], k = 0 .. width + 2 rx, of the row
 * laid out from column -rx to width - 1 + rx as the border makes it (0
 * where it reads no pixel), a channel at a time: P[0] = 0 and P[k + 1] =
 * P[k] + v(k - rx).  8- and 16-bit images in uint, modulo 2^32: a
 * difference of two is a run's sum, at most 4095 taps of 65535, so it
 * comes out exact.  Float images in double, which is not exact: a run's
 * sum P[b + 1] - P[a] is P[a] with the run's values added to it one by
 * one, each addition rounding by at most u (2^-53) of its result, so it
 * moves by at most (b - a + 1) u M, M the row's largest prefix magnitude
 * (after the rows' prefix sums, infinite where a value is not finite), and
 * by nothing where the run holds only zeros (their counts, after M).
 *
 * runs_sum: VEC output values a work-item.  Each run (dy, a, b) of the table
 * (src/path_runs.c) adds row y + dy's values x + a .. x + b; runs come
 * sorted by level, after the levels' weights.  Under ZERO, CONSTANT and
 * NORMALIZE the in-image taps of a run are counted from its columns.  A
 * float result is kept where its magnitude is at least 2 10^5 times the
 * bound on its error, its runs' bounds weighed by their levels' magnitudes
 * with the roundings of adding and weighing them (`reach` u per unit,
 * src/path_runs.c): its terms are as large, and the error at most half the
 * contract's 1e-5 of them.  Any other (terms that cancel, values far
 * apart, a row holding a NaN or an infinity) is summed again directly from
 * the source over every tap, in double.
 */
#if SRC_TYPE == 2
#define FLOAT_SUMS 1
#define LEVEL_SUM double
#define PREFIX double
#elif SRC_TYPE == 0
#define FLOAT_SUMS 0
#define LEVEL_SUM uint /* at most 2^22 taps of 255 */
#define PREFIX uint
#else
#define FLOAT_SUMS 0
#define LEVEL_SUM ulong
#define PREFIX uint
#endif
typedef LEVEL_SUM level_sum_t;
typedef PREFIX prefix_t;

__kernel void runs_prefix(__global const src_t *src, __global prefix_t *prefix, int width,
                          int height, int rx)
{
    int y = get_global_id(0);
    if (y >= height)
        return;
    size_t plen = (size_t)(width + 2 * rx + 1) * CN;
    __global const src_t *row = src + (size_t)y * width * CN;
    __global prefix_t *p = prefix + (size_t)y * plen;
    prefix_t sum[CN];
#if FLOAT_SUMS
    /* After the rows' prefix sums, the rows' M, then their counts of
     * values that are not 0, laid out as the sums are. */
    double most = 0;
    __global double *row_most = (__global double *)(prefix + (size_t)height * plen);
    __global uint *count = (__global uint *)(row_most + height) + (size_t)y * plen;
    uint nonzero[CN];
#endif
    for (int c = 0; c < CN; c++) {
        sum[c] = 0;
        p[c] = 0;
#if FLOAT_SUMS
        nonzero[c] = count[c] = 0;
#endif
    }
    for (int k = 0; k < width + 2 * rx; k++) {
        int sx = border_index(k - rx, width);
        for (int c = 0; c < CN; c++) {
            prefix_t v = sx >= 0 ? (prefix_t)row[(size_t)sx * CN + c] : 0;
            sum[c] += v;
            p[(size_t)(k + 1) * CN + c] = sum[c];
#if FLOAT_SUMS
            most = fmax(most, magnitude((double)sum[c]));
            nonzero[c] += v != 0;
            count[(size_t)(k + 1) * CN + c] = nonzero[c];
#endif
        }
    }
#if FLOAT_SUMS
    /* A value that is not finite leaves its channel's last prefix so (a
     * double does not overflow adding a row of floats). */
    for (int c = 0; c < CN; c++)
        most = magnitude((double)sum[c]) <= DBL_MAX ? most : INFINITY;
    row_most[y] = most;
#endif
}

#if !FLOAT_SUMS
/* GPUs, 8- and 16-bit images: the same prefix sums, a row's channel a
 * work-group of PREFIX_GROUP work-items, each adding a stretch of the row,
 * the stretches' sums scanned in local memory, then each writing its
 * stretch's prefix sums on from the sum of those before it (in uint,
 * modulo 2^32: the same in any order).  A row a work-item (runs_prefix)
 * left most of a GPU idle. */
__kernel void runs_prefix_rows(__global const src_t *src, __global prefix_t *prefix, int width,
                               int height, int rx)
{
    __local uint part[PREFIX_GROUP];
    int g = get_group_id(0), l = get_local_id(0), y = g / CN, c = g % CN;
    if (y >= height)
        return; /* the whole group */
    int n = width + 2 * rx, per = (n + PREFIX_GROUP - 1) / PREFIX_GROUP;
    int k0 = min(n, l * per), k1 = min(n, k0 + per);
    __global const src_t *row = src + (size_t)y * width * CN + c;
    __global uint *p = prefix + (size_t)y * (size_t)(n + 1) * CN + c;
    uint own = 0;
    for (int k = k0; k < k1; k++) {
        int sx = border_index(k - rx, width);
        own += sx >= 0 ? (uint)row[(size_t)sx * CN] : 0u;
    }
    part[l] = own;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < PREFIX_GROUP; d *= 2) { /* the stretches' sums, inclusive */
        uint before = l >= d ? part[l - d] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        part[l] += before;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint sum = part[l] - own;
    if (l == 0)
        p[0] = 0;
    for (int k = k0; k < k1; k++) {
        int sx = border_index(k - rx, width);
        sum += sx >= 0 ? (uint)row[(size_t)sx * CN] : 0u;
        p[(size_t)(k + 1) * CN] = sum;
    }
}
#endif

/* The sums of every run of an output (or VEC consecutive outputs) at
 * column x into sum_ (T: a value or VEC of them, RUN(sy, q) run q's sum
 * over source row sy, CVT it to double) and win_ (NORMALIZE: the weights
 * of the taps in the image, counted at column x, which stands for every
 * output of a vector whose taps all lie in the image's columns); MASS(sy,
 * q) adds the run's share of the float bound.  Each level's sum is
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
#define RUN_SUMS(T, RUN, CVT, MASS)                                                        \
    {                                                                                      \
        T acc_ = 0;                                                                        \
        int inside_ = 0, taps_ = 0, lvl_ = runs[0].w;                                      \
        for (int r = 0; r < run_count; r++) {                                              \
            int4 q = runs[r];                                                              \
            if (q.w != lvl_) {                                                             \
                LEVEL_DONE(CVT);                                                           \
                acc_ = 0;                                                                  \
                inside_ = taps_ = 0;                                                       \
                lvl_ = q.w;                                                                \
            }                                                                              \
            int sy = inside_y ? y + q.x : border_index(y + q.x, height);                  \
            taps_ += q.z - q.y + 1;                                                        \
            if (sy < 0)                                                                    \
                continue;                                                                  \
            acc_ += RUN(sy, q);                                                            \
            MASS(sy, q);                                                                   \
            if (BORDER_HAS_OUTSIDE)                                                        \
                inside_ += max(0, min(x + q.z, width - 1) - max(x + q.y, 0) + 1);          \
        }                                                                                  \
        LEVEL_DONE(CVT);                                                                   \
    }

/* A run's sum from the prefix sums of its row: `col` points at the
 * output's (or vector's) first tap column x - rx in row 0. */
#define PREFIX_RUN(LOAD, WIDEN, sy, q)                                                     \
    WIDEN(LOAD(col + (size_t)(sy) * plen + ((q).z + 1) * CN) -                             \
          LOAD(col + (size_t)(sy) * plen + (q).y * CN))
#define PREFIX_ONE(sy, q) PREFIX_RUN(LOAD_ONE, WIDEN_ONE, sy, q)
#define PREFIX_VEC(sy, q) PREFIX_RUN(LOAD_VEC, WIDEN_VEC, sy, q)
#if FLOAT_SUMS
#define ROW_MASS(sy, q)                                                                    \
    (mass_ += magnitude(levels[(q).w]) * (double)((q).z - (q).y + 1 + spare) * most[sy])
#else
#define ROW_MASS(sy, q) ((void)0)
#endif
/* The same bound, less the runs of zeros only, whose sums are exact (their
 * prefix sums' additions add nothing): a black region's sums.  Taken only
 * where the whole bound keeps nothing (MASS_LESS_ZEROS). */
#if FLOAT_SUMS
#define MASS_LESS_ZEROS(NONZERO)                                                           \
    do {                                                                                   \
        mass_ = 0;                                                                         \
        for (int r = 0; r < run_count; r++) {                                              \
            int4 q = runs[r];                                                              \
            int sy = inside_y ? y + q.x : border_index(y + q.x, height);                  \
            if (sy >= 0)                                                                   \
                NONZERO(sy, q);                                                            \
        }                                                                                  \
    } while (0)
#define NONZERO_MASS(sy, q)                                                                \
    do {                                                                                   \
        __global const uint *n_ = ncol + (size_t)(sy) * plen;                               \
        if (n_[((q).z + 1) * CN] != n_[(q).y * CN])                                        \
            ROW_MASS(sy, q);                                                               \
    } while (0)
/* A vector of values whose channels each take VEC / CN of them: the runs
 * of zeros for all of them, each channel's from its first value's first
 * tap to its last value's last. */
#if VEC > 1 && VEC % CN == 0
#define NONZERO_MASS_V(sy, q)                                                              \
    do {                                                                                   \
        __global const uint *n_ = ncol + (size_t)(sy) * plen;                               \
        bool zeros_ = true;                                                                \
        for (int c_ = 0; c_ < CN; c_++)                                                    \
            zeros_ = zeros_ && n_[((q).z + 1) * CN + VEC - CN + c_] == n_[(q).y * CN + c_]; \
        if (!zeros_)                                                                       \
            ROW_MASS(sy, q);                                                               \
    } while (0)
#else
#define NONZERO_MASS_V ROW_MASS
#endif
#endif

#define LOAD_ONE(p) (*(p))
#define WIDEN_ONE(a) ((level_sum_t)(a))
#define TO_DOUBLE(a) ((double)(a))
#if VEC > 1
typedef CAT(LEVEL_SUM, VEC) level_sumv_t;
/* A prefix sum's vector starts at any value: loaded through a type aligned
 * to one value, which LLVM takes in one unaligned load where vloadN of
 * uint came out as 8-byte pieces put together (PoCL, AVX-512: 4K u8 gray
 * 31x31 disc 1.6-2x, RGBA8 1.3x). */
typedef CAT(PREFIX, VEC) __attribute__((aligned(sizeof(prefix_t)))) prefixv_t;
#define LOAD_VEC(p) (*(__global const prefixv_t *)(p))
#define WIDEN_VEC(a) CAT(convert_, CAT(LEVEL_SUM, VEC))(a)
#define TO_DOUBLE_V(a) CAT(convert_double, VEC)(a)
#else
typedef level_sum_t level_sumv_t;
#define LOAD_VEC LOAD_ONE
#define WIDEN_VEC WIDEN_ONE
#define TO_DOUBLE_V TO_DOUBLE
#endif

#if FLOAT_SUMS
/* kept() (cl/common.cl) for every value of a vector. */
static inline bool all_kept(accv_t sum, double least)
{
#if VEC > 1
    union {
        accv_t v;
        double s[VEC];
    } u;
    u.v = sum;
    bool ok = least < INFINITY;
    for (int i = 0; i < VEC; i++)
        ok = ok && magnitude(u.s[i]) >= least;
    return ok;
#else
    return kept(sum, least);
#endif
}

#endif

/* VEC consecutive values of a row a work-item: where every tap of theirs
 * lies in the image's columns, together, as vectors; else one at a time. */
__kernel void runs_sum(__global const prefix_t *prefix, __global dst_t *dst, int width,
                       int height, int rx, int ry, __global const int4 *table, int level_count,
                       int run_count, double border_value, double scale, double delta,
                       double wsum, __global const src_t *src, __global const double *w,
                       double reach)
{
    int v0 = get_global_id(0) * VEC, y = get_global_id(1), rowlen = width * CN;
    if (v0 >= rowlen || y >= height)
        return;
    __global const double *levels = (__global const double *)table;
    __global const int4 *runs = table + level_count / 2;
    size_t plen = (size_t)(width + 2 * rx + 1) * CN;
    __global dst_t *out = dst + (size_t)y * rowlen + v0;
    int inside_y = y >= ry && y + ry < height;
#if FLOAT_SUMS
    /* Each run's bound: its additions, and its share of adding a level's
     * runs (at most 2 M each) and of weighing and adding the levels. */
    __global const double *most = (__global const double *)(prefix + (size_t)height * plen);
    __global const uint *nonzero = (__global const uint *)(most + height);
    int spare = 2 * run_count + 4;
#else
    (void)src;
    (void)w;
    (void)reach;
#endif
    if (v0 / CN >= rx && (v0 + VEC - 1) / CN + rx < width && v0 + VEC <= rowlen) {
        /* Column k of the laid-out row holds image column k - rx. */
        __global const prefix_t *col = prefix + v0 + rx * CN;
        int x = v0 / CN;
        accv_t sum_ = 0;
        double win_ = 0, mass_ = 0;
        RUN_SUMS(level_sumv_t, PREFIX_VEC, TO_DOUBLE_V, ROW_MASS);
#if FLOAT_SUMS
        if (!all_kept(sum_, reach * mass_)) {
            __global const uint *ncol = nonzero + v0 + rx * CN;
            MASS_LESS_ZEROS(NONZERO_MASS_V);
        }
        if (all_kept(sum_, reach * mass_))
#endif
        {
#if BORDER == BORDER_NORMALIZE
            sum_ *= rescale(inside_y ? wsum : win_, wsum);
#endif
            STORE_V(scale * sum_ + delta, out);
            return;
        }
    }
    for (int k = 0; k < VEC && v0 + k < rowlen; k++) {
        int x = (v0 + k) / CN;
        __global const prefix_t *col = prefix + v0 + k + rx * CN;
        double sum_ = 0, win_ = 0, mass_ = 0;
        RUN_SUMS(level_sum_t, PREFIX_ONE, TO_DOUBLE, ROW_MASS);
#if FLOAT_SUMS
        if (!kept(sum_, reach * mass_)) {
            __global const uint *ncol = nonzero + v0 + k + rx * CN;
            MASS_LESS_ZEROS(NONZERO_MASS);
        }
        if (!kept(sum_, reach * mass_))
            sum_ = direct_window(src, w, width, height, rx, ry, x, y, (v0 + k) % CN,
                                 border_value, &win_);
#endif
        /* NORMALIZE: every tap in the image rescales by exactly 1. */
        out[k] = finish_value(sum_, inside_y && x >= rx && x + rx < width ? wsum : win_, wsum,
                              scale, delta);
    }
}
