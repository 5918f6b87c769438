/*
 * AUTO's calibration (src/calibrate.c): a class measured once is stored and
 * taken without measuring again; OFF keeps to the rules, STORED never
 * measures, FRESH measures again; a corrupt, truncated or foreign file is
 * ignored and rewritten; a folder that cannot be written costs nothing but
 * the file; processes calibrating at once leave one whole file.  Whether a
 * measurement happened is read from the programs a context built.
 */
#include "test.h"
#include "util.h"

#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char folder[1024];
static char key[64]; /* the class of auto_run()'s jobs, "cpu/u8-u8/c4/sep/r3x3/s/fold" on a CPU */

typedef struct {
    oclconv_choice choice;
    oclconv_method method;
    size_t programs;
} outcome;

/* One AUTO call (or `forced`) on a fresh context in `mode` over `dir`. */
static outcome run_at(oclconv_calibration mode, const char *dir, oclconv_type type,
                      int channels, int box, oclconv_method forced, int width, int height)
{
    outcome o = {OCLCONV_CHOICE_NONE, OCLCONV_METHOD_AUTO, 0};
    oclconv_context *ctx = test_context();
    oclconv_filter *f = NULL;
    ASSERT_OK(ctx, oclconv_set_calibration(ctx, mode, dir));
    ASSERT_OK(NULL, box ? oclconv_filter_box(2, 2, &f) : oclconv_filter_gaussian(1.0f, 0, 3, 3, &f));
    uint64_t rng = 7;
    oclconv_image src = image_random(&rng, width, height, channels, type, 0);
    oclconv_image dst = image_like(&src, type, 0);
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = forced;
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, f, &opt));
    o.choice = oclconv_last_choice(ctx);
    o.method = oclconv_last_method(ctx);
    o.programs = oclconv_programs_built(ctx);
    image_free(&src);
    image_free(&dst);
    oclconv_filter_destroy(f);
    oclconv_destroy(ctx);
    return o;
}

static outcome run(oclconv_calibration mode, const char *dir, oclconv_type type, int channels,
                   int box, oclconv_method forced)
{
    return run_at(mode, dir, type, channels, box, forced, 96, 64);
}

/* Four classes of two filters, each at two size bands (the same programs). */
static outcome run_sized(oclconv_calibration mode, const char *dir, int box, int large)
{
    return run_at(mode, dir, OCLCONV_U8, 4, box, OCLCONV_METHOD_AUTO, large ? 800 : 96,
                  large ? 700 : 64);
}

static outcome auto_run(oclconv_calibration mode, const char *dir)
{
    return run(mode, dir, OCLCONV_U8, 4, 0, OCLCONV_METHOD_AUTO);
}

/* The files in dir: how many, and the first one's path. */
static int files_in(const char *dir, char *first, size_t size)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' && n++ == 0 && first)
            snprintf(first, size, "%s/%s", dir, e->d_name);
    if (d)
        closedir(d);
    return n;
}

static void empty_folder(const char *dir)
{
    char path[2048];
    while (files_in(dir, path, sizeof path) > 0)
        if (unlink(path) != 0 && rmdir(path) != 0)
            break;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = calloc(1, 1 << 16);
    if (f && text && fread(text, 1, (1 << 16) - 1, f) == 0)
        text[0] = 0;
    if (f)
        fclose(f);
    return text;
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    ASSERT(f != NULL);
    if (f) {
        ASSERT_EQ(fwrite(text, 1, len, f), len);
        fclose(f);
    }
}

