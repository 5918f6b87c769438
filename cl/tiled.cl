/*
 * The tiled path (seed 002): a TX x TY work-group copies its tile of the
 * source plus a halo of RX / RY pixels into __local memory once, then each
 * work-item computes its pixel from there.  Expects -DTX -DTY besides
 * common.cl's macros; the host sizes the tile to the device's local memory.
 */
#define TW (TX + 2 * RX)
#define TH (TY + 2 * RY)

__kernel __attribute__((reqd_work_group_size(TX, TY, 1))) void
convolve_tiled(__global const src_t *src, __global dst_t *dst, int width, int height, WEIGHTS w,
               acc_t border_value, acc_t scale, acc_t delta, acc_t wsum)
{
    __local src_t tile[TW * TH * CN];
    STACKED(src, (size_t)width * height * CN);
    STACKED(dst, (size_t)width * height * CN);
    int lx = get_local_id(0), ly = get_local_id(1);
    int x0 = get_group_id(0) * TX - RX, y0 = get_group_id(1) * TY - RY;
    for (int t = ly * TX + lx; t < TW * TH; t += TX * TY) {
        int sx = border_index(x0 + t % TW, width), sy = border_index(y0 + t / TW, height);
        for (int c = 0; c < CN; c++)
            tile[t * CN + c] = sx >= 0 && sy >= 0 ? src[((size_t)sy * width + sx) * CN + c] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int x = x0 + RX + lx, y = y0 + RY + ly;
    if (x >= width || y >= height)
        return;
    acc_t sum[CN], win = 0;
    for (int c = 0; c < CN; c++)
        sum[c] = 0;
    for (int j = 0; j < FH; j++)
        for (int i = 0; i < FW; i++) {
            acc_t wt = w[j * FW + i];
#if BORDER_HAS_OUTSIDE
            if ((uint)(x + i - RX) >= (uint)width || (uint)(y + j - RY) >= (uint)height) {
                for (int c = 0; c < CN; c++)
                    sum[c] += wt * border_value;
                continue;
            }
#endif
            __local const src_t *p = tile + ((ly + j) * TW + lx + i) * CN;
            for (int c = 0; c < CN; c++)
                sum[c] += wt * (acc_t)p[c];
            win += wt;
        }
    win = window_2d(win, wsum, x, y, width, height);
    __global dst_t *out = dst + ((size_t)y * width + x) * CN;
    for (int c = 0; c < CN; c++)
        out[c] = finish_value(sum[c], win, wsum, scale, delta);
}
