/*
 * The oclconv command end to end, what it makes: PNGs of every colour type
 * and bit depth written with libpng, filtered by the command with each
 * filter and option, read back and compared with the CPU reference; the
 * kernel text parser; --help, --version, --list-devices.
 */
#include <errno.h>
#include <math.h>

#include "cli_harness.h"
#include "kernel_text.h"
#include "test.h"

/* Every colour type and depth with the defaults: gaussian, sigma 2. */
static void test_defaults_every_format(void)
{
    const char *args[N_CASES + 2];
    char names[N_CASES + 1][1200];
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_gaussian(2.0, 2.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);

    /* One run over every file: the batch mode too. */
    args[0] = "-o";
    args[1] = strcpy(names[N_CASES], at("out-default"));
    for (int i = 0; i < N_CASES; i++)
        args[i + 2] = strcpy(names[i], input(cases[i].name));
    ASSERT_EQ(cli_argv(N_CASES + 2, args), 0);
    /* Not a terminal: one plain line per file instead of a bar. */
    ASSERT_EQ(count_lines(cli_err), N_CASES);
    ASSERT_CONTAINS(cli_err, "[1/");
    for (int i = 0; i < N_CASES; i++)
        CHECK_OUTPUT(at("out-default/%s.png", cases[i].name), &pictures[i], &k, &opt, 1);
    int hidden;
    ASSERT_EQ(count_entries(at("out-default"), &hidden), N_CASES);
    ASSERT_EQ(hidden, 0);
    free(k.weights);
}

/* --no-premultiply: alpha is a channel like the others, integers throughout. */
static void test_no_premultiply(void)
{
    static const char *names[] = {"ga8", "ga16", "rgba8", "rgba16", "pal8-trns", "rgb16-trns"};
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_box(2, 1, &f), &f);
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_REFLECT101;
    ASSERT_EQ(cli("--no-premultiply", "--filter=box", "-r", "2x1", "--border", "reflect101", "-o",
                  at("out-straight"), input(names[0]), input(names[1]), input(names[2]),
                  input(names[3]), input(names[4]), input(names[5]), (char *)NULL),
              0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK_OUTPUT(at("out-straight/%s.png", names[i]), &pictures[case_index(names[i])], &k,
                     &opt, 0);
    free(k.weights);
}

/* Derivatives: mid-grey delta by default; with alpha, colour premultiplied
 * and alpha kept. */
static void test_sobel_default_delta(void)
{
    static const char *names[] = {"gray8", "rgb16", "rgba8", "ga16"};
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_sobel_x(&f), &f);
    ASSERT_EQ(cli("--filter", "sobel-x", "--border", "wrap", "-o", at("out-sobel"),
                  input(names[0]), input(names[1]), input(names[2]), input(names[3]),
                  (char *)NULL),
              0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const picture *p = &pictures[case_index(names[i])];
        oclconv_options_init(&opt);
        opt.border = OCLCONV_BORDER_WRAP;
        opt.delta = p->decoded.type == OCLCONV_U16 ? 32768 : 128;
        CHECK_OUTPUT(at("out-sobel/%s.png", names[i]), p, &k, &opt, 1);
    }
    free(k.weights);
}

/* A custom kernel, scale, delta, a constant border; INPUT OUTPUT form; the
 * verbose line names the forced path. */
static void test_custom_kernel(void)
{
    static const float w[9] = {1, 2, 1, 0, 0, 0, -1, -2, -1};
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_create(3, 3, w, &f), &f);
    oclconv_options_init(&opt);
    opt.scale = 0.25f;
    opt.delta = 10;
    opt.border = OCLCONV_BORDER_CONSTANT;
    opt.border_value = 50;
    ASSERT_EQ(cli("--kernel", "1 2 1; 0,0,0 ;-1, -2, -1", "--scale", "0.25", "--delta", "10",
                  "--border", "constant:50", "--method", "buffer", "--verbose", input("rgb8"),
                  at("custom.png"), (char *)NULL),
              0);
    CHECK_OUTPUT(at("custom.png"), &pictures[case_index("rgb8")], &k, &opt, 1);
    ASSERT_CONTAINS(cli_err, "buffer path");
    ASSERT_CONTAINS(cli_err, "custom 3x3");

    /* Same kernel from a file, one row per line, with comments. */
    static const char file[] = "# Sobel, d/dy\n1 2 1   # top\n\n0 0 0\n-1 -2 -1\n";
    write_all(at("kernel.txt"), file, sizeof file - 1);
    ASSERT_EQ(cli("--kernel-file", at("kernel.txt"), "--scale=0.25", "--delta=10",
                  "--border=constant:50", input("rgb8"), at("custom-file.png"), (char *)NULL),
              0);
    CHECK_OUTPUT(at("custom-file.png"), &pictures[case_index("rgb8")], &k, &opt, 1);
    free(k.weights);
}

