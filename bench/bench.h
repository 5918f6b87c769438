/*
 * The bench's parts, which bench.c drives: the filter cases (cases.c), the
 * images and the timing of one cell through oclconv or the OpenCV peer
 * (measure.c), the device's own rates for the roofline (roofline.c), the
 * cold start in a fresh process (cold.c), and the table, legend and
 * ratios it prints (report.c).
 */
#ifndef OCLCONV_BENCH_H
#define OCLCONV_BENCH_H

#include "oclconv.h"

#include <stddef.h>
#include <stdint.h>

/* ====== Settings ====================================================== */
typedef struct {
    int width, height;     /* the measured images */
    int probe;             /* side of the square probe images */
    int runs;              /* timed runs per cell, at most */
    double cell_budget;    /* stop repeating once a cell has run this long (s) */
    double slow_limit;     /* a forced path predicted above this is "slow" (s per run) */
    double estimate_limit; /* AUTO predicted above this is estimated, not run (s per run) */
    double warmup_limit;   /* no full-size warm-up for runs predicted above this (s) */
    double total_budget;   /* after this, one run per cell and no warm-ups (s) */
} settings;

/* ====== Cases (cases.c) ================================================ */
typedef enum { GAUSS, RAND2D, SEP, BOX, DISC } kind;
#define KIND_COUNT 5

typedef struct {
    kind k;
    int r;
} bench_case;

typedef struct {
    bench_case c;
    char label[16];
    oclconv_filter *filter;
    double sigma;      /* GAUSS */
    float *k2d;        /* RAND2D, DISC: (2r+1)^2 weights, row by row */
    float *row, *col;  /* SEP: 2r+1 taps each */
    double macs;       /* fewest multiply-adds per pixel and channel */
} case_data;

/* The cases of the full bench, or with `quick` of the short one: *count of them. */
/* The cases a run takes; `only` (a kind's name, or NULL for all) keeps one kind's. */
const bench_case *bench_cases(int quick, const char *only, int *count);
/* Builds the filter of a case; the random weights depend on the case only,
 * so every format and every run sees the same filter. */
int case_make(const bench_case *c, case_data *cd);
void case_free(case_data *cd);

/* ====== Clocks, random numbers, images (measure.c) ===================== */
double now(void);
int64_t now_ns(void);
void rng_seed(uint64_t seed);
/* Uniform in [lo, hi). */
double rng_uniform(double lo, double hi);
size_t image_bytes(const oclconv_image *img);
/* Set on devices with memory of their own: images then live in memory
 * from oclconv_host_alloc(), which such a device reaches by DMA. */
extern oclconv_context *host_ctx;
/* A packed image in page-aligned (or the device's pinned) memory, zeroed. */
int image_alloc(oclconv_image *img, int width, int height, int channels, oclconv_type type);
void image_free(oclconv_image *img);
/* Noise: every byte of u8 pixels random, f32 pixels uniform in [0, 1). */
void image_fill(oclconv_image *img, uint64_t seed);

/* ====== Runners: one way to compute a case (measure.c) ================= */
typedef struct {
    double e2e;          /* seconds of the call, when the runner timed it itself */
    double kern;         /* device seconds of the kernels; 0 when unknown */
    int compiled;        /* the call built at least one program */
    oclconv_method took; /* the path that ran */
    int measured;        /* AUTO took it from a calibration's measurement */
} run_info;

#define RUN_PEER_FAILED (-100)

typedef struct runner runner;
struct runner {
    int (*run)(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info);
    oclconv_context *ctx;
    const case_data *cd;
    oclconv_method method;
    char err[256];
};

int run_oclconv(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info);
#ifdef OCLCONV_BENCH_OPENCV
int run_opencv(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info);
#endif
#ifdef OCLCONV_BENCH_NPP
/* npp_peer.c: NVIDIA's NPP on CUDA device 0; its kernel time is the NPP
 * calls' alone, from CUDA events. */
int run_npp(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info);
const char *npppeer_describe(void);
#endif

/* ====== Measuring one cell (measure.c) ================================= */
typedef enum {
    CELL_NONE,        /* not measured (no peer) */
    CELL_OK,          /* timed at full size */
    CELL_UNSUPPORTED, /* the path refused the job */
    CELL_SLOW,        /* predicted too slow to time */
    CELL_ESTIMATED,   /* AUTO predicted too slow: scaled from the probe */
    CELL_ERROR        /* a call failed */
} cell_state;

