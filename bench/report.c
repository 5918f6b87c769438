/* The tables the bench prints: a row of rates per case, the legend, the
 * ratios of its summary. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

oclconv_method path_list[MAX_PATHS];
int path_count;

void find_paths(void)
{
    for (int m = OCLCONV_METHOD_AUTO + 1; path_count < MAX_PATHS; m++) {
        if (!oclconv_method_name((oclconv_method)m))
            break;
        path_list[path_count++] = (oclconv_method)m;
    }
}

/* A line built piece by piece, printed without trailing blanks. */
typedef struct {
    char text[256];
    size_t len;
} line;

static void put(line *l, int width, const char *s)
{
    if (l->len < sizeof l->text) {
        int n = snprintf(l->text + l->len, sizeof l->text - l->len, "%*s", width, s);
        if (n > 0)
            l->len += (size_t)n;
        if (l->len >= sizeof l->text)
            l->len = sizeof l->text - 1;
    }
}

static void put_left(line *l, int width, const char *s)
{
    put(l, -width, s);
}

static void print_line(line *l)
{
    while (l->len > 0 && l->text[l->len - 1] == ' ')
        l->len--;
    l->text[l->len] = 0;
    puts(l->text);
    l->len = 0;
}

/* A rate in MP/s in at most 5 characters, '~' in front when estimated. */
static void fmt_rate(char *buf, size_t size, double mps, int estimated)
{
    char num[12];
    if (!(mps > 0))
        snprintf(num, sizeof num, "n/a");
    else if (mps >= 99999.5)
        snprintf(num, sizeof num, "%.0fk", mps / 1000);
    else if (mps >= 99.95)
        snprintf(num, sizeof num, "%.0f", mps);
    else if (mps >= 9.995)
        snprintf(num, sizeof num, "%.1f", mps);
    else
        snprintf(num, sizeof num, "%.2f", mps);
    snprintf(buf, size, "%s%s", estimated ? "~" : "", num);
}

int has_time(const cell *c)
{
    return c->state == CELL_OK || c->state == CELL_ESTIMATED;
}

/* The e2e and kernel texts of a cell. */
void fmt_cell(const cell *c, double mp, char *e2e, char *kern, size_t size)
{
    kern[0] = 0;
    switch (c->state) {
    case CELL_NONE: snprintf(e2e, size, "n/a"); break;
    case CELL_UNSUPPORTED: snprintf(e2e, size, "-"); break;
    case CELL_SLOW: snprintf(e2e, size, "slow"); break;
    case CELL_ERROR: snprintf(e2e, size, "err"); break;
    case CELL_ESTIMATED:
    case CELL_OK: {
        int est = c->state == CELL_ESTIMATED;
        fmt_rate(e2e, size, mp / c->e2e, est);
        if (c->mismatch && strlen(e2e) + 1 < size)
            strcat(e2e, "!");
        if (c->kern > 0)
            fmt_rate(kern, size, mp / c->kern, est);
        else
            snprintf(kern, size, "n/a");
        break;
    }
    }
}

void print_table_header(void)
{
    line l = {"", 0};
    put_left(&l, 11, "case");
    put_left(&l, 5, "time");
    for (int p = 0; p < path_count; p++)
        put(&l, 10, oclconv_method_name(path_list[p]));
    put(&l, 8, "auto");
    put(&l, 2, "");
    put_left(&l, 10, "auto path");
    put(&l, 9, "roofline");
    put(&l, 5, "%");
    put(&l, 8, "OpenCV");
    put(&l, 12, "auto/OpenCV");
    print_line(&l);
}