/* Premultiplied alpha with weights that do not sum to 1, and with the
 * constant border whose colour and alpha values differ. */
static void test_premultiplied_variants(void)
{
    static const float w[9] = {0, 1, 0, 1, 4, 1, 0, 1, 0}; /* sums to 8 */
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_create(3, 3, w, &f), &f);
    oclconv_options_init(&opt);
    opt.scale = 0.125f;
    ASSERT_EQ(cli("-k", "0,1,0;1,4,1;0,1,0", "--scale", "0.125", "-o", at("out-pm"),
                  input("ga8"), input("rgba16"), (char *)NULL),
              0);
    CHECK_OUTPUT(at("out-pm/ga8.png"), &pictures[case_index("ga8")], &k, &opt, 1);
    CHECK_OUTPUT(at("out-pm/rgba16.png"), &pictures[case_index("rgba16")], &k, &opt, 1);
    free(k.weights);

    k = weights_of(oclconv_filter_sharpen(0.5f, &f), &f);
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_CONSTANT;
    opt.border_value = 100;
    ASSERT_EQ(cli("--filter", "sharpen", "--amount", "0.5", "--border", "constant:100",
                  input("rgba8"), at("sharpen-rgba8.png"), (char *)NULL),
              0);
    CHECK_OUTPUT(at("sharpen-rgba8.png"), &pictures[case_index("rgba8")], &k, &opt, 1);
    free(k.weights);

    k = weights_of(oclconv_filter_box(1, 2, &f), &f);
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_NORMALIZE;
    ASSERT_EQ(cli("-f", "box", "-r", "1x2", "-b", "normalize", input("pal2-trns"),
                  at("box-pal2-trns.png"), (char *)NULL),
              0);
    CHECK_OUTPUT(at("box-pal2-trns.png"), &pictures[case_index("pal2-trns")], &k, &opt, 1);
    free(k.weights);
}

/* Weights, scales and borders far from 1.  What the options accept works,
 * through the premultiplied path too; what a float cannot carry is refused
 * with that reason, never turned into another value. */
static void test_value_ranges(void)
{
    static const char *const refused[][3] = {
        {"-k", "1e-50", "too small"},
        {"-k", "1,1e-40,1", "too small"},
        {"-k", "1e39", "too large"},
        {"--scale", "1e-50", "too small"},
        {"--scale", "1e31", "too large"},
        {"--delta", "-1e-45", "too small"},
        {"--amount", "1e-39", "too small"},
        {"-b", "constant:1e-50", "too small"},
        {"-b", "constant:-2e30", "too large"},
    };
    make_dir(at("ranges"));
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int rc = cli("-f", "sharpen", refused[i][0], refused[i][1], input("gray8"),
                     at("ranges/x.png"), (char *)NULL);
        if (strcmp(refused[i][0], "-k") == 0) /* --kernel replaces --filter */
            rc = cli(refused[i][0], refused[i][1], input("gray8"), at("ranges/x.png"),
                     (char *)NULL);
        if (rc != 2 || !strstr(cli_err, refused[i][2]) || count_lines(cli_err) != 1)
            TEST_FAIL_("%s %s: exit %d, stderr: %s", refused[i][0], refused[i][1], rc, cli_err);
    }
    ASSERT(!exists(at("ranges/x.png")));
    /* The smallest normal float is taken. */
    ASSERT_EQ(cli("--scale", "1.2e-38", input("gray8"), at("ranges/tiny-scale.png"),
                  (char *)NULL), 0);

    /* Huge and tiny weights with alpha: alpha is normalised by the weight
     * sum, colour is scale * sum as without alpha, both exact. */
    static const char *const texts[] = {"1e38,1e38,1e38", "1e-30;3e-30;1e-30",
                                        "-3e38,1e38,2e38;1,1,1;2e38,1e38,-3e38"};
    static const float values[][9] = {{1e38f, 1e38f, 1e38f},
                                      {1e-30f, 3e-30f, 1e-30f},
                                      {-3e38f, 1e38f, 2e38f, 1, 1, 1, 2e38f, 1e38f, -3e38f}};
    static const int shapes[][2] = {{3, 1}, {1, 3}, {3, 3}};
    static const char *const names[] = {"rgba8", "ga16"};
    oclconv_options opt;
    oclconv_options_init(&opt);
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        oclconv_filter *f;
        weights k = weights_of(oclconv_filter_create(shapes[i][0], shapes[i][1], values[i], &f),
                               &f);
        for (size_t j = 0; j < 2; j++) {
            const char *out = at("ranges/k%zu-%s.png", i, names[j]);
            ASSERT_EQ(cli("-k", texts[i], input(names[j]), out, (char *)NULL), 0);
            CHECK_OUTPUT(out, &pictures[case_index(names[j])], &k, &opt, 1);
        }
        free(k.weights);
    }
    /* 2^120 three times, scaled by 2^-120, is 1,1,1 to the bit. */
    ASSERT_EQ(cli("-k", "1,1,1", input("rgba16"), at("ranges/ones.png"), (char *)NULL), 0);
    ASSERT_EQ(cli("-k", "1.3292279957849159e36,1.3292279957849159e36,1.3292279957849159e36",
                  "--scale", "7.52316384526264005e-37", input("rgba16"),
                  at("ranges/scaled-ones.png"), (char *)NULL),
              0);
    size_t len1, len2;
    unsigned char *a = read_all(at("ranges/ones.png"), &len1);
    unsigned char *b = read_all(at("ranges/scaled-ones.png"), &len2);
    ASSERT(len1 == len2 && memcmp(a, b, len1) == 0);
    free(a);
    free(b);

    /* A constant border far past the image's range, with alpha too. */
    oclconv_filter *f;
    weights k = weights_of(oclconv_filter_box(2, 1, &f), &f);
    static const char *const borders[] = {"constant:1e30", "constant:-1e30", "constant:3e19"};
    static const float border_values[] = {1e30f, -1e30f, 3e19f};
    for (size_t i = 0; i < sizeof borders / sizeof borders[0]; i++) {
        opt.border = OCLCONV_BORDER_CONSTANT;
        opt.border_value = border_values[i];
        for (size_t j = 0; j < 2; j++) {
            const char *out = at("ranges/border%zu-%s.png", i, names[j]);
            ASSERT_EQ(cli("-f", "box", "-r", "2x1", "-b", borders[i], input(names[j]), out,
                          (char *)NULL), 0);
            CHECK_OUTPUT(out, &pictures[case_index(names[j])], &k, &opt, 1);
        }
    }
    free(k.weights);
}

