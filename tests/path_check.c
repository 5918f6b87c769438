/*
 * What test_paths and test_mixed share: the type pairs, sizes and filter
 * shapes their cases draw from, random filters of the kind a path runs,
 * one case checked against the reference, and the sets of cases run side
 * by side in child processes.
 */
#include "path_check.h"

#include "test.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

const type_pair type_pairs[TYPE_PAIRS] = {
    {OCLCONV_U8, OCLCONV_U8},
    {OCLCONV_U16, OCLCONV_U16},
    {OCLCONV_F32, OCLCONV_F32},
    {OCLCONV_U8, OCLCONV_F32},
    {OCLCONV_F32, OCLCONV_U8},
    {OCLCONV_U8, OCLCONV_U16},
};

const int sizes[SIZES][2] = {{1, 1}, {1, 7}, {7, 1}, {17, 13}, {3, 2}, {67, 9}, {13, 131}};
const int shapes[SHAPES][2] = {{3, 3}, {5, 3}, {1, 5}, {7, 9}, {3, 1}};

static oclconv_filter *random_filter(uint64_t *rng, int fw, int fh)
{
    float *w = malloc((size_t)fw * (size_t)fh * sizeof *w);
    if (!w)
        exit(TEST_HARD_ERROR);
    double sum = 0;
    for (int k = 0; k < fw * fh; k++) {
        w[k] = (float)rng_uniform(rng, -0.3, 1.0);
        sum += w[k];
    }
    for (int k = 0; k < fw * fh; k++)
        w[k] = (float)(w[k] / sum);
    oclconv_filter *f = NULL;
    if (oclconv_filter_create(fw, fh, w, &f) != OCLCONV_OK) {
        fprintf(stderr, "filter: %s\n", oclconv_errmsg(NULL));
        exit(TEST_HARD_ERROR);
    }
    free(w);
    return f;
}

oclconv_filter *filter_for(oclconv_method method, uint64_t *rng, int fw, int fh)
{
    oclconv_filter *f = NULL;
    oclconv_status s = OCLCONV_OK;
    if (method == OCLCONV_METHOD_BOX) {
        s = oclconv_filter_box(fw / 2, fh / 2, &f);
    } else if (method == OCLCONV_METHOD_SEPARABLE) {
        float row[9], col[9], w[81];
        double rs = 0, cs = 0;
        /* Half of them symmetric, whose taps the CPU bands add in pairs. */
        int mirrored = (int)(rng_next(rng) % 2);
        for (int i = 0; i < fw; i++)
            rs += row[i] = mirrored && i > fw / 2 ? row[fw - 1 - i]
                                                  : (float)rng_uniform(rng, -0.2, 1.0);
        for (int j = 0; j < fh; j++)
            cs += col[j] = mirrored && j > fh / 2 ? col[fh - 1 - j]
                                                  : (float)rng_uniform(rng, -0.2, 1.0);
        for (int i = 0; i < fw; i++)
            row[i] = (float)(row[i] / rs);
        for (int j = 0; j < fh; j++)
            col[j] = (float)(col[j] / cs);
        if (rng_next(rng) % 2) {
            s = oclconv_filter_separable(fw, row, fh, col, &f);
        } else { /* exact products, so the detected factors lose nothing */
            for (int j = 0; j < fh; j++)
                for (int i = 0; i < fw; i++)
                    w[j * fw + i] = col[j] * (i == fw / 2 ? 1.0f : 0.5f);
            s = oclconv_filter_create(fw, fh, w, &f);
        }
    } else {
        return random_filter(rng, fw, fh);
    }
    if (s != OCLCONV_OK) {
        fprintf(stderr, "filter: %s\n", oclconv_errmsg(NULL));
        exit(TEST_HARD_ERROR);
    }
    return f;
}

/* Options of a forced path, a border and its value. */
oclconv_options options_for(oclconv_method method, oclconv_border border, float value)
{
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = method;
    opt.border = border;
    opt.border_value = value;
    return opt;
}

/* Filters `src` into `dst` and compares `dst` with the reference's result
 * for `ref_src` (src's values as they were, where dst is src itself);
 * returns the number of mismatching values, reported under `label`. */
