/*
 * The separable path, w[j][i] = col[j] * row[i], in two passes over rows of
 * width * CN values, each work-item VEC consecutive values of one row:
 * separable_rows filters along x into an acc_t scratch image whose rows are
 * `pitch` values apart (a multiple of VEC); separable_cols filters that along
 * y into the destination.  NORMALIZE rescales in each pass, since the
 * in-image part of the filter is a rectangle.
 */

__kernel void separable_rows(__global const src_t *src, __global acc_t *tmp, int width,
                             int height, int pitch, WEIGHTS row, acc_t border_value,
                             acc_t row_sum)
{
    int v0 = get_global_id(0) * VEC, y = get_global_id(1), rowlen = width * CN;
    if (v0 >= rowlen || y >= height)
        return;
    __global const src_t *in = src + (size_t)y * rowlen;
    __global acc_t *out = tmp + (size_t)y * pitch + v0;
    if (v0 >= RX * CN && v0 + VEC + RX * CN <= rowlen) {
        accv_t sum = 0;
        __global const src_t *p = in + v0 - RX * CN;
        for (int i = 0; i < FW; i++)
            sum += row[i] * LOAD_V(p + i * CN);
        STORE_ACC_V(sum, out);
        return;
    }
    for (int k = 0; k < VEC && v0 + k < rowlen; k++) {
        int x = (v0 + k) / CN, c = (v0 + k) % CN;
        acc_t sum = 0, win = 0;
        for (int i = 0; i < FW; i++) {
            int sx = border_index(x + i - RX, width);
            if (sx >= 0) {
                sum += row[i] * (acc_t)in[sx * CN + c];
                win += row[i];
            } else {
                sum += row[i] * border_value;
            }
        }
        out[k] = normalized(sum, win, row_sum);
    }
}

/* `outside_row` is what a whole row outside the image contributes after the
 * row pass: border_value * sum(row) for CONSTANT, else 0. */
__kernel void separable_cols(__global const acc_t *tmp, __global dst_t *dst, int width,
                             int height, int pitch, WEIGHTS col, acc_t outside_row, acc_t scale,
                             acc_t delta, acc_t col_sum)
{
    int v0 = get_global_id(0) * VEC, y = get_global_id(1), rowlen = width * CN;
    if (v0 >= rowlen || y >= height)
        return;
    accv_t sum = 0;
    acc_t win = 0;
    for (int j = 0; j < FH; j++) {
        int sy = border_index(y + j - RY, height);
        if (sy >= 0) {
            sum += col[j] * LOAD_ACC_V(tmp + (size_t)sy * pitch + v0);
            win += col[j];
        } else {
            sum += col[j] * outside_row;
        }
    }
#if BORDER == BORDER_NORMALIZE
    sum = win != 0 ? sum * (col_sum / win) : (accv_t)0;
#endif
    accv_t r = scale * sum + delta;
    __global dst_t *out = dst + (size_t)y * rowlen + v0;
    if (v0 + VEC <= rowlen) {
        STORE_V(r, out);
    } else {
        acc_t lanes[VEC];
        STORE_ACC_V(r, lanes);
        for (int k = 0; v0 + k < rowlen; k++)
            out[k] = TO_DST(lanes[k]);
    }
}
