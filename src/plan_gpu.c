/*
 * Planning the GPU kernels' shapes, once the path and the sums' type are
 * known (src/plan.c calls them): the separable path's tiles, the box
 * path's quads and tiles, and the buffer path's rows a work-item.  Each
 * works within the local memory and the kernel arguments the device
 * lends (job->local_mem, oclconv__taps_fit()).
 */
#include "internal.h"
#include "path_rules.h"

#include <math.h>

/* The local memory a tile w by h work-items, each going down `band` rows,
 * takes to add its row of equal taps from the sums of chunks of a
 * work-item's values in `bufs` buffers (cl/separable.cl, EQUAL_ROW 2,
 * CHUNK_ROOM), where it does: gray float rows in float from r15 (from r9
 * to r13 it measured 0.92-1.08x, and for two channels, chunks of two
 * pixels, 0.93-1.15x at r9-r15); else 0.  The room is the columns' where
 * theirs, of band rows each, is larger. */
static size_t chunk_bytes(const oclconv__job *job, size_t w, size_t h, size_t band, size_t bufs)
{
    const oclconv_filter *f = job->filter;
    size_t k = (size_t)(f->width / 2 + 1) / 4;
    if (!oclconv__taps_equal(f->row, f->width) || job->src->type != OCLCONV_F32 ||
        job->src->channels != 1 || job->acc_double || job->vec != 4 || f->width < 31)
        return 0;
    size_t trips = (w + 2 * k - 2 + w - 1) / w, rows = bufs * h * (trips | 1) * w, cols = 0;
    if (oclconv__taps_equal(f->col, f->height) && (size_t)f->height >= 2 * band)
        cols = (h + (size_t)f->height / band - 1) * w * 4;
    return (rows > cols ? rows : cols) * sizeof(cl_float);
}

/* The buffers of chunk sums that fit beside a tile taking `bytes`: two
 * where they fit, else one, else 0 (and 0 where its rows take none). */
static int chunk_buffers(const oclconv__job *job, size_t w, size_t h, size_t band, size_t bytes)
{
    for (int bufs = 2; bufs >= 1; bufs--) {
        size_t chunks = chunk_bytes(job, w, h, band, (size_t)bufs);
        if (chunks && bytes + chunks <= job->local_mem)
            return bufs;
    }
    return 0;
}

/* GPUs: separable passes fused over tiles of OCLCONV_TILE_ITEMS
 * work-items, each going down `band` rows (at most 8, the most that fit
 * local memory), the tile's row pass in local memory: 2 RY rows more than
 * the tile makes.  Of tiles 32, 16 and 8 work-items wide, the widest
 * whose extra rows are at most a fifth of its output rows, else the one
 * with the fewest; 4 wide only where none of those is within the bound
 * below.  Measured on NVIDIA's OpenCL, 8K and 4K: up to that fifth a
 * wider tile is as fast, or within 3 %; past it the narrower one wins
 * (f32 gray r15 1.12-1.19x), down to 8 wide: tiles 4 wide, a warp's loads
 * of a row window spread over 8 rows, lost to those 8 wide at every
 * radius measured, though they make half the extra rows (f32 gray r27
 * 0.85-0.93x, r31 0.81-0.93x, r39-r41 0.82-0.95x, box r31 0.75-0.82x,
 * 2-channel box r31 0.69-0.73x, RGBA r31 0.74-0.75x).  Sums in double,
 * whose rows take twice the room, run in tiles instead of two passes
 * through scratch (u8 gray r31 1.0-1.3x the two passes).  Two passes where
 * no tile fits, or where the extra rows would pass 0.45 of the output rows
 * (tiles 4 wide of rows in double, against the two passes: f32 gray r43
 * 1.15-1.22x, r47 1.19-1.27x, r57 1.07-1.13x, u8 gray r47 1.14-1.15x, r57
 * 0.99-1.03x; at commit f901822, before the taps came by value, they
 * measured 0.67-1.08x past 0.3); the 8-bit RGBA tiles of two pixels a
 * work-item win to 0.36 (in float r20-r23 of 40-46 extra rows over 128
 * 1.02-1.25x the two passes, and lose past it, r24-r30 0.86-1.0x); or
 * where the row pass's window of taps takes more room than
 * OCLCONV_ROW_WINDOW floats: RGBA8 in float from r32, in double from r16
 * (tiles 0.61-0.88x at r16-r30), gray from r127; or where the taps do not
 * fit the kernel's arguments.
 * A pass whose taps are all equal (a box's) adds the values, then weighs
 * the sums (cl/common.cl's EQUAL_SUMS), where a work-item makes no more
 * sums than the pass has taps: columns always, rows of integer sources,
 * and rows of float ones whose window holds at most 20 values and whose
 * taps are at least twice the sums a work-item makes (NVIDIA, whole
 * images, against the multiply-adds, 8K / 4K: u8 gray box r7 1.15-1.22x /
 * 1.14-1.2x, r12 1.39-1.43x / 1.28-1.46x, RGBA8 r4 1.09-1.1x / 1.04-1.13x,
 * f32 gray r7 1.12x / 1.07-1.14x, r23 1.15-1.2x / 1.12-1.17x; f32 gray rows
 * lost at r3, 0.92-0.98x at 8K, and from r15, 0.87-0.9x at r15 and 0.83x
 * at r23, where the columns alone gained 1.04-1.18x). */
