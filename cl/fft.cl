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
    double v = IS_PIXEL(sx) && IS_PIXEL(sy)
                   ? (double)src[((size_t)sy * width + sx) * CN + c]
                   : border_value;
    planes[p * PLANE(T) + (size_t)j * (T + 2) + i] = v;
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

/* Work-item (xx, p * (T - 2 ry) + yy): the output at (x0 + xx, y0 + yy) of
 * plane p's tile and channel.  The inverse transform leaves T^2 times the
 * sum, a power of two, divided exactly; where the sums of the filter's
 * weights over integers lie on a grid of 1 / grid (dyadic weights, grid a
 * power of two, 0 for none), the sum is rounded to it first, so that exact
 * ties stay exact. */
__kernel void fft_scatter(__global const double *planes, __global dst_t *dst, int width,
                          int height, int rx, int ry, int T, int tiles_x, int first, int count,
                          double grid, double scale, double delta)
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
    double sum = planes[p * PLANE(T) + (size_t)(ry + yy) * (T + 2) + rx + xx] / ((double)T * T);
    if (grid > 0)
        sum = (sum * grid + 0x1.8p52 - 0x1.8p52) / grid;
    acc_t r = scale * sum + delta;
    dst[((size_t)y * width + x) * CN + c] = TO_DST(r);
}
