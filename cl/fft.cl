/*
 * The FFT path (src/path_fft.c): overlap-save in tiles of T x T.  A plane
 * is one channel of one tile: its T x T source values from column
 * x0 - rx and row y0 - ry, across the border as border_index() makes it,
 * where (x0, y0) is the tile's first output; T - 2 rx by T - 2 ry outputs a
 * tile.  Planes lie in a group's buffer of doubles, each T rows of T + 2
 * (the in-place real-to-complex layout: T / 2 + 1 complex values a row).
 * Plane p of a group whose first is `first` is tile (first + p) / CN,
 * channel (first + p) % CN; tiles go along rows of `tiles_x`.
 * Between fft_gather and fft_scatter VkFFT transforms the planes, and
 * fft_multiply weighs each by the filter's spectrum.
 * Expects common.cl's macros with -DRADIUS_ARGS=1 and -DACC_DOUBLE=1.
 * Float results take fft_row_extent and fft_extent first.
 */
#define PLANE(T) ((size_t)(T) * (size_t)((T) + 2))

/* Work-item (i, p * T + j): value i of row j of plane p. */
__kernel void fft_gather(__global const src_t *src, __global double *planes, int width,
                         int height, int rx, int ry, int T, int tiles_x, int first, int count,
                         double border_value)
{
    int i = get_global_id(0), pj = get_global_id(1);
    int p = pj / T, j = pj % T;
    if (i >= T || p >= count)
        return;
    int plane = first + p, tile = plane / CN, c = plane % CN;
    int x0 = tile % tiles_x * (T - 2 * rx), y0 = tile / tiles_x * (T - 2 * ry);
    int sx = border_index(x0 - rx + i, width), sy = border_index(y0 - ry + j, height);
    planes[p * PLANE(T) + (size_t)j * (T + 2) + i] =
        source_value(src, width, sx, sy, c, border_value);
}

/* Work-item y: the largest magnitude of row y's values, infinite where
 * one is not finite; then one work-item: the largest of the rows'.  For
 * float results, whose bound needs the image's extent (fft_scatter). */
__kernel void fft_row_extent(__global const src_t *src, __global double *rows, int width,
                             int height)
{
    int y = get_global_id(0);
    if (y >= height)
        return;
    __global const src_t *row = src + (size_t)y * width * CN;
    double most = 0;
    for (int k = 0; k < width * CN; k++) {
        double v = magnitude((double)row[k]);
        most = v <= most ? most : v <= DBL_MAX ? v : INFINITY;
    }
    rows[y] = most;
}

__kernel void fft_extent(__global double *rows, int height)
{
    double most = 0;
    for (int y = 0; y < height; y++)
        most = rows[y] <= most ? most : rows[y];
    rows[height] = most;
}