/* The local memory of a tile's `rows` rows of its row pass, each `width`
 * vectors of `vec` sums, with 1 KB to spare. */
static size_t tile_bytes(const oclconv__job *job, size_t rows, size_t width, size_t vec)
{
    return rows * width * vec * oclconv__acc_size(job) + 1024;
}

void oclconv__plan_separable_tiles(const oclconv_context *ctx, oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    int cn = job->src->channels;
    /* 8-bit RGBA summed in float: two pixels a work-item (1.07-1.12x at
     * r3-r15; f32 gray lost 0.4-0.7x, and double sums 0.3x). */
    int vec = cn == 4 && job->src->type == OCLCONV_U8 && !job->acc_double
                  ? 8
                  : job->vec;
    size_t halo = 2 * (size_t)(f->height / 2);
    /* The extra rows a tile may read, over its output rows. */
    double most_extra = vec == 8 ? 0.36 : 0.45;
    /* The row pass's window, as cl/common.cl's WIN_LEN counts it, in the
     * room of at most OCLCONV_ROW_WINDOW floats. */
    size_t taps = (size_t)(f->width / 2) * (size_t)cn;
    size_t window = 2 * ((taps + 3) / 4 * 4) + (size_t)vec;
    /* The tile kernel takes its row and column taps by value. */
    size_t both = (size_t)f->width + (size_t)f->height;
    double fewest = INFINITY;
    if (OCLCONV_TILE_ITEMS > ctx->facts.max_work_group || !oclconv__taps_fit(ctx, job, both) ||
        window * oclconv__acc_size(job) > OCLCONV_ROW_WINDOW * sizeof(cl_float))
        return;
    int equal_row = oclconv__taps_equal(f->row, f->width) && vec % cn == 0 && f->width >= vec / cn &&
                    (job->src->type != OCLCONV_F32 || (window <= 20 && f->width >= 2 * vec / cn));
    int equal_col = oclconv__taps_equal(f->col, f->height);
    for (size_t w = 32; w >= 4 && fewest > 0.2; w /= 2) {
        /* Two pixels a work-item in tiles 4 wide: 0.8x those 8 wide (r15). */
        if (w == 4 && (vec == 8 || fewest < INFINITY))
            break;
        size_t h = OCLCONV_TILE_ITEMS / w;
        if (w > ctx->facts.max_work_item[0] || h > ctx->facts.max_work_item[1])
            continue;
        for (size_t band = 8; band >= 1; band /= 2) {
            size_t bytes = tile_bytes(job, h * band + halo, w, (size_t)vec);
            if (bytes > job->local_mem)
                continue;
            int bufs = equal_row ? 0 : chunk_buffers(job, w, h, band, bytes);
            double extra = (double)halo / (double)(h * band);
            if (extra <= most_extra && extra < fewest) {
                fewest = extra;
                job->fused = OCLCONV_FUSED_TILES;
                job->taps_by_value = 1;
                job->vec = vec;
                job->band = (int)band;
                job->equal_row = equal_row ? 1 : bufs ? 2 : 0;
                job->chunk_bufs = bufs;
                job->equal_col = equal_col && f->height >= (int)band;
                job->local[0] = (int)w;
                job->local[1] = (int)h;
            }
            break;
        }
    }
    if (job->fused != OCLCONV_FUSED_TILES || job->vec != 8 || job->equal_row || f->width / 2 < 5)
        return;
    /* RGBA8 rows from r5 go in segments of 8 pixels, a trip of segments
     * making OCLCONV_TILE_ITEMS / segments tile rows (cl/separable.cl
     * ROW_SEGMENTS).  From r8, where a band a row shorter lets one trip
     * make every tile row, take it: the tile's warps then finish the row
     * pass together, where one of them made a second trip for the last
     * rows (tiles 8 wide, bands of 3 rows against 4, NVIDIA, best of 9
     * calls, three rounds, 8K / 4K: r8-r9 1.01-1.04x / 1.00-1.10x, r10-r14
     * 1.04-1.08x / 1.01-1.12x, r15-r16 1.07-1.12x / 1.06-1.14x; REFLECT101
     * r15 1.08-1.10x / 1.05-1.07x, CONSTANT r11 1.04-1.07x / 1.02-1.08x).
     * r5-r7 ran level (0.97-1.01x / 0.97-1.07x) and keep 4 rows, and two
     * channels' segments lost 0.85-0.96x at r7.  Two pixels a work-item in
     * tiles 8 to 32 wide, so a tile row holds local[0] / 4 segments. */
    size_t w = (size_t)job->local[0], rows = (size_t)job->local[1];
    size_t trip_rows = OCLCONV_TILE_ITEMS / (w / 4), shorter = rows * (size_t)(job->band - 1);
    if (f->width / 2 >= 8 && job->band > 1 && rows * (size_t)job->band + halo > trip_rows &&
        shorter + halo <= trip_rows && (double)halo <= most_extra * (double)shorter)
        job->band--;
    /* A segment's work-item stores 4 vectors along its tile row, and the 8
     * work-items of one 16-byte store meet 2 of local memory's 8 bank
     * groups where rows are a multiple of 8 vectors apart; rows a vector
     * longer spread them over 8 in tiles 8 wide, 4 in tiles 16 wide, where
     * the room allows (NVIDIA, best of 9 calls, three rounds, 8K / 4K: r5
     * 1.00-1.04x / 1.02-1.07x, r7 1.04-1.06x / 1.00-1.06x, REFLECT101 r7
     * 1.03-1.09x / 0.99-1.13x, r9-r13 1.00-1.04x / 0.97-1.06x, r15-r16
     * level). */
    job->hor_pad =
        tile_bytes(job, rows * (size_t)job->band + halo, w + 1, (size_t)vec) <= job->local_mem;
}