long apply_and_compare(oclconv_context *ctx, const oclconv_image *src, oclconv_image *dst,
                       const oclconv_image *ref_src, const oclconv_filter *f,
                       const oclconv_options *opt, const char *label)
{
    int fw, fh;
    oclconv_filter_size(f, &fw, &fh);
    oclconv_status s = oclconv_apply(ctx, src, dst, f, opt);
    if (s != OCLCONV_OK) {
        TEST_FAIL_("%s: %s: %s", label, oclconv_strerror(s), oclconv_errmsg(ctx));
        return 1;
    }
    ref_result ref;
    if (ref_convolve(ref_src, fw, fh, oclconv_filter_weights(f), opt, &ref) != 0) {
        fprintf(stderr, "reference failed\n");
        exit(TEST_HARD_ERROR);
    }
    char why[256];
    long bad = ref_compare(dst, &ref, why, sizeof why);
    if (bad)
        TEST_FAIL_("%s: %ld mismatches, first %s", label, bad, why);
    ref_result_free(&ref);
    return bad;
}

/* Filters src into a fresh destination and compares with the reference;
 * also that the destination's row padding is untouched and the forced
 * path ran.  Returns the number of mismatching values. */
long check_one(oclconv_context *ctx, const oclconv_image *src, oclconv_type dst_type,
               size_t dst_extra, const oclconv_filter *f, const oclconv_options *opt,
               const char *label)
{
    oclconv_image dst = image_like(src, dst_type, dst_extra);
    long bad = apply_and_compare(ctx, src, &dst, src, f, opt, label);
    if (!image_padding_intact(&dst)) {
        TEST_FAIL_("%s: wrote into the destination's row padding", label);
        bad++;
    }
    if (opt->method != OCLCONV_METHOD_AUTO && oclconv_last_method(ctx) != opt->method)
        TEST_FAIL_("%s: ran %s", label, oclconv_method_name(oclconv_last_method(ctx)));
    image_free(&dst);
    return bad;
}

/* src and dst the same memory: the result is as if they were not. */
void in_place(oclconv_context *ctx, oclconv_method method, uint64_t *rng)
{
    for (int cn = 1; cn <= 4; cn++) {
        oclconv_image img = image_random(rng, 23, 11, cn, OCLCONV_U8, 5);
        oclconv_image copy = image_like(&img, OCLCONV_U8, 5);
        memcpy(copy.data, img.data, image_bytes(&img));
        oclconv_filter *f = filter_for(method, rng, 5, 5);
        oclconv_options opt = options_for(method, OCLCONV_BORDER_REFLECT101, 0);
        char label[64];
        snprintf(label, sizeof label, "in place %s cn=%d", oclconv_method_name(method), cn);
        apply_and_compare(ctx, &img, &img, &copy, f, &opt, label);
        oclconv_filter_destroy(f);
        image_free(&img);
        image_free(&copy);
    }
}

long check_sizes(oclconv_context *ctx, uint64_t *rng, const char *name, const type_pair *tp,
                 int cn, const oclconv_filter *f, const oclconv_options *opt, int w, int h)
{
    int fw, fh;
    oclconv_filter_size(f, &fw, &fh);
    long cases = 0;
    for (int sz = 0; sz < SIZES + (w > 0); sz++) {
        int sw = sz < SIZES ? sizes[sz][0] : w, sh = sz < SIZES ? sizes[sz][1] : h;
        size_t extra = rng_next(rng) % 2 ? rng_next(rng) % 37 : 0;
        oclconv_image src = image_random(rng, sw, sh, cn, tp->src, extra);
        char label[200];
        snprintf(label, sizeof label, "%s %s %s->%s cn=%d %dx%d filter %dx%d", name,
                 border_name(opt->border), type_name(src.type), type_name(tp->dst), cn, src.width,
                 src.height, fw, fh);
        check_one(ctx, &src, tp->dst, rng_next(rng) % 2 ? 12 : 0, f, opt, label);
        image_free(&src);
        cases++;
    }
    return cases;
}

void in_parts(oclconv_context *ctx, oclconv_method method, uint64_t *rng, const oclconv_filter *f,
              const oclconv_border borders[4])
{
    int fw, fh;
    oclconv_filter_size(f, &fw, &fh);
    for (int b = 0; b < 4; b++) {
        oclconv_options opt = options_for(method, borders[b], 9);
        oclconv_image src = image_random(rng, 67, 131, 1 + b, OCLCONV_U8, 0);
        char label[160];
        if (b % 2)
            opt.max_device_bytes = 64 << 10;
        else
            setenv("OCLCONV_BANDS", "3", 1);
        snprintf(label, sizeof label, "%s %dx%d on 67x131 u8 cn=%d %s in %s",
                 oclconv_method_name(method), fw, fh, src.channels, border_name(opt.border),
                 b % 2 ? "strips" : "bands");
        check_one(ctx, &src, OCLCONV_U8, 0, f, &opt, label);
        unsetenv("OCLCONV_BANDS");
        image_free(&src);
    }
}

