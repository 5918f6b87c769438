/*
 * bench — throughput of every oclconv path on 4K images, beside OpenCV.
 *
 * Usage:
 *   make bench               build and run the full bench (about 4 minutes on 2 CPU cores)
 *   make bench QUICK=1       or `make bench-quick`: 1920x1080 images, 6 of the 19 cases,
 *                            fewer runs (under a minute)
 *   build/bench/bench [--quick] [--size WxH]... [--commit ID] [--verbose]
 *   OCLCONV_DEVICE=gpu make bench      the device, as everywhere (oclconv_create(NULL))
 *
 * For u8 gray, RGBA8 and f32 gray images of 3840x2160 (and 7680x4320 on
 * devices that are not CPUs) with the CLAMP border
 * it times Gaussian (sigma = r/3), random 2-D, random separable and box
 * filters of several radii through every path the library names (BUFFER,
 * IMAGE, TILED, SEPARABLE, ...) and through AUTO: end to end (wall clock
 * around oclconv_apply, host memory in and out) and kernel only
 * (oclconv_last_kernel_seconds; with pinned images, of the whole image in
 * one band).  Beside them: the roofline (the device's
 * copy rate for the same bytes and its FP32 rate) and, when the bench was
 * built with OpenCV (pkg-config opencv4), OpenCV on the CPU for the same
 * operation.  Under the f32 table, box r31 and r63 again on an image that
 * holds one value of 1e-30, where no running sum is exact and the box path
 * walks.  It ends with the AUTO/OpenCV ratios, box r31 against box r1,
 * and the cold start: the time a fresh process (this program run with
 * --cold) takes to its first filtered image, and the programs a second
 * filter of a new sigma builds (0).  Rows print as they are measured; the
 * legend under the tables says how each number was taken.  Paths too slow
 * to time in reason are predicted from a small probe and skipped ("slow").
 *
 * bench/gpu_peers.py times the same filters through CuPy and PyTorch on a
 * CUDA GPU, for comparison with a GPU run of this program.
 *
 * This file runs every format at every size and prints the summary;
 * bench.h names the parts in the other files.
 */
#include "bench.h"
#ifdef OCLCONV_BENCH_OPENCV
#include "opencv_peer.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const settings full_settings = {3840, 2160, 256, 7, 3.0, 2.0, 6.0, 1.0, 420.0};
static const settings quick_settings = {1920, 1080, 256, 3, 0.75, 0.5, 1.5, 0.25, 30.0};

/* ====== Formats ========================================================= */
typedef struct {
    const char *name;
    oclconv_type type;
    int channels;
} format;

static const format formats[] = {
    {"u8 gray", OCLCONV_U8, 1},
    {"RGBA8", OCLCONV_U8, 4},
    {"f32 gray", OCLCONV_F32, 1},
};
#define FORMAT_COUNT (int)(sizeof formats / sizeof formats[0])

static double bench_start;

/* ====== One image format ================================================= */
typedef struct {
    double log_sum;
    int count, estimated;
    double min_ratio;
    char min_where[48];
} ratio_stats;

static void add_ratio(ratio_stats *rs, double q, int estimated, const char *fmt_name,
                      const char *label)
{
    rs->log_sum += log(q);
    rs->count++;
    rs->estimated += estimated;
    if (q < rs->min_ratio) {
        rs->min_ratio = q;
        snprintf(rs->min_where, sizeof rs->min_where, "%s %s", fmt_name, label);
    }
}

/* The fastest path's time in the row over that of the path AUTO took, as
 * timed in its own column (the AUTO column, timed first, differs from it
 * by the machine's noise alone): 1 where AUTO took the fastest path.  End
 * to end and in kernel time. */