/* OUTPUT may be a folder; the input's name is kept. */
static void test_output_folder(void)
{
    make_dir(at("into"));
    ASSERT_EQ(cli("-f", "identity", input("gray4"), at("into"), (char *)NULL), 0);
    ASSERT(exists(at("into/gray4.png")));
}

static void test_info_options(void)
{
    char version[32];
    ASSERT_EQ(cli("--help", (char *)NULL), 0);
    ASSERT_CONTAINS(cli_out, "Usage: oclconv");
    ASSERT_CONTAINS(cli_out, "--border");
    ASSERT_EQ(cli("-h", (char *)NULL), 0);
    ASSERT_CONTAINS(cli_out, "Exit status");
    snprintf(version, sizeof version, "oclconv %d.%d.%d", OCLCONV_VERSION_MAJOR,
             OCLCONV_VERSION_MINOR, OCLCONV_VERSION_PATCH);
    ASSERT_EQ(cli("--version", (char *)NULL), 0);
    ASSERT_CONTAINS(cli_out, version);
    ASSERT_CONTAINS(cli_out, "libpng");
    ASSERT_CONTAINS(cli_out, "libjpeg");
    ASSERT_CONTAINS(cli_out, "libtiff 4.");
    ASSERT_EQ(cli("--list-devices", (char *)NULL), 0);
    ASSERT_CONTAINS(cli_out, "0: ");
}

/* --calibrate: --verbose says how AUTO chose; measured choices are kept in
 * OCLCONV_CALIBRATION_DIR and taken from there by `stored`. */
static void test_calibrate_option(void)
{
    setenv("OCLCONV_CALIBRATION_DIR", at("calibration"), 1);
    ASSERT_EQ(cli("--verbose", input("rgb8"), at("ruled.png"), (char *)NULL), 0);
    ASSERT_CONTAINS(cli_err, "path (by rule)"); /* make check sets OCLCONV_CALIBRATE=off */
    ASSERT_EQ(cli("--calibrate", "stored", "--verbose", input("rgb8"), at("ruled.png"),
                  (char *)NULL), 0);
    ASSERT_CONTAINS(cli_err, "path (by rule)");
    ASSERT_EQ(cli("--calibrate", "on", "--verbose", input("rgb8"), at("measured.png"),
                  (char *)NULL), 0);
    ASSERT_CONTAINS(cli_err, "path (measured)");
    ASSERT_EQ(cli("--calibrate=stored", "--verbose", input("rgb8"), at("stored.png"), (char *)NULL),
              0);
    ASSERT_CONTAINS(cli_err, "path (measured)");
    ASSERT_EQ(cli("--method", "buffer", "--calibrate", "on", "--verbose", input("rgb8"),
                  at("forced.png"), (char *)NULL), 0);
    ASSERT(strstr(cli_err, "buffer path,") != NULL);
    ASSERT_EQ(cli("--calibrate", "always", input("rgb8"), at("never.png"), (char *)NULL), 2);
    ASSERT_CONTAINS(cli_err, "--calibrate: unknown mode 'always' (on, off, stored, fresh)");
    unsetenv("OCLCONV_CALIBRATION_DIR");
}

