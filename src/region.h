/* Calls on host images as rectangles of a whole image, filtered in parts
 * of rows (src/region.c), and the pipeline of buffer sets that the parts
 * and a batch's stacks go through (src/pipeline.c): the region, a part's
 * extents, the parts' plan and run, and the buffer path by method
 * (src/apply.c) that they run. */
#ifndef OCLCONV_REGION_H
#define OCLCONV_REGION_H

#include "internal.h"

/* ---- region.c ------------------------------------------------------------- */
/* The kernels of a buffer path, from io->in to io->out. */
typedef oclconv_status (*oclconv__path_fn)(oclconv_context *ctx, const oclconv__job *job,
                                           const oclconv__io *io);
/* The job's buffer path by job->method (src/apply.c). */
oclconv_status oclconv__run_buffer_path(oclconv_context *ctx, const oclconv__job *job,
                                        const oclconv__io *io);
/* A call on host images: the rectangle of a whole image that dst stands
 * for, from the rectangle src holds (oclconv_region), run in parts. */
typedef struct {
    const oclconv_image *src; /* the caller's, or a host copy of it (staged) */
    oclconv_image *dst;
    int width, height;        /* the whole image */
    int src_x, src_y, dst_x, dst_y;
    int staged;
    int parts, ring; /* parts of rows, and buffer sets they go through */
    int in_batch;    /* an image of a batch: no bands, the batch overlaps its images */
} oclconv__region;
/* The region of a call on job's images: `where` (NULL: the whole source
 * image into a destination of its size), checked: the images lie in the
 * whole image and the source holds every pixel the destination's windows
 * read. */
oclconv_status oclconv__region_of(oclconv_context *ctx, oclconv__region *r,
                                  const oclconv_region *where, const oclconv__job *job);
/* Plans job as the region filtered in one part: part[0] and part[1], the
 * grown rectangle's size with the source's and destination's types and
 * channels, become its images; *whole says whether that part is the
 * caller's source and destination themselves. */
oclconv_status oclconv__region_plan(oclconv_context *ctx, const oclconv__region *r,
                                    oclconv__job *job, oclconv_image part[2], int *whole);
/* Whether the region runs in one part whose source is a block of the
 * caller's own rows (a run of rows; of any columns where the kernels take
 * strided rows, else a packed source whose columns are the part's) on a
 * device that works in host memory; then
 * oclconv__run_region_in_place() runs it there, the kernels reading the
 * caller's memory where it lies (src and dst may share it: the kernels
 * are done before the result is copied out). */
int oclconv__region_in_place(const oclconv_context *ctx, const oclconv__region *r,
                             const oclconv__job *job);
oclconv_status oclconv__run_region_in_place(oclconv_context *ctx, const oclconv__region *r,
                                            const oclconv__job *job);
/* A packed host copy of src (for a destination that shares its memory and
 * is written part by part, or device by device); the caller frees
 * copy->data. */
oclconv_status oclconv__stage(oclconv_context *ctx, const oclconv_image *src,
                              oclconv_image *copy);
/* Sets r->parts and r->ring for the planned job: bands where copies
 * overlap, strips where the whole would pass the device bytes the call may
 * use (options.max_device_bytes, OCLCONV_DEVICE_BYTES, half the device's
 * memory) or its largest allocation. */
oclconv_status oclconv__region_parts(oclconv_context *ctx, oclconv__region *r,
                                     const oclconv__job *job);
/* The bands r's copies would go in, 1 for none (any path but the image one). */
int oclconv__region_bands(const oclconv_context *ctx, const oclconv__region *r);
/* A region of device-resident images (oclconv_apply_region_cl()) in one
 * part: the source buffer's rectangle gathered after ctx's wait list, the
 * kernels, the result's rectangle copied to `dst`, *done its event. */
oclconv_status oclconv__region_cl(oclconv_context *ctx, const oclconv__region *r,
                                  const oclconv__job *job, cl_mem src, cl_mem dst,
                                  cl_event *done);
/* A direction of a part wraps around the whole image in at most this many
 * runs; past it (taps reaching several times around), the part takes the
 * whole extent and the kernels wrap. */
#define OCLCONV_MAX_RUNS 6
/* A part's extent in one direction: runs of the whole image's positions
 * side by side, and where the destination's first lies among them. */
typedef struct {
    int runs, from[OCLCONV_MAX_RUNS], len[OCLCONV_MAX_RUNS];
    int size, out_at;
} oclconv__span;
/* Part k's rows of the destination, of n. */
void oclconv__part_rows(const oclconv__region *r, int k, int n, int *d0, int *d1);
/* The grown extents of destination rows d0 .. d1 - 1 and of its columns. */
oclconv__span oclconv__row_span(const oclconv__region *r, const oclconv__job *job, int d0,
                                int d1);
oclconv__span oclconv__col_span(const oclconv__region *r, const oclconv__job *job);
/* The job for a part image of sx.size x sy.size (images in src, dst). */
oclconv__job oclconv__part_job(const oclconv__job *job, const oclconv__span *sx,
                               const oclconv__span *sy, oclconv_image *src, oclconv_image *dst);
size_t oclconv__pixel_bytes(const oclconv_image *img);
/* Rows the taps reach above and below. */
int oclconv__reach_y(const oclconv__job *job);
/* Bytes a part's buffers take a row of `width` pixels: *io source and
 * result, *mid a path's intermediate (8 bytes a value bounds every kind). */
void oclconv__row_bytes(const oclconv__job *job, int width, size_t *io, size_t *mid);
/* Runs the region's parts, each part's copies overlapping the others'. */
oclconv_status oclconv__run_region(oclconv_context *ctx, const oclconv__region *r,
                                   const oclconv__job *job, oclconv__path_fn run);

/* ---- pipeline.c ----------------------------------------------------------- */
/* Part k of a region, with its planned job.  A batch's stack: this part
 * and the stack - 1 after it, whole images of one shape and one plan, go
 * through one buffer set and one launch (0 or 1: the part alone). */
typedef struct {
    const oclconv__region *r;
    const oclconv__job *job;
    int k;
    int stack;
} oclconv__part;
/* Whether images go through pinned staging buffers (src/pipeline.c). */
int oclconv__stages(const oclconv_context *ctx, const oclconv_image *src, const oclconv_image *dst);
#define OCLCONV_STAGED_MOST ((size_t)64 << 20) /* a staged unit's buffer at most */
/* Runs n parts (of one region or several: a batch) through `ring` buffer
 * sets, each part's copies overlapping the others' kernels; on failure
 * *failed (when given) is the index of the part that failed, else -1. */
oclconv_status oclconv__run_parts(oclconv_context *ctx, const oclconv__part *p, int n, int ring,
                                  oclconv__path_fn run, int *failed);
/* Copies a part's kept rectangle, destination rows d0 .. d1 - 1, from the
 * device buffer `out`, its image from row row0, into r's destination on
 * the context's queue; with `done` the copy is left running and *done is
 * its event, else it has finished on return. */
oclconv_status oclconv__read_back(oclconv_context *ctx, const oclconv__region *r,
                                  const oclconv__span *sx, const oclconv__span *sy, int d0, int d1,
                                  cl_mem out, int row0, cl_event *done);

#endif