static void auto_vs_best(const row *rw, ratio_stats *fmt, ratio_stats *all, const char *fmt_name,
                         const char *label)
{
    for (int k = 0; k < 2; k++) {
        double took = 0, best = INFINITY;
        for (int p = 0; p < path_count; p++) {
            double t = k ? rw->path[p].kern : rw->path[p].e2e;
            if (rw->path[p].state != CELL_OK || !(t > 0))
                continue;
            best = t < best ? t : best;
            if (path_list[p] == rw->autoc.took)
                took = t;
        }
        if (rw->autoc.state == CELL_OK && took > 0) {
            add_ratio(&fmt[k], best / took, 0, fmt_name, label);
            add_ratio(&all[k], best / took, 0, fmt_name, label);
        }
    }
}

/* "<what>, <ratio>: geometric mean ..., minimum ... (<where>)", when any. */
static void print_stats(const char *what, const char *ratio, const ratio_stats *rs)
{
    if (rs->count > 0)
        printf("%s: %s: geometric mean %.2fx over %d cases, minimum %.2fx (%s)\n", what, ratio,
               exp(rs->log_sum / rs->count), rs->count, rs->min_ratio, rs->min_where);
}

static void print_vs_best(const char *what, const ratio_stats *rs)
{
    print_stats(what, "fastest path/AUTO's path, end to end", &rs[0]);
    print_stats(what, "fastest path/AUTO's path, kernels", &rs[1]);
}

/* What the summary compares, per format: the box path's and AUTO's times
 * for box r1 and r31, and AUTO's for the smallest and largest Gaussian. */
typedef struct {
    cell sums_lo, sums_hi, box_lo, box_hi, gauss_lo, gauss_hi;
} format_summary;

#define MAX_SIZES 4

typedef struct {
    const settings *S;
    oclconv_context *ctx;
    case_data *cases;
    int ncases;
    double flops; /* fp32 flop/s; 0 when unknown */
    ratio_stats total;
    ratio_stats vs_best[2]; /* AUTO against the fastest path: end to end, kernels */
    int npp;                /* an NVIDIA device, and NPP built in: the NPP lines */
    ratio_stats vs_npp;     /* AUTO's kernels against NPP's, every format */
} bench;

/* Times one runner's cell of its case and checks the output against the
 * reference (or makes it the reference); a failed run leaves a note. */
static void take_cell(runner *r, image_set *im, const settings *S, int estimate, cell *c,
                      const format *fm, const char *who, int is_opencv)
{
    char what[64];
    measure(r, im, S, estimate, c);
    snprintf(what, sizeof what, "%s %s", r->cd->label, who);
    if (c->state == CELL_ERROR)
        add_note(fm->name, what, r->err);
    check_output(im, r->cd, c, is_opencv, fm->name, what);
}

/* The bench's float images are multiples of 2^-24, so the box path's
 * running sums are exact.  One value of 1e-30, as real float images may
 * hold, makes none exact: the box path then checks and walks.  Times the
 * box path and AUTO on such images, box r31 (the table's) and r63 (which
 * AUTO sends to the box path on every device). */
static void inexact_boxes(bench *b, image_set *im, double mp)
{
    ((float *)im->src.data)[0] = ((float *)im->probe_src.data)[0] =
        ((float *)im->tiny_src.data)[0] = 1e-30f;
    static const bench_case boxes[] = {{BOX, 31}, {BOX, 63}};
    for (size_t i = 0; i < sizeof boxes / sizeof *boxes; i++) {
        case_data cd;
        if (case_make(&boxes[i], &cd) != 0) {
            case_free(&cd);
            continue;
        }
        runner r = {run_oclconv, b->ctx, &cd, OCLCONV_METHOD_BOX, ""};
        cell box, autoc;
        measure(&r, im, b->S, 0, &box);
        r.method = OCLCONV_METHOD_AUTO;
        measure(&r, im, b->S, 1, &autoc);
        char e2e[2][16], kern[2][16];
        fmt_cell(&box, mp, e2e[0], kern[0], sizeof e2e[0]);
        fmt_cell(&autoc, mp, e2e[1], kern[1], sizeof e2e[1]);
        printf("%s on an image holding one value of 1e-30 (no exact running sum): box path "
               "e2e %s kern %s, auto (%s) e2e %s kern %s\n",
               cd.label, e2e[0], kern[0], oclconv_method_name(autoc.took), e2e[1], kern[1]);
        case_free(&cd);
    }
}

