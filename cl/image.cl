/*
 * The image path: one work-item computes output pixel (x, y), reading taps
 * from an image2d_t through a sampler the host created (CLAMP_TO_EDGE, or
 * CLAMP for zero borders; nearest, unnormalised).  Expects -DTEXELS: 1 when
 * a pixel is one texel (R, RG, RGBA), CN when the image is stored as a
 * one-channel image CN times as wide (3 channels, or a device without the
 * format); -DSAMPLER_BORDER=1 when the sampler itself gives the border (CLAMP
 * or ZERO with TEXELS 1), else the border is index arithmetic and the
 * sampler never sees an outside coordinate.
 */
#if SRC_TYPE == 2
typedef float4 texel_t;
#define READ(img, s, xy) read_imagef(img, s, xy)
#else
typedef uint4 texel_t;
#define READ(img, s, xy) read_imageui(img, s, xy)
#endif
#define COMPONENT(v, c) ((c) == 0 ? (v).x : (c) == 1 ? (v).y : (c) == 2 ? (v).z : (v).w)

__kernel void convolve_image(__read_only image2d_t src, __write_only image2d_t dst,
                             sampler_t sampler, int width, int height, WEIGHTS w,
                             acc_t border_value, acc_t scale, acc_t delta, acc_t wsum)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    acc_t sum[CN], win = 0;
    for (int c = 0; c < CN; c++)
        sum[c] = 0;
    for (int j = 0; j < FH; j++) {
#if SAMPLER_BORDER
        int sy = y + j - RY;
#else
        int sy = border_index(y + j - RY, height);
#endif
        for (int i = 0; i < FW; i++) {
            acc_t wt = w[j * FW + i];
#if SAMPLER_BORDER
            /* Outside texels read the sampler's edge value or 0. */
            int sx = x + i - RX, inside = 1;
#else
            int sx = border_index(x + i - RX, width), inside = sx >= 0 && sy >= 0;
#endif
            if (inside) {
#if TEXELS > 1
                for (int c = 0; c < CN; c++)
                    sum[c] += wt * (acc_t)READ(src, sampler, (int2)(TEXELS * sx + c, sy)).x;
#else
                texel_t v = READ(src, sampler, (int2)(sx, sy));
                for (int c = 0; c < CN; c++)
                    sum[c] += wt * (acc_t)COMPONENT(v, c);
#endif
                win += wt;
            } else {
                for (int c = 0; c < CN; c++)
                    sum[c] += wt * border_value;
            }
        }
    }
    win = window_2d(win, wsum, x, y, width, height);
#if DST_TYPE == 2
#define WRITE(xy, v) write_imagef(dst, xy, v)
    float4 out = 0;
#else
#define WRITE(xy, v) write_imageui(dst, xy, v)
    uint4 out = 0;
#endif
#if TEXELS > 1
    for (int c = 0; c < CN; c++) {
        out.x = finish_value(sum[c], win, wsum, scale, delta);
        WRITE((int2)(TEXELS * x + c, y), out);
    }
#else
    out.x = finish_value(sum[0], win, wsum, scale, delta);
#if CN > 1
    out.y = finish_value(sum[1], win, wsum, scale, delta);
#endif
#if CN > 2
    out.z = finish_value(sum[2], win, wsum, scale, delta);
#endif
#if CN > 3
    out.w = finish_value(sum[3], win, wsum, scale, delta);
#endif
    WRITE((int2)(x, y), out);
#endif
}