typedef struct {
    cell_state state;
    double e2e, kern; /* seconds for one full-size image: the fastest run, or the estimate */
    int runs;
    oclconv_method took;
    int measured;
    double diff;      /* largest difference from the reference; < 0 when not compared */
    int mismatch;
} cell;

typedef struct {
    oclconv_image src, dst, ref; /* full size */
    oclconv_image probe_src, probe_dst, tiny_src, tiny_dst;
    int have_ref, ref_is_opencv;
} image_set;

/* After the deadline, one run a cell and no warm-ups; --verbose. */
extern double deadline;
extern int verbose;

/* Up to 16 notes (errors, mismatches) printed under the table. */
void add_note(const char *fmt_label, const char *what, const char *detail);
void clear_notes(void);
void print_notes(void);
/* Times one runner on the full-size images (see measure.c). */
void measure(runner *r, image_set *im, const settings *S, int estimate, cell *c);
/* Compares the cell's output with the reference, or makes it the reference. */
void check_output(image_set *im, const case_data *cd, cell *c, int is_opencv,
                  const char *fmt_label, const char *what);

/* ====== The device's own rates (roofline.c) ============================ */
/* The best device times of copying `bytes` on the library's queue by
 * clEnqueueCopyBuffer (*call) and by a copy kernel of 16-byte vectors
 * (*kernel), over `runs` copies after one more; returns the faster, 0 where
 * neither ran. */
double copy_seconds(oclconv_context *ctx, size_t bytes, int runs, double *call, double *kernel);
/* The device's FP32 rate in flop/s, measured; 0 on failure. */
double fp32_rate(oclconv_context *ctx);

/* ====== Cold start (cold.c) ============================================ */
typedef struct {
    int ok;
    double pre_main_ms, create_ms, first_ms, second_ms;
    size_t built_first, built_second;
    char method[16], choice[16];
    char error[1024];
} cold_result;

/* The cold starts: the caches empty, then warm from the first, then empty
 * again with AUTO's calibration off (the first's cost beyond it). */
#define COLD_RUNS 3

/* In the child (`bench --cold T0`): a 4K RGBA8 Gaussian r3 right away, then
 * one of a new sigma, reported on stdout as one line. */
int cold_child(const char *t0_text);
/* Runs `self --cold` COLD_RUNS times, as said there. */
void cold_starts(const char *self, cold_result cold[COLD_RUNS]);
void print_cold(const cold_result cold[COLD_RUNS]);

/* ====== The table (report.c) =========================================== */
#define MAX_PATHS 8

/* Every path the library names, in the enum's order, so that a new path
 * gets its column without a change here. */
extern oclconv_method path_list[MAX_PATHS];
extern int path_count;
void find_paths(void);

typedef struct {
    cell ocv, autoc, path[MAX_PATHS];
    cell npp; /* NVIDIA devices, where NPP is built in */
    double roof; /* MP/s; 0 when unknown */
} row;

int has_time(const cell *c);
/* The e2e and kernel texts of a cell. */
void fmt_cell(const cell *c, double mp, char *e2e, char *kern, size_t size);
void print_table_header(void);
void print_row(const case_data *cd, const row *rw, double mp);
void print_legend(const settings *S);
void print_ratio_pair(const char *what, const cell *lo, const cell *hi, double linear);

/* Where a path whose cost hardly grows with the filter (the FFT for random
 * 2-D filters, the runs for discs) overtakes the direct sums (buffer,
 * image, tiles): each row of the kind adds its times, and the print says
 * from which size on, end to end and in kernel time, the issue's
 * crossover as this run measured it. */
#define MAX_RADII 8
typedef struct {
    kind k;
    oclconv_method fast;
    int n, r[MAX_RADII];
    /* [0] end to end, [1] kernels: seconds, INFINITY where predicted too
     * slow to time, 0 where not timed */
    double direct[2][MAX_RADII], fast_t[2][MAX_RADII];
    oclconv_method direct_path[2][MAX_RADII];
} crossover;
void crossover_add(crossover *x, const case_data *cd, const row *rw);
void crossover_print(const char *fmt_name, const crossover *x, double mp);

/* reach.c: whole, strips and several devices, RGBA8, at each size; `huge`
 * (width, height; 0 for none) adds one image of that size. */
void reach_rows(oclconv_context *ctx, int nsizes, int sizes[][2], const int *huge, int quick);
/* reach.c: many small images, oclconv_apply_batch() against a loop. */
void batch_rows(oclconv_context *ctx, int quick);

#endif