static int run_format(bench *b, const format *fm, format_summary *sum)
{
    const settings *S = b->S;
    double mp = (double)S->width * S->height / 1e6;
    image_set im;
    memset(&im, 0, sizeof im);
    if (image_alloc(&im.src, S->width, S->height, fm->channels, fm->type) ||
        image_alloc(&im.dst, S->width, S->height, fm->channels, fm->type) ||
        image_alloc(&im.ref, S->width, S->height, fm->channels, fm->type) ||
        image_alloc(&im.probe_src, S->probe, S->probe, fm->channels, fm->type) ||
        image_alloc(&im.probe_dst, S->probe, S->probe, fm->channels, fm->type) ||
        image_alloc(&im.tiny_src, 64, 64, fm->channels, fm->type) ||
        image_alloc(&im.tiny_dst, 64, 64, fm->channels, fm->type)) {
        fprintf(stderr, "bench: out of memory\n");
        return -1;
    }
    uint64_t seed = 1000 * (uint64_t)(fm - formats + 1);
    image_fill(&im.src, seed + 1);
    image_fill(&im.probe_src, seed + 2);
    image_fill(&im.tiny_src, seed + 3);
    size_t bytes = image_bytes(&im.src);
    double by_call, by_kernel;
    double copy = copy_seconds(b->ctx, bytes, S->runs, &by_call, &by_kernel);
    double copy_mps = copy > 0 ? mp / copy : 0;

    printf("\n== %s: %d channel%s of %s, %.1f MB an image; MP/s, higher is better ==\n", fm->name,
           fm->channels, fm->channels > 1 ? "s" : "", fm->type == OCLCONV_U8 ? "u8" : "f32",
           (double)bytes / 1e6);
    if (copy > 0)
        printf("device copy of the same bytes, best of %d: clEnqueueCopyBuffer %.1f GB/s, a copy "
               "kernel of 16-byte vectors %.1f GB/s (read+write); the faster, %.3f ms = %.0f "
               "MP/s, is the roofline's copy side\n",
               S->runs, by_call > 0 ? 2.0 * (double)bytes / by_call / 1e9 : 0,
               by_kernel > 0 ? 2.0 * (double)bytes / by_kernel / 1e9 : 0, copy * 1e3, copy_mps);
    else
        printf("device copy of the same bytes: not measured\n");
    print_table_header();
    fflush(stdout);

    ratio_stats fstats = {0, 0, 0, INFINITY, ""}, npp_stats = {0, 0, 0, INFINITY, ""};
    ratio_stats fbest[2] = {{0, 0, 0, INFINITY, ""}, {0, 0, 0, INFINITY, ""}};
    int slow_seen[MAX_PATHS][KIND_COUNT] = {{0}};
    crossover cross[2] = {{.k = RAND2D, .fast = OCLCONV_METHOD_FFT},
                          {.k = DISC, .fast = OCLCONV_METHOD_RUNS}};
    clear_notes();
    for (int ci = 0; ci < b->ncases; ci++) {
        case_data *cd = &b->cases[ci];
        row rw;
        memset(&rw, 0, sizeof rw);
        rw.ocv.state = CELL_NONE;
        im.have_ref = im.ref_is_opencv = 0;
        runner r;
        memset(&r, 0, sizeof r);
        r.ctx = b->ctx;
        r.cd = cd;
#ifdef OCLCONV_BENCH_OPENCV
        /* OpenCV first: its output is the reference the others meet. */
        r.run = run_opencv;
        take_cell(&r, &im, S, 1, &rw.ocv, fm, "OpenCV", 1);
        /* OpenCV's worker threads spin a while after its last call; the
         * cell timed next (AUTO's) would share the cores with them. */
        nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
#endif
        r.run = run_oclconv;
        r.method = OCLCONV_METHOD_AUTO;
        take_cell(&r, &im, S, 1, &rw.autoc, fm, "auto", 0);
#ifdef OCLCONV_BENCH_NPP
        if (b->npp) {
            runner npp = r;
            npp.run = run_npp;
            take_cell(&npp, &im, S, 0, &rw.npp, fm, "NPP", 0);
        }
#endif
        for (int p = 0; p < path_count; p++) {
            cell *c = &rw.path[p];
            if (path_list[p] == OCLCONV_METHOD_FFT && cd->c.k != RAND2D && cd->c.k != DISC) {
                /* Separable filters' passes cost less than any transform: n/a. */
                c->state = CELL_NONE;
                continue;
            }
            if (slow_seen[p][cd->c.k]) {
                /* No path gets faster as its filter grows. */
                c->state = CELL_SLOW;
                continue;
            }
            r.method = path_list[p];
            take_cell(&r, &im, S, 0, c, fm, oclconv_method_name(path_list[p]), 0);
            if (c->state == CELL_SLOW)
                slow_seen[p][cd->c.k] = 1;
        }
        /* Roofline: the lower of the copy rate and the FP32 rate for the
         * filter's fewest multiply-adds a pixel. */
        rw.roof = copy_mps;
        if (b->flops > 0) {
            double compute = b->flops / 2 / (cd->macs * fm->channels) / 1e6;
            if (!(rw.roof > 0) || compute < rw.roof)
                rw.roof = compute;
        }
        print_row(cd, &rw, mp);
        if (b->npp && rw.npp.state == CELL_OK && rw.npp.kern > 0 && rw.autoc.kern > 0) {
            double q = rw.npp.kern / rw.autoc.kern;
            printf("           NPP kern %.0f MP/s%s: auto/NPP %.2fx\n", mp / rw.npp.kern,
                   rw.npp.mismatch ? " (differs from the reference: see the notes)" : "", q);
            add_ratio(&npp_stats, q, 0, fm->name, cd->label);
            add_ratio(&b->vs_npp, q, 0, fm->name, cd->label);
        } else if (b->npp) {
            printf("           NPP %s\n",
                   rw.npp.state == CELL_SLOW ? "slow" : "not timed: see the notes");
        }
        fflush(stdout);

        if (has_time(&rw.ocv) && has_time(&rw.autoc)) {
            double q = rw.ocv.e2e / rw.autoc.e2e;
            int est = rw.autoc.state == CELL_ESTIMATED || rw.ocv.state == CELL_ESTIMATED;
            add_ratio(&fstats, q, est, fm->name, cd->label);
            add_ratio(&b->total, q, est, fm->name, cd->label);
        }
        auto_vs_best(&rw, fbest, b->vs_best, fm->name, cd->label);
        crossover_add(&cross[0], cd, &rw);
        crossover_add(&cross[1], cd, &rw);
        if (cd->c.k == BOX && (cd->c.r == 1 || cd->c.r == 31)) {
            cell *sums = cd->c.r == 1 ? &sum->sums_lo : &sum->sums_hi;
            for (int p = 0; p < path_count; p++)
                if (path_list[p] == OCLCONV_METHOD_BOX)
                    *sums = rw.path[p];
            *(cd->c.r == 1 ? &sum->box_lo : &sum->box_hi) = rw.autoc;
        }
        if (cd->c.k == GAUSS) {
            if (sum->gauss_lo.state == CELL_NONE)
                sum->gauss_lo = rw.autoc;
            sum->gauss_hi = rw.autoc;
        }
    }
    if (fstats.count > 0)
        printf("%s: auto/OpenCV geometric mean %.2fx over %d cases%s, minimum %.2fx (%s)\n",
               fm->name, exp(fstats.log_sum / fstats.count), fstats.count,
               fstats.estimated ? " (~: some estimated)" : "", fstats.min_ratio,
               fstats.min_where);
    print_vs_best(fm->name, fbest);
    print_stats(fm->name, "auto/NPP, kernels", &npp_stats);
    crossover_print(fm->name, &cross[0], mp);
    crossover_print(fm->name, &cross[1], mp);
    if (fm->type == OCLCONV_F32)
        inexact_boxes(b, &im, mp);
    print_notes();
    fflush(stdout);
    image_free(&im.src);
    image_free(&im.dst);
    image_free(&im.ref);
    image_free(&im.probe_src);
    image_free(&im.probe_dst);
    image_free(&im.tiny_src);
    image_free(&im.tiny_dst);
    return 0;
}