static void test_measured_then_stored(const outcome *forced)
{
    empty_folder(folder);
    outcome first = auto_run(OCLCONV_CALIBRATE_ON, folder);
    ASSERT_EQ(first.choice, OCLCONV_CHOICE_MEASURED);
    ASSERT(first.programs > forced->programs); /* the candidates were built and timed */
    char path[2048];
    ASSERT_EQ(files_in(folder, path, sizeof path), 1);
    char *text = read_text(path);
    ASSERT_CONTAINS(text, key);
    free(text);
    /* Later contexts take the stored choice and build only its program. */
    outcome again = auto_run(OCLCONV_CALIBRATE_ON, folder);
    ASSERT_EQ(again.choice, OCLCONV_CHOICE_MEASURED);
    ASSERT_EQ(again.method, first.method);
    outcome stored = auto_run(OCLCONV_CALIBRATE_STORED, folder);
    ASSERT_EQ(stored.choice, OCLCONV_CHOICE_MEASURED);
    ASSERT_EQ(stored.method, first.method);
    ASSERT_EQ(stored.programs, run(OCLCONV_CALIBRATE_OFF, NULL, OCLCONV_U8, 4, 0,
                                   first.method).programs);
    /* FRESH measures again, and the file stays one. */
    outcome fresh = auto_run(OCLCONV_CALIBRATE_FRESH, folder);
    ASSERT_EQ(fresh.choice, OCLCONV_CHOICE_MEASURED);
    ASSERT(fresh.programs > forced->programs);
    ASSERT_EQ(files_in(folder, NULL, 0), 1);
    /* OFF keeps to the rules and writes nothing. */
    empty_folder(folder);
    outcome off = auto_run(OCLCONV_CALIBRATE_OFF, folder);
    ASSERT_EQ(off.choice, OCLCONV_CHOICE_RULE);
    ASSERT_EQ(off.programs, forced->programs);
    ASSERT_EQ(files_in(folder, NULL, 0), 0);
    /* STORED with nothing stored: the rules, at once, and no file. */
    outcome none = auto_run(OCLCONV_CALIBRATE_STORED, folder);
    ASSERT_EQ(none.choice, OCLCONV_CHOICE_RULE);
    ASSERT_EQ(none.programs, forced->programs);
    ASSERT_EQ(files_in(folder, NULL, 0), 0);
}

/* Each damaged file is ignored (STORED gets the rules), then rewritten
 * whole by a measurement (STORED then gets the measured path). */
static void test_damaged_files(const outcome *forced)
{
    empty_folder(folder);
    outcome good = auto_run(OCLCONV_CALIBRATE_ON, folder);
    char path[2048];
    ASSERT_EQ(files_in(folder, path, sizeof path), 1);
    char *text = read_text(path);
    size_t len = strlen(text);
    char *id = strstr(text, "\nid ");
    ASSERT(id != NULL && len > 40);
    if (!id || len <= 40) {
        free(text);
        return;
    }
    char *bad = malloc(len + 200);
    const char *what[] = {"truncated", "foreign", "unknown path", "a NUL", "a long key",
                          "empty", "a stray line"};
    for (int k = 0; k < 7; k++) {
        size_t n = len;
        memcpy(bad, text, len + 1);
        char *at = strstr(bad, key);
        switch (k) {
        case 0: n = len - 5; break;
        case 1: bad[id - text + 4] ^= 1; break;
        case 2: n = (size_t)sprintf(at, "%sfastest\n", key) + (size_t)(at - bad); break;
        case 3: bad[len / 2] = 0; break;
        case 4: n = (size_t)sprintf(at, "cpu/%0100d\tbuffer\n", 0) + (size_t)(at - bad); break;
        case 5: n = 0; break;
        case 6: n = len + (size_t)sprintf(bad + len, "this is no entry\n"); break;
        }
        write_text(path, bad, n);
        outcome ignored = auto_run(OCLCONV_CALIBRATE_STORED, folder);
        if (ignored.choice != OCLCONV_CHOICE_RULE)
            TEST_FAIL_("a file with %s was taken", what[k]);
        ASSERT_EQ(ignored.programs, forced->programs);
        if (k > 1 && k != 6) /* the rewrite is the same for every damage */
            continue;
        outcome remeasured = auto_run(OCLCONV_CALIBRATE_ON, folder);
        ASSERT_EQ(remeasured.choice, OCLCONV_CHOICE_MEASURED);
        ASSERT(remeasured.programs > forced->programs);
        outcome stored = auto_run(OCLCONV_CALIBRATE_STORED, folder);
        if (stored.choice != OCLCONV_CHOICE_MEASURED)
            TEST_FAIL_("a file with %s was not rewritten", what[k]);
        ASSERT_EQ(files_in(folder, NULL, 0), 1);
    }
    write_text(path, text, len); /* whole again */
    /* A stored path that cannot run the class's jobs: the rules' path. */
    char *at = strstr(text, key);
    if (at) {
        sprintf(at, "%sbox\n", key);
        write_text(path, text, strlen(text));
        outcome ruled = auto_run(OCLCONV_CALIBRATE_STORED, folder);
        ASSERT_EQ(ruled.choice, OCLCONV_CHOICE_RULE);
        ASSERT_EQ(ruled.method, forced->method);
    }
    (void)good;
    free(bad);
    free(text);
}