/* Work-item (k, p): complex value k of plane p times the spectrum's. */
__kernel void fft_multiply(__global double2 *planes, __global const double2 *spectrum, int T,
                           int count)
{
    int k = get_global_id(0), p = get_global_id(1);
    int values = T * (T / 2 + 1);
    if (k >= values || p >= count)
        return;
    __global double2 *z = planes + (size_t)p * values + k;
    double2 a = *z, b = spectrum[k];
    *z = (double2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* Output (x, y, c) from its plane's value v, T^2 times the sum: the
 * inverse transform leaves that power of two, divided exactly; where the
 * sums of the filter's weights over integers lie on a grid of 1 / grid
 * (dyadic weights, grid a power of two, 0 for none), the sum is rounded to
 * it first, so that exact ties stay exact.  Float results: the transforms'
 * error follows the tile's norm, at most `reach` times the largest value
 * (extent[height], fft_extent) over 2 10^5, and a sum that small beside it
 * could be made of terms too small for the contract's 1e-5 of them, so it
 * is made again directly, in double (w: the filter's taps); a non-finite
 * value makes every sum so. */
static inline dst_t scattered(double v, int T, double grid, double scale, double delta,
                              __global const src_t *src, __global const double *w,
                              __global const double *extent, double reach, double border_value,
                              int width, int height, int rx, int ry, int x, int y, int c)
{
    double sum = v / ((double)T * T);
    if (grid > 0)
        sum = (sum * grid + 0x1.8p52 - 0x1.8p52) / grid;
#if DST_TYPE == 2
    double least = fmax(extent[height], magnitude(border_value)) * reach;
    double in_image;
    if (!kept(sum, least))
        sum = direct_window(src, w, width, height, rx, ry, x, y, c, border_value, &in_image);
#endif
    acc_t r = scale * sum + delta;
    return TO_DST(r);
}

#define SCATTER_ARGS                                                                       \
    __global const double *planes, __global dst_t *dst, int width, int height, int rx, int ry, \
        int T, int tiles_x, int first, int count, double grid, double scale, double delta,      \
        __global const src_t *src, __global const double *w, __global const double *extent,   \
        double reach, double border_value
#define SCATTERED(v, c)                                                                   \
    scattered(v, T, grid, scale, delta, src, w, extent, reach, border_value, width, height, rx, \
              ry, x, y, c)

/* Work-item (xx, p * (T - 2 ry) + yy): the output at (x0 + xx, y0 + yy) of
 * plane p's tile and channel. */
__kernel void fft_scatter(SCATTER_ARGS)
{
    int vx = T - 2 * rx, vy = T - 2 * ry;
    int xx = get_global_id(0), pyy = get_global_id(1);
    int p = pyy / vy, yy = pyy % vy;
    if (xx >= vx || p >= count)
        return;
    int plane = first + p, tile = plane / CN, c = plane % CN;
    int x = tile % tiles_x * vx + xx, y = tile / tiles_x * vy + yy;
    if (x >= width || y >= height)
        return;
    double v = planes[p * PLANE(T) + (size_t)(ry + yy) * (T + 2) + rx + xx];
    dst[((size_t)y * width + x) * CN + c] = SCATTERED(v, c);
}

#if CN > 1
/* Several channels, groups of whole tiles: a work-item a pixel, its
 * channels' planes in turn, gathered from one load and scattered in one
 * store, where one a value made strided single accesses.  Work-item
 * (i, t * T + j): value i of row j of the group's tile t. */
__kernel void fft_gather_px(__global const src_t *src, __global double *planes, int width,
                            int height, int rx, int ry, int T, int tiles_x, int first, int count,
                            double border_value)
{
    int i = get_global_id(0), tj = get_global_id(1);
    int t = tj / T, j = tj % T;
    if (i >= T || t * CN >= count)
        return;
    int tile = first / CN + t;
    int x0 = tile % tiles_x * (T - 2 * rx), y0 = tile / tiles_x * (T - 2 * ry);
    int sx = border_index(x0 - rx + i, width), sy = border_index(y0 - ry + j, height);
    double v[CN];
    if (IS_PIXEL(sx) && IS_PIXEL(sy))
        CAT(vstore, CN)(LOAD_PIXEL(double, src + ((size_t)sy * width + sx) * CN), 0, v);
    else
        for (int c = 0; c < CN; c++)
            v[c] = border_value;
    for (int c = 0; c < CN; c++)
        planes[(size_t)(t * CN + c) * PLANE(T) + (size_t)j * (T + 2) + i] = v[c];
}

/* Work-item (xx, t * (T - 2 ry) + yy): the pixel at (x0 + xx, y0 + yy) of
 * the group's tile t. */
__kernel void fft_scatter_px(SCATTER_ARGS)
{
    int vx = T - 2 * rx, vy = T - 2 * ry;
    int xx = get_global_id(0), tyy = get_global_id(1);
    int t = tyy / vy, yy = tyy % vy;
    if (xx >= vx || t * CN >= count)
        return;
    int tile = first / CN + t;
    int x = tile % tiles_x * vx + xx, y = tile / tiles_x * vy + yy;
    if (x >= width || y >= height)
        return;
    dst_t r[CN];
    for (int c = 0; c < CN; c++)
        r[c] = SCATTERED(planes[(size_t)(t * CN + c) * PLANE(T) + (size_t)(ry + yy) * (T + 2) +
                                rx + xx],
                         c);
#if CN == 3
    vstore3(vload3(0, r), 0, dst + ((size_t)y * width + x) * CN);
#else
    *(__global CAT(DST_NAME, CN) *)(dst + ((size_t)y * width + x) * CN) = CAT(vload, CN)(0, r);
#endif
}
#endif