/* ====== The device, one image size and its summary ====================== */
static void print_device(oclconv_context *ctx)
{
    cl_device_id dev = oclconv_cl_device(ctx);
    cl_device_type type = 0;
    cl_uint units = 0;
    cl_platform_id platform = NULL;
    char driver[128] = "?", pname[128] = "?";
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    if (platform)
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    driver[sizeof driver - 1] = pname[sizeof pname - 1] = 0;
    const char *t = (type & CL_DEVICE_TYPE_GPU)           ? "GPU"
                    : (type & CL_DEVICE_TYPE_CPU)         ? "CPU"
                    : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                          : "other";
    const char *spec = getenv("OCLCONV_DEVICE");
    printf("device:   %s\n          [%s, %u compute units] on %s, driver %s; OCLCONV_DEVICE=%s\n",
           oclconv_device_name(ctx), t, units, pname, driver, spec && *spec ? spec : "(unset)");
}

/* Every format and case at one image size, then the summary for it. */
static int run_size(bench *b, const settings *S, int quick)
{
    b->S = S;
    memset(&b->total, 0, sizeof b->total);
    b->total.min_ratio = INFINITY;
    memset(b->vs_best, 0, sizeof b->vs_best);
    b->vs_best[0].min_ratio = b->vs_best[1].min_ratio = INFINITY;
    b->vs_npp = (ratio_stats){0, 0, 0, INFINITY, ""};
    printf("\nimages:   %dx%d, CLAMP border (OpenCV BORDER_REPLICATE); Gaussian sigma = r/3\n",
           S->width, S->height);
    if (quick)
        printf("QUICK:    %dx%d instead of 3840x2160, %d of the 19 cases a format, at most %d "
               "timed runs a cell\n",
               S->width, S->height, b->ncases, S->runs);
    fflush(stdout);
    format_summary sums[FORMAT_COUNT];
    memset(sums, 0, sizeof sums);
    for (int fi = 0; fi < FORMAT_COUNT; fi++)
        if (run_format(b, &formats[fi], &sums[fi]) != 0)
            return 1;

    printf("\n== Summary, %dx%d ==\n", S->width, S->height);
    if (b->total.count > 0)
        printf("auto/OpenCV, end to end: geometric mean %.2fx over %d cases%s (target: 1.5x)\n"
               "                         minimum %.2fx (%s)\n",
               exp(b->total.log_sum / b->total.count), b->total.count,
               b->total.estimated ? " (~: some estimated)" : "", b->total.min_ratio,
               b->total.min_where);
    else
        printf("auto/OpenCV: n/a (OpenCV not built in)\n");
    print_vs_best("all formats (target: 0.9x or more in every cell)", b->vs_best);
    print_stats("all formats", "auto/NPP, kernels", &b->vs_npp);
    for (int fi = 0; fi < FORMAT_COUNT; fi++) {
        printf("%s, time ratios:\n", formats[fi].name);
        print_ratio_pair("box path (running sums), box r31 / box r1 (target: about 1)",
                         &sums[fi].sums_lo, &sums[fi].sums_hi, 0);
        print_ratio_pair("AUTO, box r31 / box r1 (r1 may take a faster path)", &sums[fi].box_lo,
                         &sums[fi].box_hi, 0);
        const format_summary *fs = &sums[fi];
        int rl = 0, rh = 0;
        for (int i = 0; i < b->ncases; i++)
            if (b->cases[i].c.k == GAUSS) {
                if (!rl)
                    rl = b->cases[i].c.r;
                rh = b->cases[i].c.r;
            }
        if (rh > rl) {
            char what[64];
            snprintf(what, sizeof what, "AUTO, gauss r%d / gauss r%d", rh, rl);
            print_ratio_pair(what, &fs->gauss_lo, &fs->gauss_hi, (double)rh / rl);
        }
    }
    return 0;
}