/* A folder that is a file: measured, kept in the context, nothing written. */
static void test_unwritable(const outcome *forced)
{
    char file[1100], inside[1200];
    snprintf(file, sizeof file, "%s/not-a-folder", folder);
    empty_folder(folder);
    write_text(file, "x\n", 2);
    snprintf(inside, sizeof inside, "%s/sub", file);
    outcome o = auto_run(OCLCONV_CALIBRATE_ON, inside);
    ASSERT_EQ(o.choice, OCLCONV_CHOICE_MEASURED);
    ASSERT(o.programs > forced->programs);
    ASSERT_EQ(files_in(folder, NULL, 0), 1);
    empty_folder(folder);
}

/* The environment: OCLCONV_CALIBRATE and OCLCONV_CALIBRATION_DIR are the
 * defaults, and a value outside the four is refused by name. */
static void test_environment(void)
{
    empty_folder(folder);
    auto_run(OCLCONV_CALIBRATE_ON, folder);
    setenv("OCLCONV_CALIBRATION_DIR", folder, 1);
    setenv("OCLCONV_CALIBRATE", "stored", 1);
    ASSERT_EQ(auto_run(OCLCONV_CALIBRATE_DEFAULT, NULL).choice, OCLCONV_CHOICE_MEASURED);
    setenv("OCLCONV_CALIBRATE", "off", 1);
    ASSERT_EQ(auto_run(OCLCONV_CALIBRATE_DEFAULT, NULL).choice, OCLCONV_CHOICE_RULE);
    setenv("OCLCONV_CALIBRATE", "sometimes", 1);
    oclconv_context *ctx = test_context();
    oclconv_filter *f = NULL;
    ASSERT_OK(NULL, oclconv_filter_box(1, 1, &f));
    uint64_t rng = 3;
    oclconv_image src = image_random(&rng, 16, 16, 1, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &dst, f, NULL), OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "OCLCONV_CALIBRATE=sometimes");
    ASSERT_STATUS(ctx, oclconv_set_calibration(ctx, (oclconv_calibration)9, NULL),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_set_calibration(NULL, OCLCONV_CALIBRATE_ON, NULL),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_OK(ctx, oclconv_set_calibration(ctx, OCLCONV_CALIBRATE_OFF, NULL)); /* over the env */
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, f, NULL));
    ASSERT_EQ(oclconv_last_choice(ctx), OCLCONV_CHOICE_RULE);
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = OCLCONV_METHOD_BUFFER;
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, f, &opt));
    ASSERT_EQ(oclconv_last_choice(ctx), OCLCONV_CHOICE_CALLER);
    image_free(&src);
    image_free(&dst);
    oclconv_filter_destroy(f);
    oclconv_destroy(ctx);
    unsetenv("OCLCONV_CALIBRATE");
    unsetenv("OCLCONV_CALIBRATION_DIR");
}