/* The kernel text parser on its own. */
static void test_kernel_text(void)
{
    static const struct {
        const char *text;
        int w, h;
        float first, last;
    } good[] = {
        {"1,2,1;2,4,2;1,2,1", 3, 3, 1, 1},
        {"1 2 1\n2 4 2\n1 2 1\n", 3, 3, 1, 1},
        {" 1 , -2.5 ,1e1 ;", 3, 1, 1, 10},
        {"# identity\n\n  5  \n", 1, 1, 5, 5},
        {"1\r\n2\r\n3\r\n", 1, 3, 1, 3},
        {"0;;1;;2", 1, 3, 0, 2},
        {"0e-999 1.2e-38 -3.4e38", 3, 1, 0, -3.4e38f},
    };
    static const struct {
        const char *text, *reason;
    } bad[] = {
        {"1,2;3", "row 2 has 1 value but row 1 has 2"},
        {"1,2;3,4", "odd number of columns"},
        {"1;2", "odd number of rows"},
        {"1,,2", "row 1, value 2: empty value"},
        {",1", "empty value"},
        {"1,2,3,", "row 1 ends with a comma"},
        {"1,x,2", "row 1, value 2: 'x' is not a number"},
        {"1;2;1e", "row 3, value 1: '1e' is not a number"},
        {"1,inf,1", "not a finite"},
        {"nan", "not a finite"},
        {"1e39", "'1e39' is too large for a float"},
        {"1e999", "too large"},
        {"-1e-39", "'-1e-39' is too small for a float"},
        {"1e-999", "too small"},
        {"", "no values"},
        {" \n ; # nothing\n", "no values"},
    };
    kernel_text k;
    char err[200];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        if (kernel_text_parse(good[i].text, &k, err, sizeof err)) {
            TEST_FAIL_("'%s': %s", good[i].text, err);
            continue;
        }
        ASSERT_EQ(k.width, good[i].w);
        ASSERT_EQ(k.height, good[i].h);
        ASSERT(k.weights[0] == good[i].first);
        ASSERT(k.weights[k.width * k.height - 1] == good[i].last);
        kernel_text_free(&k);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (kernel_text_parse(bad[i].text, &k, err, sizeof err) == 0) {
            TEST_FAIL_("'%s' parsed", bad[i].text);
            kernel_text_free(&k);
            continue;
        }
        ASSERT(k.weights == NULL);
        ASSERT_CONTAINS(err, bad[i].reason);
    }
}

/* PNG compression: every level and row filter writes the same pixels, in
 * files whose sizes follow the level (a noisy RGB picture: stored, zlib's
 * default and the smallest, every filter tried). */
static void test_png_compression(void)
{
    static const char *const settings[][2] = {{"0", "none"}, {NULL, NULL}, {"9", "all"}};
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_gaussian(2.0, 2.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);
    size_t size[3];
    for (int i = 0; i < 3; i++) {
        const char *out = at("compressed-%d.png", i);
        int rc = settings[i][0] ? cli("--png-level", settings[i][0], "--png-filter",
                                      settings[i][1], input("rgb8"), out, (char *)NULL)
                                : cli(input("rgb8"), out, (char *)NULL);
        ASSERT_EQ(rc, 0);
        CHECK_OUTPUT(out, &pictures[case_index("rgb8")], &k, &opt, 1);
        free(read_all(out, &size[i]));
    }
    ASSERT(size[0] > size[1] && size[1] > size[2]);
    free(k.weights);
}

int main(void)
{
    int rc = cli_harness_init("cli");
    if (rc)
        return rc;
    test_kernel_text();
    cli_pictures_make();
    test_info_options();
    test_defaults_every_format();
    test_no_premultiply();
    test_sobel_default_delta();
    test_custom_kernel();
    test_premultiplied_variants();
    test_output_folder();
    test_value_ranges();
    test_png_compression();
    test_calibrate_option();
    cli_pictures_free();
    if (!test_failures)
        remove_tree(tmp);
    return test_exit();
}