/* ====== Main ============================================================ */
static void usage(FILE *f)
{
    fprintf(f, "usage: bench [--quick] [--only KIND] [--size WxH]... [--reach] [--batch] "
               "[--huge WxH] [--commit ID] [--verbose]\n"
               "  --quick      1920x1080 images, 6 of the 19 cases a format, at most 3 runs a "
               "cell\n"
               "  --only KIND  one kind's cases (gauss, rand2d, sep, box, disc), no cold start, "
               "reach or batch rows\n"
               "  --commit ID  the commit to print (make bench passes git rev-parse --short "
               "HEAD)\n"
               "  --size WxH   the image size (may repeat); default 3840x2160, and 7680x4320 "
               "too on devices\n"
               "               that are not CPUs\n"
               "  --verbose    each probe's time and prediction on stderr\n"
               "  --reach      only the reach rows: whole, strips, several devices "
               "(OCLCONV_BENCH_DEVICES)\n"
               "  --batch      only the batch rows\n"
               "  --huge WxH   one more RGBA8 image in the reach rows, whole and in strips\n"
               "The device is oclconv_create(NULL)'s: set OCLCONV_DEVICE to choose another.\n");
}

int main(int argc, char **argv)
{
    bench_start = now();
    const char *commit = "unknown";
    int quick = 0, reach_only = 0, batch_only = 0, huge[2] = {0, 0}, sizes[MAX_SIZES][2],
        nsizes = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cold") == 0 && i + 1 < argc)
            return cold_child(argv[i + 1]);
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--reach") == 0)
            reach_only = 1;
        else if (strcmp(argv[i], "--batch") == 0)
            batch_only = reach_only = 1;
        else if (strcmp(argv[i], "--huge") == 0 && i + 1 < argc &&
                 sscanf(argv[i + 1], "%dx%d", &huge[0], &huge[1]) == 2)
            i++;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--verbose") == 0)
            verbose = 1;
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc && nsizes < MAX_SIZES) {
            char end = 0;
            if (sscanf(argv[++i], "%dx%d%c", &sizes[nsizes][0], &sizes[nsizes][1], &end) != 2 ||
                sizes[nsizes][0] < 64 || sizes[nsizes][1] < 64) {
                fprintf(stderr, "bench: --size wants WxH, each at least 64: %s\n", argv[i]);
                return 2;
            }
            nsizes++;
        }
        else if (strcmp(argv[i], "--commit") == 0 && i + 1 < argc)
            commit = *argv[++i] ? argv[i] : "unknown";
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    const settings *S = quick ? &quick_settings : &full_settings;
    deadline = bench_start + S->total_budget;
    bench b;
    memset(&b, 0, sizeof b);
    b.S = S;
    b.total.min_ratio = INFINITY;
    const bench_case *cases = bench_cases(quick, only, &b.ncases);
    if (b.ncases == 0) {
        fprintf(stderr, "bench: --only %s: no case of that kind in this run (the kinds: gauss, "
                        "rand2d, sep, box, disc; --quick has no disc)\n",
                only);
        return 2;
    }
    find_paths();

    char date[64];
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    int v = oclconv_version_number();
    printf("oclconv bench: library %d.%d.%d, commit %s, %s\n", v / 10000, v / 100 % 100,
           v % 100, commit, date);
    fflush(stdout);

    /* The cold start first, before this process touches OpenCL. */
    cold_result cold[COLD_RUNS];
    if (!reach_only && !only)
        cold_starts(argv[0], cold);

    oclconv_status s = oclconv_create(NULL, &b.ctx);
    if (s != OCLCONV_OK) {
        fprintf(stderr, "bench: no context: %s\n%s\n", oclconv_strerror(s), oclconv_errmsg(NULL));
        return 1;
    }
    print_device(b.ctx);
    cl_bool unified = CL_TRUE;
    clGetDeviceInfo(oclconv_cl_device(b.ctx), CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified,
                    &unified, NULL);
    if (!unified)
        host_ctx = b.ctx;
    printf("host:     %s\n", host_ctx ? "images in pinned memory from oclconv_host_alloc(); e2e "
                                         "includes both DMA transfers, in bands of rows"
                                       : "images in ordinary memory, which the device shares "
                                         "(zero-copy)");