/* A call whose copies go in bands (OCLCONV_BANDS asks for them on any
 * device) is a class of its own: its kernels run on parts, beside copies,
 * and a discrete GPU's fastest path there need not be a whole call's. */
static void test_bands_apart(const outcome *forced)
{
    empty_folder(folder);
    setenv("OCLCONV_BANDS", "2", 1);
    outcome banded = auto_run(OCLCONV_CALIBRATE_ON, folder);
    unsetenv("OCLCONV_BANDS");
    ASSERT_EQ(banded.choice, OCLCONV_CHOICE_MEASURED);
    char path[2048], bands_key[80];
    ASSERT_EQ(files_in(folder, path, sizeof path), 1);
    snprintf(bands_key, sizeof bands_key, "%.*s/bands\t", (int)strlen(key) - 1, key);
    char *text = read_text(path);
    ASSERT_CONTAINS(text, bands_key);
    ASSERT(strstr(text, key) == NULL);
    free(text);
    /* The whole call is measured for itself, and both stay. */
    outcome whole = auto_run(OCLCONV_CALIBRATE_ON, folder);
    ASSERT_EQ(whole.choice, OCLCONV_CHOICE_MEASURED);
    ASSERT(whole.programs > forced->programs);
    text = read_text(path);
    ASSERT_CONTAINS(text, bands_key);
    ASSERT_CONTAINS(text, key);
    free(text);
}

/* Processes calibrating classes at once, in one folder: afterwards one
 * whole file (no temporary left) that STORED contexts read. */
static void test_side_by_side(void)
{
    empty_folder(folder);
    pid_t pid[2];
    for (int k = 0; k < 2; k++) {
        pid[k] = fork();
        if (pid[k] == 0) {
            for (int c = 0; c < 2; c++)
                run_sized(OCLCONV_CALIBRATE_ON, folder, k, c);
            _exit(test_failures ? 1 : 0);
        }
    }
    for (int k = 0; k < 2; k++) {
        int st = 0;
        ASSERT(pid[k] > 0 && waitpid(pid[k], &st, 0) == pid[k]);
        ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    ASSERT_EQ(files_in(folder, NULL, 0), 1);
    int stored = 0;
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 2; c++)
            stored += run_sized(OCLCONV_CALIBRATE_STORED, folder, k, c).choice ==
                      OCLCONV_CHOICE_MEASURED;
    ASSERT(stored >= 2); /* each process's last write holds at least its own */
    printf("side by side: %d of 4 classes stored\n", stored);
}

int main(void)
{
    if (test_scratch_dir("calibration", folder, sizeof folder) != 0) {
        fprintf(stderr, "cannot make the test's folder\n");
        return TEST_HARD_ERROR;
    }
    unsetenv("OCLCONV_METHOD");
    unsetenv("OCLCONV_TUNE");
    test_side_by_side(); /* first: the children fork before any OpenCL call here */
    oclconv_context *ctx = test_context();
    snprintf(key, sizeof key, "%s/u8-u8/c4/sep/r3x3/s/fold\t",
             strcmp(other_shapes(ctx), "gpu") == 0 ? "cpu" : "gpu");
    oclconv_destroy(ctx);
    outcome ruled = auto_run(OCLCONV_CALIBRATE_OFF, NULL);
    ASSERT_EQ(ruled.choice, OCLCONV_CHOICE_RULE);
    outcome forced = run(OCLCONV_CALIBRATE_OFF, NULL, OCLCONV_U8, 4, 0, ruled.method);
    ASSERT_EQ(forced.choice, OCLCONV_CHOICE_CALLER);
    forced.method = ruled.method;
    test_measured_then_stored(&forced);
    test_damaged_files(&forced);
    test_unwritable(&forced);
    test_environment();
    test_bands_apart(&forced);
    return test_exit();
}