void print_row(const case_data *cd, const row *rw, double mp)
{
    char e[16], k[16];
    line l1 = {"", 0}, l2 = {"", 0};
    put_left(&l1, 11, cd->label);
    put_left(&l1, 5, "e2e");
    put_left(&l2, 11, "");
    put_left(&l2, 5, "kern");
    for (int p = 0; p < path_count; p++) {
        fmt_cell(&rw->path[p], mp, e, k, sizeof e);
        put(&l1, 10, e);
        put(&l2, 10, k);
    }
    fmt_cell(&rw->autoc, mp, e, k, sizeof e);
    put(&l1, 8, e);
    put(&l2, 8, k);
    put(&l1, 2, "");
    char took[16] = "";
    if (has_time(&rw->autoc))
        snprintf(took, sizeof took, "%s%s", oclconv_method_name(rw->autoc.took),
                 rw->autoc.measured ? "*" : "");
    put_left(&l1, 10, took);
    put(&l2, 12, "");
    /* The roofline and how close AUTO's kernels come to it. */
    char roof[16] = "n/a", pct[16] = "";
    if (rw->roof > 0)
        fmt_rate(roof, sizeof roof, rw->roof, 0);
    if (rw->roof > 0 && rw->autoc.kern > 0 && has_time(&rw->autoc)) {
        double pc = 100 * mp / rw->autoc.kern / rw->roof;
        snprintf(pct, sizeof pct, "%s%.*f", rw->autoc.state == CELL_ESTIMATED ? "~" : "",
                 pc < 9.95 ? 1 : 0, pc);
    }
    put(&l2, 9, roof);
    put(&l2, 5, pct);
    put(&l1, 14, "");
    fmt_cell(&rw->ocv, mp, e, k, sizeof e);
    put(&l1, 8, e);
    char ratio[16] = "n/a";
    if (has_time(&rw->ocv) && has_time(&rw->autoc))
        snprintf(ratio, sizeof ratio, "%s%.2fx",
                 rw->autoc.state == CELL_ESTIMATED || rw->ocv.state == CELL_ESTIMATED ? "~" : "",
                 rw->ocv.e2e / rw->autoc.e2e);
    put(&l1, 12, ratio);
    print_line(&l1);
    print_line(&l2);
}

void print_legend(const settings *S)
{
    double mp = (double)S->width * S->height / 1e6;
    printf("\nLegend (MP/s: megapixels a second, higher is better; a %dx%d image is %.2f MP)\n",
           S->width, S->height, mp);
    printf("  e2e       wall clock around oclconv_apply, host memory in and out: the fastest of up "
           "to %d timed\n"
           "            runs after one full-size warm-up.  A cell stops after %.3g s, or after "
           "one run over\n"
           "            %.3g s; runs predicted over %.3g s get no warm-up (their kernels are built "
           "beforehand)\n",
           S->runs, S->cell_budget, S->slow_limit, S->warmup_limit);
    printf("  kern      the device time of the calls' kernels: oclconv_last_kernel_seconds(); "
           "with pinned\n"
           "            images, of a call right after each in one band (OCLCONV_BANDS=1): the "
           "whole image's\n"
           "  -         the path returned OCLCONV_E_UNSUPPORTED for this filter on this device\n");
    printf("  slow      not run: a %dx%d probe predicted over %.3g s for one run; no path gets "
           "faster as\n"
           "            its filter grows, so the larger radii of that filter kind are skipped "
           "too\n",
           S->probe, S->probe, S->slow_limit);
    printf("  ~         AUTO was predicted over %.3g s a run: scaled from the %dx%d probe, not "
           "measured\n",
           S->estimate_limit, S->probe, S->probe);
    printf("  !         the output differs from the reference (OpenCV's, else the first oclconv "
           "output) by\n"
           "            more than rounding (u8: 1, or 4 beside OpenCV's 8-bit GaussianBlur, whose "
           "taps have\n"
           "            8 fractional bits; f32: 1e-3); err: the call failed.  Both come with a "
           "note\n");
    printf("  auto path the path AUTO took (oclconv_last_method); * where a calibration "
           "measured it\n"
           "            (oclconv_last_choice; OCLCONV_CALIBRATE=off: the rules alone)\n"
           "  roofline  the lower of the device's copy rate for these bytes and its fp32 rate "
           "over the\n"
           "            filter's fewest multiply-adds a pixel (2-D: C(2r+1)^2, separable: "
           "2C(2r+1), box: 4C);\n"
           "            %% = AUTO kern / roofline\n");
    printf("  OpenCV    cv::GaussianBlur, filter2D, sepFilter2D, blur with BORDER_REPLICATE, same "
           "depth in\n"
           "            and out, timed like e2e in this process; auto/OpenCV = AUTO e2e MP/s / "
           "OpenCV MP/s\n");
    printf("  filters   gauss: oclconv_filter_gaussian(r/3, 0, r, r); rand2d: (2r+1)^2 seeded "
           "random weights\n"
           "            in [-0.25, 1) scaled to sum 1; sep: seeded random row and column taps "
           "in [0.05, 1)\n"
           "            scaled to sum 1; box: oclconv_filter_box(r, r).  Images are seeded "
           "noise\n");
}