/* GPUs: boxes in one pass (cl/box.cl box_tile): lines of tile[0] columns
 * (at most 4 a work-item, at least twice the filter's width), tile[1] rows
 * of them scanned at once, in local memory.  Of those that fit, the
 * longest line with 4 rows or more at once, else the most rows (measured
 * on NVIDIA's OpenCL, 8K and 4K r31: RGBA8 lines of 512 by 4 rows 1.2x
 * those of 1024 by 2; f32 gray 1024 by 4 and u8 gray 1024 by 8 the best
 * of four shapes or within 8 % of it); integer sums take 8 rows rather
 * than a line longer than 512 (two channels, lines of 512 by 8 against
 * 1024 by 4, 8K / 4K: rg8 r9-r39 1.08-1.37x / 0.99-1.29x, 16-bit r15
 * 1.12-1.20x / 0.94-1.03x, r31 1.25-1.33x / 1.02-1.09x; f32 gray, in
 * double, r47-r63 0.98-1.08x, r95 0.91-0.99x, keeps 4 rows); none: two
 * passes through scratch.
 * Lines stop at 2 SEGMENT columns where the filter's width takes at most
 * a thirty-second of them, for twice the work-groups (NVIDIA, 8K and 4K:
 * u8 gray r3-r7 1.07-1.11x, f32 gray r7 1.03-1.09x, 8-bit RGBA r7 with
 * two channels to a uint 1.2-1.7x; wider filters lost, u8 gray r15
 * 0.89-0.99x, r31 0.81-0.87x, f32 gray r15 0.95x at 8K).
 * Bands of 16 rows for filters up to 16 rows tall, else 24: short bands
 * make more work-groups and read the leaving rows back from cache, which
 * outweighs priming each band's column sums with the filter's rows
 * (NVIDIA, 8K and 4K, against bands of the filter's height up to 64:
 * RGBA8 r15 1.04-1.14x, r31 1.06-1.10x; u8 gray r15 1.10-1.16x, r31
 * 1.18-1.31x; f32 gray r47 1.09-1.11x, r127 0.98-1.23x; RGBA8 r7 keeps
 * 16; bands of 8, 32, 64, 128 and 256 rows measured slower). */