#ifdef OCLCONV_BENCH_OPENCV
    printf("peer:     %s, on this machine's CPU\n", ocvpeer_describe());
#else
    printf("peer:     OpenCV not built in (pkg-config finds no opencv4): its columns say n/a\n");
#endif
#ifdef OCLCONV_BENCH_NPP
    char vendor[128] = "";
    clGetDeviceInfo(oclconv_cl_device(b.ctx), CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL);
    b.npp = strstr(vendor, "NVIDIA") != NULL;
    if (b.npp)
        printf("NPP:      %s, kernel time of its calls on device-resident images (CUDA "
               "events), checked against the reference\n", npppeer_describe());
#endif
    b.flops = fp32_rate(b.ctx);
    if (b.flops > 0)
        printf("fp32:     %.1f GFLOP/s, the best launch of a mad() kernel (the roofline's "
               "compute side)\n",
               b.flops / 1e9);
    else
        printf("fp32:     not measured; the roofline is the copy rate alone\n");
    const char *env_method = getenv("OCLCONV_METHOD");
    if (env_method && *env_method)
        printf("note:     OCLCONV_METHOD=%s is set: the auto column runs that path\n", env_method);
    b.cases = calloc((size_t)b.ncases, sizeof *b.cases);
    if (!b.cases)
        return 1;
    for (int i = 0; i < b.ncases; i++)
        if (case_make(&cases[i], &b.cases[i]) != 0)
            return 1;
    /* The sizes: --size, else the settings' own, and 8K on devices that are
     * not CPUs (where 4K images take a fraction of a millisecond). */
    if (nsizes == 0) {
        sizes[nsizes][0] = S->width;
        sizes[nsizes++][1] = S->height;
        cl_device_type type = 0;
        clGetDeviceInfo(oclconv_cl_device(b.ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
        if (!quick && !(type & CL_DEVICE_TYPE_CPU)) {
            sizes[nsizes][0] = 7680;
            sizes[nsizes++][1] = 4320;
        }
    }
    for (int i = 0; i < nsizes && !reach_only; i++) {
        settings at_size = *S;
        at_size.width = sizes[i][0];
        at_size.height = sizes[i][1];
        if (run_size(&b, &at_size, quick) != 0)
            return 1;
    }
    if (!only && !batch_only)
        reach_rows(b.ctx, nsizes, sizes, huge, quick);
    if (!only)
        batch_rows(b.ctx, quick);
    if (!reach_only && !only) {
        print_legend(S);
        printf("\n");
        print_cold(cold);
    }
    double total_s = now() - bench_start;
    printf("bench time: %.0f s%s\n", total_s,
           now() > deadline ? " (past its time budget: the last cells ran once, no warm-up)" : "");

    for (int i = 0; i < b.ncases; i++)
        case_free(&b.cases[i]);
    free(b.cases);
    oclconv_destroy(b.ctx);
    return 0;
}