void print_ratio_pair(const char *what, const cell *lo, const cell *hi, double linear)
{
    printf("  %s: ", what);
    if (!has_time(lo) || !has_time(hi)) {
        printf("n/a\n");
        return;
    }
    const char *est = lo->state == CELL_ESTIMATED || hi->state == CELL_ESTIMATED ? "~" : "";
    if (lo->kern > 0 && hi->kern > 0)
        printf("kern %s%.2fx, ", est, hi->kern / lo->kern);
    printf("e2e %s%.2fx", est, hi->e2e / lo->e2e);
    if (linear > 0)
        printf(" (linear in sigma: %.1fx)", linear);
    printf("\n");
}

void crossover_add(crossover *x, const case_data *cd, const row *rw)
{
    if (cd->c.k != x->k || x->n == MAX_RADII)
        return;
    int i = x->n++;
    x->r[i] = cd->c.r;
    for (int k = 0; k < 2; k++) {
        x->direct[k][i] = x->fast_t[k][i] = 0;
        for (int p = 0; p < path_count; p++) {
            const cell *c = &rw->path[p];
            oclconv_method m = path_list[p];
            double t = c->state == CELL_SLOW ? INFINITY
                       : c->state == CELL_OK  ? (k ? c->kern : c->e2e)
                                              : 0;
            if (!(t > 0))
                continue;
            if (m == x->fast)
                x->fast_t[k][i] = t;
            else if ((m == OCLCONV_METHOD_BUFFER || m == OCLCONV_METHOD_IMAGE ||
                      m == OCLCONV_METHOD_TILED) &&
                     (!(x->direct[k][i] > 0) || t < x->direct[k][i])) {
                x->direct[k][i] = t;
                x->direct_path[k][i] = m;
            }
        }
    }
}

/* "<path> R MP/s, <direct path> R" at a size, or what stands for a rate. */
static void crossover_pair(const crossover *x, int k, int i, double mp, char *out, size_t size)
{
    char f[16], d[16];
    fmt_rate(f, sizeof f, mp / x->fast_t[k][i], 0);
    if (isinf(x->direct[k][i]))
        snprintf(d, sizeof d, "slow");
    else
        fmt_rate(d, sizeof d, mp / x->direct[k][i], 0);
    snprintf(out, size, "%dx%d: %s %s, %s %s", 2 * x->r[i] + 1, 2 * x->r[i] + 1,
             oclconv_method_name(x->fast), f,
             isinf(x->direct[k][i]) ? "direct sums" : oclconv_method_name(x->direct_path[k][i]),
             d);
}

void crossover_print(const char *fmt_name, const crossover *x, double mp)
{
    for (int k = 0; k < 2; k++) {
        int first = -1, last = -1; /* the first size the path leads at, and the one before */
        for (int i = 0; i < x->n; i++) {
            if (!(x->fast_t[k][i] > 0) || !(x->direct[k][i] > 0))
                continue;
            if (x->fast_t[k][i] < x->direct[k][i]) {
                first = i;
                break;
            }
            last = i;
        }
        if (first < 0 && last < 0)
            continue;
        char a[96] = "", b[96] = "";
        if (last >= 0)
            crossover_pair(x, k, last, mp, a, sizeof a);
        if (first >= 0)
            crossover_pair(x, k, first, mp, b, sizeof b);
        printf("%s: crossover, %s, %s: %s", fmt_name, x->k == DISC ? "discs" : "random 2-D filters",
               k ? "kernels" : "end to end", oclconv_method_name(x->fast));
        if (first < 0)
            printf(" behind the direct sums up to %dx%d (%s)\n", 2 * x->r[last] + 1,
                   2 * x->r[last] + 1, a);
        else if (last < 0)
            printf(" ahead from %dx%d, the smallest measured (%s)\n", 2 * x->r[first] + 1,
                   2 * x->r[first] + 1, b);
        else
            printf(" ahead from %dx%d (%s; %s)\n", 2 * x->r[first] + 1, 2 * x->r[first] + 1, a,
                   b);
    }
}