void oclconv__plan_box_tiles(const oclconv_context *ctx, oclconv__job *job)
{
    const size_t seg = OCLCONV_BOX_SEGMENT;
    int cn = job->src->channels;
    size_t fw = (size_t)job->filter->width, best = 0;
    if (oclconv__quads_fit(ctx, job)) {
        job->fused = OCLCONV_FUSED_QUADS;
        job->vec = 16;
        job->local[0] = OCLCONV_QUAD_W;
        job->local[1] = OCLCONV_QUAD_H;
        job->band = OCLCONV_QUAD_ROWS;
        return;
    }
    /* Window sums that fit 16 bits: two channels' sums to a uint
     * (cl/box.cl). */
    job->pack16 = cn > 1 && oclconv__sums_fit16(job, fw * (size_t)job->filter->height);
    size_t px = (size_t)(cn == 3 ? 4 : cn) * (job->pack16 ? 2 : oclconv__sum_size(job));
    size_t longest = 32 * (fw - 1) <= 2 * seg ? 2 * seg : 4 * seg;
    for (size_t line = seg; line <= longest; line *= 2)
        for (size_t ch = 1; ch <= 8; ch *= 2) {
            size_t bytes = (ch * (line + seg / ch) + 2 * seg) * px;
            size_t rows = job->sum_int && line >= 2 * seg ? 8 : 4;
            size_t rank = (ch < rows ? ch : rows) << 20 | line << 4 | ch;
            if (2 * fw > line || bytes + 1024 > job->local_mem || rank <= best)
                continue;
            best = rank;
            job->tile[0] = (int)line;
            job->tile[1] = (int)ch;
        }
    if (!best) {
        job->pack16 = 0;
        return;
    }
    job->fused = OCLCONV_FUSED_TILES;
    job->band = job->filter->height <= 16 ? 16 : 24;
}

/* The buffer kernel on GPUs: its taps by value (see cl/separable.cl's
 * tiles; NVIDIA, 8K and 4K: RGBA8 r2 1.11-1.16x, f32 r3 1.09-1.29x, r1
 * 0.97-1.18x, r3 and r7 on 8-bit images level), and the rows a work-item
 * makes (band, cl/buffer.cl's ROWS), each source row's window loaded and
 * converted once for all of them; 8-bit RGBA two pixels a work-item.
 * Against one row of 4 values (H200, random filters, kernel time, 4K /
 * 8K): RGBA8 3x3 in 4 rows 1.57x / 1.85x, 5x5 1.58x / 2.14x, 7x7 1.83x /
 * 2.40x, 15x15 in 2 rows level; u8 gray 3x3 to 7x7 0.95-1.07x / 1.44-1.49x,
 * 15x15 in 2 rows 1.28x / 1.34x; f32 15x15 in 2 rows 1.30x / 1.34x.  f32
 * up to 49 taps, bound by memory, stays at one row (on an H100 2 to 8
 * rows ran 0.78-1.06x); past 15x15 no band was measured. */
void oclconv__plan_buffer_rows(const oclconv_context *ctx, oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    size_t taps = (size_t)f->width * (size_t)f->height;
    job->taps_by_value = oclconv__taps_fit(ctx, job, taps);
    job->band = 1;
    if (job->acc_double || job->row_sums || f->width > 15 || f->height > 15)
        return;
    if (job->src->type == OCLCONV_U8) {
        job->band = taps <= 121 ? 4 : 2;
        if (job->src->channels == 4)
            job->vec = 8;
    } else if (job->src->type == OCLCONV_F32 && taps > 49) {
        job->band = 2;
    }
}
