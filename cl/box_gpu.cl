/*
 * Box filters on GPUs (see box.cl, which comes before this file in the
 * program): the two passes through scratch, box_rows and box_cols; one pass
 * over lines of columns, box_tile; 8-bit RGBA boxes in quads of pixels,
 * box_quads; and, for float sources whose running sums are not exact, the
 * walks through local memory.
 * Expects -DLINE -DCH -DPACK16 for box_tile, -DQUADS -DQW -DQH -DQPY for
 * box_quads, -DWALK_OUTS and -DWALK_COLS -DWALK_ROWS for the walks,
 * besides box.cl's macros.
 */

/* box_rows: a work-group of SEGMENT work-items makes the row sums of
 * OUTS = 2 SEGMENT pixels of one row, two a work-item.  Its line is the
 * pixels from x0 - RX - 1 to x0 + OUTS + RX - 1; with P the line's prefix
 * sums, the window of output j is P[j + 2 RX + 1] - P[j].  The line goes
 * through local memory in blocks of 4 SEGMENT pixels, loaded side by side
 * and scanned there (each work-item its four in a row, then a scan of the
 * SEGMENT four-pixel totals), the earlier blocks' total carried on: up to
 * r255 one block and one scan make 2 SEGMENT sums. */
#define OUTS (2 * SEGMENT)
#define BLOCK (4 * SEGMENT)
__kernel __attribute__((reqd_work_group_size(SEGMENT, 1, 1)))
void box_rows(__global const src_t *src, __global row_t *tmp, int width, int height,
              int pitch CHECK_ARG)
{
    RUN_IF_EXACT(1);
    __local px_t line[BLOCK], part[SEGMENT];
    int i = get_local_id(0), y = get_group_id(1), x0 = (int)get_group_id(0) * OUTS;
    int first = x0 - RX - 1, len = OUTS + 2 * RX + 1;
    __global const src_t *in = src + (size_t)y * width * CN;
    px_t lo[2] = {0, 0}, hi[2] = {0, 0}, carry = 0;
    for (int b0 = 0; b0 < len; b0 += BLOCK) {
        for (int k = i; k < BLOCK; k += SEGMENT) {
            int sx = border_index(first + b0 + k, width);
            line[k] = b0 + k < len && IS_PIXEL(sx) ? LOAD_PIXEL(SUM_NAME, in + sx * CN) : (px_t)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        px_t q[4];
        q[0] = line[4 * i];
        for (int k = 1; k < 4; k++)
            q[k] = q[k - 1] + line[4 * i + k];
        part[i] = q[3];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = 1; d < SEGMENT; d *= 2) {
            px_t add = i >= d ? part[i - d] : (px_t)0;
            barrier(CLK_LOCAL_MEM_FENCE);
            part[i] += add;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        px_t before = carry + (i > 0 ? part[i - 1] : (px_t)0);
        for (int k = 0; k < 4; k++)
            line[4 * i + k] = before + q[k];
        carry += part[SEGMENT - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int o = 0; o < 2; o++) {
            int a = i + o * SEGMENT - b0, c = a + 2 * RX + 1;
            if (a >= 0 && a < BLOCK)
                lo[o] = line[a];
            if (c >= 0 && c < BLOCK)
                hi[o] = line[c];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int o = 0; o < 2; o++) {
        int x = x0 + i + o * SEGMENT;
        if (x < width)
            STORE_ROW(hi[o] - lo[o], tmp + (size_t)y * pitch + x * CN);
    }
}

__kernel void box_cols(__global const row_t *tmp, __global dst_t *dst, int width, int height,
                       int pitch, acc_t weight, acc_t border_value, acc_t scale,
                       acc_t delta CHECK_ARG)
{
    RUN_IF_EXACT(1);
    int v0 = get_global_id(0) * VEC, y0 = get_global_id(1) * BAND, rowlen = width * CN;
    if (v0 >= rowlen || y0 >= height)
        return;
    sumv_t s = 0;
    for (int j = -RY; j <= RY; j++) {
        int sy = border_index(y0 + j, height);
        if (IS_PIXEL(sy))
            s += LOAD_ROW_V(tmp + (size_t)sy * pitch + v0);
    }
    int y_end = min(y0 + BAND, height);
    for (int y = y0; y < y_end; y++) {
        if (y > y0) {
            int enter = border_index(y + RY, height), leave = border_index(y - RY - 1, height);
            if (IS_PIXEL(enter))
                s += LOAD_ROW_V(tmp + (size_t)enter * pitch + v0);
            if (IS_PIXEL(leave))
                s -= LOAD_ROW_V(tmp + (size_t)leave * pitch + v0);
        }
        finish_values(s, v0, y, width, height, weight, border_value, scale, delta, rowlen,
                      dst + (size_t)y * rowlen + v0);
    }
}

#if CN == 4
/* An 8-bit RGBA pixel's word as two words of two channels each, channel c
 * in bits 16 (c / 2) up of word c % 2, which box_tile's PACK16 and
 * box_quads add and subtract whole; UNPACK_RGBA makes four sums of two
 * such words.  Split by two masks where bytes are little-endian, where
 * NVIDIA's compiler made the byte moves six instructions (8K / 4K: RGBA8
 * r3 1.00-1.05x / 1.07-1.11x, r7 1.01-1.08x / 1.06-1.07x). */
static inline uint2 split_rgba(uint w)
{
#ifdef __ENDIAN_LITTLE__
    return (uint2)(w & 0x00ff00ffu, (w >> 8) & 0x00ff00ffu);
#else
    uchar4 b = as_uchar4(w);
    return (uint2)(b.x | (uint)b.z << 16, b.y | (uint)b.w << 16);
#endif
}
#define UNPACK_RGBA(s) ((uint4)((s).x & 0xffff, (s).y & 0xffff, (s).x >> 16, (s).y >> 16))
#endif

#ifdef LINE
/*
 * GPUs, one pass: a work-group of SEGMENT work-items makes the outputs of
 * LINE_OUTS pixels of a row from x0 for BAND rows, CH rows at a time, with no
 * scratch image.  Its line is the LINE columns from x0 - RX - 1; each
 * work-item slides the column sums of PPI of them (i, i + SEGMENT, ...:
 * side by side in memory) down the rows, and puts CH rows of them into
 * local memory.  Each of those rows is scanned there, RUN values a
 * work-item in a row, then the RUNS work-items' totals; output j of a row
 * is P[j + FW] - P[j] of its prefix sums P.  One scan of CH rows, about
 * ten barriers, serves CH * LINE_OUTS outputs.
 */
#define PPI (LINE / SEGMENT)
#define RUNS (SEGMENT / CH)
#define RUN (LINE / RUNS)
#define LINE_OUTS (LINE - FW)
/* Where value k of a line sits: a gap after each run, so that the
 * work-items of a row scan their runs in different banks. */
#define SLOT(k) ((k) + (k) / RUN)
#define LINE_SLOTS (LINE + RUNS)
/* A pixel's sums in the line: with -DPACK16 (8-bit sources of 2 to 4
 * channels whose windows hold at most 257 taps, so that every window sum
 * fits 16 bits) two channels to a uint, channel c in bits 16 (c / 2) up of
 * word c % 2.  Adding and subtracting the words is arithmetic modulo 2^32
 * on v0 + 2^16 v1, whose value at a window, the two exact window sums,
 * fits: half the local memory, its traffic and the additions. */
#if PACK16
#if CN == 2
typedef uint line_px_t;
#define UNPACK_LINE_PX(s) ((uint2)((s) & 0xffff, (s) >> 16))
#elif CN == 3
typedef uint2 line_px_t;
#define UNPACK_LINE_PX(s) ((uint3)((s).x & 0xffff, (s).y, (s).x >> 16))
#elif CN == 4
typedef uint2 line_px_t;
#define UNPACK_LINE_PX(s) UNPACK_RGBA(s)
#else
#error "PACK16 wants 2 to 4 channels"
#endif
static inline line_px_t packed_pixel(__global const src_t *p)
{
#if CN == 3
    uchar3 b = vload3(0, p);
    return (uint2)(b.x | (uint)b.z << 16, (uint)b.y);
#elif CN == 4
    return split_rgba(*(__global const uint *)p);
#else
    uchar2 b = *(__global const uchar2 *)p;
    return b.x | (uint)b.y << 16;
#endif
}
#define LOAD_LINE_PX(p) packed_pixel(p)
#else
typedef px_t line_px_t;
#define LOAD_LINE_PX(p) LOAD_PIXEL(SUM_NAME, p)
#define UNPACK_LINE_PX(s) (s)
#endif

__kernel __attribute__((reqd_work_group_size(SEGMENT, 1, 1)))
void box_tile(__global const src_t *src, __global dst_t *dst, int width, int height,
              acc_t weight, acc_t border_value, acc_t scale, acc_t delta CHECK_ARG)
{
    RUN_IF_EXACT(1);
    __local line_px_t line[CH * LINE_SLOTS], part[2 * SEGMENT];
    int i = get_local_id(0), x0 = (int)get_group_id(0) * LINE_OUTS;
    int y0 = (int)get_group_id(1) * BAND;
    int y_end = min(y0 + BAND, height);
    int sx[PPI];
    line_px_t v[PPI];
    for (int m = 0; m < PPI; m++) {
        sx[m] = border_index(x0 - RX - 1 + i + m * SEGMENT, width);
        v[m] = 0;
    }
    for (int j = -RY; j <= RY; j++) {
        int sy = border_index(y0 + j, height);
        for (int m = 0; m < PPI; m++)
            if (IS_PIXEL(sy) && IS_PIXEL(sx[m]))
                v[m] += LOAD_LINE_PX(src + ((size_t)sy * width + sx[m]) * CN);
    }
    /* This work-item's run: row c of the CH, run r of the row's RUNS. */
    int c = i / RUNS, r = i % RUNS;
    __local line_px_t *run = line + c * LINE_SLOTS + r * (RUN + 1);
    for (int y = y0; y < y_end; y += CH) {
#if SUM_INT
#pragma unroll
#endif
        for (int k = 0; k < CH; k++) {
            int yk = y + k;
#if SUM_INT
            /* Every row's loads at an address in the image (rows past the
             * band load its last row's, rows outside the image row 0, and
             * drop them), the CH rows unrolled (NVIDIA, 8K and 4K: RGBA8
             * r7 1.03-1.07x, u8 gray r15-r31 1.04-1.15x).  NVIDIA's
             * compiler still puts each row's loads behind a branch on
             * whether the row adds anything; loads that no branch skips
             * (a row that adds nothing loading one row for both ends)
             * measured 0.82-1.15x, the other warps hiding them already. */
            int yc = min(yk, y_end - 1);
            int enter = border_index(yc + RY, height), leave = border_index(yc - RY - 1, height);
            __global const src_t *in_e = src + (size_t)max(enter, 0) * width * CN;
            __global const src_t *in_l = src + (size_t)max(leave, 0) * width * CN;
#pragma unroll
            for (int m = 0; m < PPI; m++) {
                line_px_t e = LOAD_LINE_PX(in_e + max(sx[m], 0) * CN);
                line_px_t l = LOAD_LINE_PX(in_l + max(sx[m], 0) * CN);
                if (!IS_PIXEL(enter))
                    e = 0;
                if (!IS_PIXEL(leave))
                    l = 0;
                if (yk > y0 && yk < y_end && IS_PIXEL(sx[m]))
                    v[m] += e - l;
            }
#else
            /* Double sums keep the loop as it was: with the loads
             * unconditional (unrolled or not), or behind a branch around
             * the code above, f32 gray r47-r127 ran 0.82-0.97x. */
            if (yk > y0 && yk < y_end) {
                int enter = border_index(yk + RY, height);
                int leave = border_index(yk - RY - 1, height);
                for (int m = 0; m < PPI; m++) {
                    if (!IS_PIXEL(sx[m]))
                        continue;
                    if (IS_PIXEL(enter))
                        v[m] += LOAD_LINE_PX(src + ((size_t)enter * width + sx[m]) * CN);
                    if (IS_PIXEL(leave))
                        v[m] -= LOAD_LINE_PX(src + ((size_t)leave * width + sx[m]) * CN);
                }
            }
#endif
            for (int m = 0; m < PPI; m++)
                line[k * LINE_SLOTS + SLOT(i + m * SEGMENT)] = v[m];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        line_px_t q = 0;
        for (int t = 0; t < RUN; t++) {
            q += run[t];
            run[t] = q;
        }
        part[i] = q;
        line_px_t own = q;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The totals' scan along each row, between the two halves of
         * part: one barrier a step, each work-item's own sum carried in q.
         * The last step leaves the sum of the runs before each, so that
         * a prefix adds one total, with no test of whether any run comes
         * before it (with the window found once, below: NVIDIA, 8K and 4K,
         * RGBA8 r7 1.04-1.08x / 1.01-1.04x, f32 gray r47-r127 level). */
        int from = 0;
        for (int d = 1; d < RUNS; d *= 2) {
            if (r >= d)
                q += part[from + i - d];
            part[SEGMENT - from + i] = 2 * d < RUNS ? q : q - own;
            from = SEGMENT - from;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        /* P[k] of line row `row`: its run's prefix plus the runs' before it. */
#define PREFIX(row, k)                                                       \
    (line[(row) * LINE_SLOTS + SLOT(k)] + part[from + (row) * RUNS + (k) / RUN])
        for (int k = 0; k < CH && y + k < y_end; k++) {
            for (int m = 0; m < PPI; m++) {
                int j = i + m * SEGMENT, x = x0 + j;
                if (j >= LINE_OUTS || x >= width)
                    continue;
                /* Once: UNPACK_LINE_PX names its argument a channel at a
                 * time, and the compiler loaded the totals again for each. */
                line_px_t sum = PREFIX(k, j + FW) - PREFIX(k, j);
                px_t s = UNPACK_LINE_PX(sum);
                __global dst_t *out = dst + ((size_t)(y + k) * width + x) * CN;
#if CN == 1
                *out = finish_taps((acc_t)s * weight, x, y + k, width, height, weight,
                                   border_value, scale, delta);
#else
                acc_t lanes[CN];
                dst_t px[CN];
                CAT(vstore, CN)(CAT(convert_, CAT(ACC_NAME, CN))(s) * weight, 0, lanes);
                for (int ch = 0; ch < CN; ch++)
                    px[ch] = finish_taps(lanes[ch], x, y + k, width, height, weight,
                                         border_value, scale, delta);
                STORE_DST_PX(CAT(vload, CN)(0, px), out);
#endif
            }
        }
#undef PREFIX
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif

#ifdef QUADS
/*
 * GPUs, 8-bit RGBA boxes up to 15x15 (src/plan.c quads_fit), whose window
 * sums fit 16 bits: a work-item makes a quad of 4 pixels (16 bytes) by QPY
 * rows, in work-groups of QW x QH.  First it makes the row sums of its
 * quad for the group's QROWS rows, QH apart, each from one aligned load of
 * each quad of the row's window where the window lies in the row, and
 * slides them along the quad as split_rgba()'s two words of two
 * channels' sums (added and subtracted modulo 2^32, as box_tile's PACK16
 * sums are), into local memory in two planes; then it slides its
 * quad's column sums down its QPY rows.  A pixel's window sum thus takes
 * two additions a row and two a column where box_tile's line takes a scan
 * of each row, and no value is converted before the window's sum is done.
 * Every sum is an exact integer, so the outputs are box_tile's.
 */
#define QROWS (QH * QPY + 2 * RY)
#define QPAD ((RX + 3) / 4 * 4) /* window pixels each side of a quad, whole quads */
#define QWIN (2 * QPAD + 4)
#define QTRIPS ((QROWS + QH - 1) / QH)
/* A pixel's four sums from its words in planes e and o. */
#define QUAD_PX(e, o) UNPACK_RGBA((uint2)(e, o))

__kernel __attribute__((reqd_work_group_size(QW, QH, 1)))
void box_quads(__global const src_t *src, __global dst_t *dst, int width, int height,
               acc_t weight, acc_t border_value, acc_t scale, acc_t delta)
{
    __local uint4 even[QROWS * QW], odd[QROWS * QW];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x0 = (int)get_global_id(0) * 4, y0 = (int)get_group_id(1) * QH * QPY;
    __global const uint *words = (__global const uint *)src;
    bool inside = x0 >= QPAD && x0 + 4 + QPAD <= width && width % 4 == 0 &&
                  ((size_t)src & 15) == 0;
#pragma unroll
    for (int n = 0; n < QTRIPS; n++) {
        int t = ly + n * QH;
        if (n == QTRIPS - 1 && t >= QROWS)
            break;
        int sy = border_index(y0 - RY + t, height);
        __global const uint *row = words + (size_t)max(sy, 0) * width;
        uint px[QWIN];
        if (inside) {
#pragma unroll
            for (int c = 0; c < QWIN / 4; c++)
                vstore4(*(__global const uint4 *)(row + x0 - QPAD + 4 * c), 0, px + 4 * c);
        } else {
#pragma unroll
            for (int k = QPAD - RX; k < QPAD + 4 + RX; k++) {
                int sx = border_index(x0 - QPAD + k, width);
                px[k] = IS_PIXEL(sx) ? row[max(sx, 0)] : 0;
            }
        }
        uint e[4], o[4];
        uint2 sum = 0;
#pragma unroll
        for (int k = QPAD - RX; k <= QPAD + RX; k++)
            sum += split_rgba(px[k]);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            if (j > 0)
                sum += split_rgba(px[QPAD + j + RX]) - split_rgba(px[QPAD + j - RX - 1]);
            e[j] = sum.x;
            o[j] = sum.y;
        }
        bool keep = IS_PIXEL(sy);
        even[t * QW + lx] = keep ? vload4(0, e) : (uint4)0;
        odd[t * QW + lx] = keep ? vload4(0, o) : (uint4)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int r0 = ly * QPY;
    if (x0 >= width || y0 + r0 >= height)
        return;
    uint4 ce = 0, co = 0;
#pragma unroll
    for (int j = 0; j < FH; j++) {
        ce += even[(r0 + j) * QW + lx];
        co += odd[(r0 + j) * QW + lx];
    }
    int rowlen = width * CN;
    for (int k = 0; k < QPY && y0 + r0 + k < height; k++) {
        if (k > 0) {
            ce += even[(r0 + k + FH - 1) * QW + lx] - even[(r0 + k - 1) * QW + lx];
            co += odd[(r0 + k + FH - 1) * QW + lx] - odd[(r0 + k - 1) * QW + lx];
        }
        int y = y0 + r0 + k;
        uint16 s = (uint16)(QUAD_PX(ce.x, co.x), QUAD_PX(ce.y, co.y), QUAD_PX(ce.z, co.z),
                            QUAD_PX(ce.w, co.w));
        finish_values(s, x0 * CN, y, width, height, weight, border_value, scale, delta, rowlen,
                      dst + (size_t)y * rowlen + x0 * CN);
    }
}
#endif

#if !SUM_INT
#if defined(WALK_OUTS) || defined(WALK_ROWS)
/* GPUs: window sums of F rows down the columns of a block in local memory,
 * never subtracting.  The block is `len` rows of `cols` sums, row t at
 * line + t * cols.  Step k turns each row into the sums of 2^k rows from
 * it, each the sum of two of the step before; a window adds the sums that
 * make up F, one for each of its binary digits, in order down it.  Work-item
 * i makes the windows from the block's elements i + j * SEGMENT, j < outs,
 * into sum[j]: the first outs * SEGMENT elements, whose windows lie in the
 * block.  The block holds at most WALK_MOST elements a work-item. */
static inline void walk_block(__local sum_t *line, int len, int cols, int f, int outs, sum_t *sum)
{
    int i = get_local_id(0), n = len * cols;
#pragma unroll
    for (int j = 0; j < outs; j++)
        sum[j] = 0;
    int taken = 0; /* the rows of each window added so far */
#pragma unroll
    for (int run = 1; run <= f; run *= 2) {
        /* row t: the sum of `run` rows from t, for t <= len - run */
        barrier(CLK_LOCAL_MEM_FENCE);
        if (f & run) {
#pragma unroll
            for (int j = 0; j < outs; j++)
                sum[j] += line[i + j * SEGMENT + taken * cols];
            taken += run;
        }
        if (2 * run > f)
            break;
        sum_t next[WALK_MOST];
#pragma unroll
        for (int j = 0; j * SEGMENT < n; j++) {
            int e = i + j * SEGMENT;
            next[j] = e < (len - 2 * run + 1) * cols ? line[e] + line[e + run * cols] : 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int j = 0; j * SEGMENT < n; j++)
            if (i + j * SEGMENT < n)
                line[i + j * SEGMENT] = next[j];
    }
}
#endif

#ifdef WALK_OUTS
/* GPUs: a work-group of SEGMENT work-items makes the row sums of WALK_OUTS
 * pixels of row y from x0, from the line of WALK_LEN pixels from x0 - RX
 * in local memory, a pixel's CN values to a row of walk_block's block.
 * Every pixel is read once, the group's side by side (a walk of WALK_BAND
 * pixels a work-item reads them one after another, its neighbours that far
 * away: NVIDIA, 8K f32 gray r31, 0.8 of the float box's time went to that
 * walk). */
#define WALK_LEN (WALK_OUTS + FW - 1)
__kernel __attribute__((reqd_work_group_size(SEGMENT, 1, 1)))
void box_walk_rows(__global const src_t *src, __global row_t *tmp, int width, int height,
                   int pitch CHECK_ARG)
{
    RUN_IF_EXACT(0);
    __local sum_t line[WALK_LEN * CN];
    int i = get_local_id(0), y = get_group_id(1), x0 = (int)get_group_id(0) * WALK_OUTS;
    __global const src_t *in = src + (size_t)y * width * CN;
    for (int e = i; e < WALK_LEN * CN; e += SEGMENT) {
        int sx = border_index(x0 - RX + e / CN, width);
        line[e] = IS_PIXEL(sx) ? (sum_t)in[sx * CN + e % CN] : 0;
    }
    sum_t sum[WALK_OUTS * CN / SEGMENT];
    walk_block(line, WALK_LEN, CN, FW, WALK_OUTS * CN / SEGMENT, sum);
    __global row_t *out = tmp + (size_t)y * pitch + x0 * CN;
    for (int j = 0; j < WALK_OUTS * CN / SEGMENT; j++)
        if (x0 * CN + i + j * SEGMENT < width * CN)
            out[i + j * SEGMENT] = sum[j];
}
#endif

#ifdef WALK_ROWS
/* GPUs: a work-group of SEGMENT work-items makes WALK_ROWS output rows of
 * WALK_COLS values from v0, from the COL_LEN rows of their row sums from
 * y0 - RY in local memory, one to a row of walk_block's block: every row
 * sum is read once, a group's side by side, where a work-item's walk down
 * WALK_BAND rows reads each about 2 (WALK_BAND + FH) / WALK_BAND times and
 * keeps its suffix sums in private memory. */
#define COL_LEN (WALK_ROWS + FH - 1)
__kernel __attribute__((reqd_work_group_size(SEGMENT, 1, 1)))
void box_walk_cols(__global const row_t *tmp, __global dst_t *dst, int width, int height,
                   int pitch, acc_t weight, acc_t border_value, acc_t scale,
                   acc_t delta CHECK_ARG)
{
    RUN_IF_EXACT(0);
    __local sum_t line[COL_LEN * WALK_COLS];
    int i = get_local_id(0), v0 = (int)get_group_id(0) * WALK_COLS, rowlen = width * CN;
    int y0 = (int)get_group_id(1) * WALK_ROWS;
    for (int e = i; e < COL_LEN * WALK_COLS; e += SEGMENT) {
        int sy = border_index(y0 - RY + e / WALK_COLS, height), v = v0 + e % WALK_COLS;
        line[e] = IS_PIXEL(sy) && v < rowlen ? tmp[(size_t)sy * pitch + v] : 0;
    }
    sum_t sum[WALK_ROWS * WALK_COLS / SEGMENT];
    walk_block(line, COL_LEN, WALK_COLS, FH, WALK_ROWS * WALK_COLS / SEGMENT, sum);
    for (int j = 0; j < WALK_ROWS * WALK_COLS / SEGMENT; j++) {
        int e = i + j * SEGMENT, y = y0 + e / WALK_COLS, v = v0 + e % WALK_COLS;
        if (y < height && v < rowlen)
            dst[(size_t)y * rowlen + v] = finish_taps((acc_t)sum[j] * weight, v / CN, y, width,
                                                      height, weight, border_value, scale, delta);
    }
}
#endif
#endif