/* ====== Sets of cases, side by side ================================== */

/* Runs `set` in this process: a random stream of its own, a context of its
 * own, in the device's kernel shapes or the other device type's; returns
 * the failures counted here and in the body's file. */
static int run_set(const case_set *set, case_body body)
{
    uint64_t rng = 0x9E3779B97F4A7C15ull * (set->seed + 1) ^ 0xD1B54A32D192ED03ull;
    oclconv_context *ctx = test_context();
    const char *tune = use_shapes(ctx, set->other_shapes);
    printf("device: %s, kernel shapes: %s, %s\n", oclconv_device_name(ctx), tune, set->name);
    int failures = body(ctx, &rng, set->kind, !set->other_shapes);
    struct rusage use;
    getrusage(RUSAGE_SELF, &use);
    printf("programs built: %zu, %.1f CPU-s\n", oclconv_programs_built(ctx),
           use.ru_utime.tv_sec + use.ru_stime.tv_sec +
               (use.ru_utime.tv_usec + use.ru_stime.tv_usec) / 1e6);
    oclconv_destroy(ctx);
    use_shapes(NULL, 0);
    return failures + test_failures;
}

/* Waits for one child and keeps its status; returns its index in pid[],
 * or -1 for none. */
static int wait_child(const pid_t *pid, int n, int *status)
{
    int st = 0;
    pid_t done;
    while ((done = waitpid(-1, &st, 0)) < 0 && errno == EINTR)
        ;
    for (int k = 0; done > 0 && k < n; k++)
        if (pid[k] == done) {
            status[k] = st;
            return k;
        }
    return -1;
}

/* The sets are independent, so each runs in a child process of its own,
 * as many at once as the machine has processors (the builds take most of
 * the time, each on one core), forked before any process makes an OpenCL
 * call; their output follows in the sets' order.  Where a fork fails, the
 * sets not yet started run in this process, after the children. */
int run_case_sets(const case_set *sets, int n, case_body body)
{
    enum { MAX_SETS = 16 };
    pid_t pid[MAX_SETS] = {0};
    FILE *log[MAX_SETS] = {0};
    int status[MAX_SETS] = {0}, running = 0, k = 0, failures = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > MAX_SETS)
        return TEST_HARD_ERROR;
    fflush(NULL);
    for (; k < n; k++) {
        if (running >= cpus && running > 0 && wait_child(pid, n, status) >= 0)
            running--;
        log[k] = tmpfile();
        pid[k] = log[k] ? fork() : -1;
        if (pid[k] < 0)
            break;
        if (pid[k] == 0) {
            dup2(fileno(log[k]), STDOUT_FILENO);
            dup2(fileno(log[k]), STDERR_FILENO);
            int failed = run_set(&sets[k], body);
            fflush(NULL);
            _exit(failed ? 1 : 0);
        }
        running++;
    }
    while (running > 0 && wait_child(pid, n, status) >= 0)
        running--;
    fflush(NULL);
    for (int i = 0; i < n; i++) {
        if (log[i] && pid[i] > 0) {
            char buf[4096];
            rewind(log[i]);
            for (size_t got; (got = fread(buf, 1, sizeof buf, log[i])) > 0;)
                fwrite(buf, 1, got, stdout);
        }
        if (log[i])
            fclose(log[i]);
        if (i < k && (!WIFEXITED(status[i]) || WEXITSTATUS(status[i]) != 0)) {
            fprintf(stderr, "set %d (%s) failed (%s %d)\n", i, sets[i].name,
                    WIFEXITED(status[i]) ? "exit" : "signal",
                    WIFEXITED(status[i]) ? WEXITSTATUS(status[i]) : WTERMSIG(status[i]));
            failures++;
        }
    }
    fflush(NULL);
    for (; k < n; k++) /* no fork: in this process */
        failures += run_set(&sets[k], body);
    if (failures)
        fprintf(stderr, "%d set(s) failed\n", failures);
    return failures ? 1 : 0;
}
