/*
 * The plain path: one work-item computes the CN values of output pixel
 * (x, y), reading every tap from global memory through border_index().
 * Images are packed rows of width * CN values.
 */
__kernel void convolve_buffer(__global const src_t *src, __global dst_t *dst, int width,
                              int height, WEIGHTS w, acc_t border_value, acc_t scale,
                              acc_t delta, acc_t wsum)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    acc_t sum[CN], win = 0;
    for (int c = 0; c < CN; c++)
        sum[c] = 0;
    for (int j = 0; j < FH; j++) {
        int sy = border_index(y + j - RY, height);
        for (int i = 0; i < FW; i++) {
            int sx = border_index(x + i - RX, width);
            acc_t wt = w[j * FW + i];
            if (sx >= 0 && sy >= 0) {
                __global const src_t *p = src + ((size_t)sy * width + sx) * CN;
                for (int c = 0; c < CN; c++)
                    sum[c] += wt * (acc_t)p[c];
                win += wt;
            } else {
                for (int c = 0; c < CN; c++)
                    sum[c] += wt * border_value;
            }
        }
    }
    __global dst_t *out = dst + ((size_t)y * width + x) * CN;
    for (int c = 0; c < CN; c++)
        out[c] = finish_value(sum[c], win, wsum, scale, delta);
}
