/*
 * The oclconv command end to end, what it refuses: bad and hostile PNG
 * files, outputs that cannot be written, a batch with a bad file, bad
 * options.  Each failure is one line naming the file or option, the right
 * exit status, and nothing left behind.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "cli_harness.h"
#include "png_io.h"
#include "util.h"
#include "test.h"

/* Bad input files: one line naming the file, status 1, nothing left. */
static void test_bad_files(void)
{
    size_t len;
    int hidden;
    unsigned char *png = read_all(input("rgb8"), &len);

    make_dir(at("fail"));
    ASSERT_FAILS(cli(at("missing.png"), at("fail/x.png"), (char *)NULL), 1, "missing.png",
                 "No such file");
    write_all(at("text.png"), "hello, world\n", 13);
    ASSERT_FAILS(cli(at("text.png"), at("fail/x.png"), (char *)NULL), 1, "text.png",
                 "not a PNG, JPEG or TIFF file");
    write_all(at("empty.png"), "", 0);
    ASSERT_FAILS(cli(at("empty.png"), at("fail/x.png"), (char *)NULL), 1, "empty.png",
                 "not a PNG, JPEG or TIFF file");
    write_all(at("half.png"), png, len / 2);
    ASSERT_FAILS(cli(at("half.png"), at("fail/x.png"), (char *)NULL), 1, "half.png",
                 "truncated");
    write_all(at("no-iend.png"), png, len - 12);
    ASSERT_FAILS(cli(at("no-iend.png"), at("fail/x.png"), (char *)NULL), 1, "no-iend.png",
                 "truncated");
    write_all(at("sig-only.png"), png, 5);
    ASSERT_FAILS(cli(at("sig-only.png"), at("fail/x.png"), (char *)NULL), 1, "sig-only.png",
                 "truncated");
    /* A corrupted byte inside the image data: a CRC or zlib error. */
    png[len / 2] ^= 0x55;
    write_all(at("corrupt.png"), png, len);
    ASSERT_FAILS(cli(at("corrupt.png"), at("fail/x.png"), (char *)NULL), 1, "corrupt.png",
                 "PNG error");
    ASSERT_FAILS(cli(at("in"), at("fail/x.png"), (char *)NULL), 1, "in", "Is a directory");
    ASSERT_EQ(count_entries(at("fail"), &hidden), 0);
    free(png);
}

static uint32_t crc_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

static size_t put_chunk(unsigned char *at_, const char *type, const unsigned char *data,
                        uint32_t len)
{
    unsigned char *p = at_;
    p[0] = (unsigned char)(len >> 24);
    p[1] = (unsigned char)(len >> 16);
    p[2] = (unsigned char)(len >> 8);
    p[3] = (unsigned char)len;
    memcpy(p + 4, type, 4);
    if (len)
        memcpy(p + 8, data, len);
    uint32_t crc = crc_of(p + 4, 4 + (size_t)len);
    p += 8 + len;
    p[0] = (unsigned char)(crc >> 24);
    p[1] = (unsigned char)(crc >> 16);
    p[2] = (unsigned char)(crc >> 8);
    p[3] = (unsigned char)crc;
    return 12 + (size_t)len;
}

/* A header claiming a huge image, then a little image data. */
static void write_huge_header(const char *path, uint32_t w, uint32_t h, int depth, int type)
{
    unsigned char buf[256], ihdr[13] = {0}, idat[8] = {0x78, 0x9c, 0x03, 0, 0, 0, 0, 1};
    size_t n = 8;
    memcpy(buf, "\x89PNG\r\n\x1a\n", 8);
    for (int i = 0; i < 4; i++) {
        ihdr[i] = (unsigned char)(w >> (24 - 8 * i));
        ihdr[4 + i] = (unsigned char)(h >> (24 - 8 * i));
    }
    ihdr[8] = (unsigned char)depth;
    ihdr[9] = (unsigned char)type;
    n += put_chunk(buf + n, "IHDR", ihdr, 13);
    n += put_chunk(buf + n, "IDAT", idat, sizeof idat);
    n += put_chunk(buf + n, "IEND", NULL, 0);
    write_all(path, buf, n);
}

static void test_hostile_headers(void)
{
    write_huge_header(at("wide.png"), 70000, 1, 8, PNG_COLOR_TYPE_GRAY);
    ASSERT_FAILS(cli(at("wide.png"), at("fail/x.png"), (char *)NULL), 1, "wide.png",
                 "exceeds user limit");
    write_huge_header(at("huge.png"), 60000, 60000, 16, PNG_COLOR_TYPE_RGB_ALPHA);
    ASSERT_FAILS(cli(at("huge.png"), at("fail/x.png"), (char *)NULL), 1, "huge.png",
                 "too large");
}

/* A failed input: status 1, one line naming it, nothing written. */
static void assert_refused(const char *name, int rc)
{
    int hidden;
    if (rc != 1 || !strstr(cli_err, name) || count_lines(cli_err) != 1)
        TEST_FAIL_("%s: status %d, stderr \"%s\"", name, rc, cli_err);
    ASSERT_EQ(count_entries(at("fail"), &hidden), 0);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A valid file cut at every chunk boundary and in the middle of every
 * chunk, and with each chunk's CRC broken in turn.  A broken CRC on an
 * ancillary chunk may be ignored (libpng drops the chunk with a warning):
 * then the output must be the whole, correct image, else nothing. */
static int hostile_chunks(void)
{
    size_t len;
    unsigned char *png = read_all(input("rgba8"), &len);
    char name[64];
    int files = 0;
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_gaussian(2.0, 2.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);
    make_dir(at("fail"));
    for (size_t at_ = 8; at_ + 12 <= len; at_ += 12 + be32(png + at_)) {
        uint32_t n = be32(png + at_);
        int critical = !(png[at_ + 4] & 0x20);
        size_t cuts[3] = {at_, at_ + 8 + n / 2, at_ + 8 + n};
        for (int c = 0; c < 3; c++) {
            snprintf(name, sizeof name, "cut-%zu.png", cuts[c]);
            write_all(at("%s", name), png, cuts[c]);
            assert_refused(name, cli(at("%s", name), at("fail/x.png"), (char *)NULL));
            files++;
        }
        png[at_ + 8 + n] ^= 0xff; /* the CRC's first byte */
        snprintf(name, sizeof name, "crc-%.4s.png", (const char *)png + at_ + 4);
        write_all(at("%s", name), png, len);
        int rc = cli(at("%s", name), at("fail/x.png"), (char *)NULL);
        if (critical || rc != 0) {
            assert_refused(name, rc);
        } else {
            CHECK_OUTPUT(at("fail/x.png"), &pictures[case_index("rgba8")], &k, &opt, 1);
            remove(at("fail/x.png"));
        }
        png[at_ + 8 + n] ^= 0xff;
        files++;
    }
    free(png);
    free(k.weights);
    return files;
}

/* Headers no decoder should accept: zero sizes, bit depths and colour
 * types that do not exist, a 16-bit palette. */
static int hostile_headers(void)
{
    static const struct {
        uint32_t w, h;
        int depth, type;
    } bad[] = {{0, 4, 8, PNG_COLOR_TYPE_GRAY}, {4, 0, 8, PNG_COLOR_TYPE_GRAY},
               {4, 4, 3, PNG_COLOR_TYPE_GRAY}, {4, 4, 16, PNG_COLOR_TYPE_PALETTE},
               {4, 4, 8, 7},                   {4, 4, 4, PNG_COLOR_TYPE_RGB},
               {0x80000000u, 1, 8, PNG_COLOR_TYPE_GRAY}};
    char name[64];
    make_dir(at("fail"));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(name, sizeof name, "header-%zu.png", i);
        write_huge_header(at("%s", name), bad[i].w, bad[i].h, bad[i].depth, bad[i].type);
        assert_refused(name, cli(at("%s", name), at("fail/x.png"), (char *)NULL));
    }
    return (int)(sizeof bad / sizeof *bad);
}

/* An ICC profile of `size` bytes (at least 132) that libpng accepts for an
 * RGB image: a header, no tags, random bytes.  (Random: this libpng drops an
 * iCCP chunk under 92 bytes, which zeros would compress to.) */
static unsigned char *icc_profile(uint32_t size)
{
    unsigned char *p = calloc(size, 1);
    uint64_t rng = size;
    if (!p)
        exit(TEST_HARD_ERROR);
    for (uint32_t i = 132; i < size; i++)
        p[i] = (unsigned char)rng_next(&rng);
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(size >> (24 - 8 * i));
    memcpy(p + 8, "\x04\x20\0\0", 4); /* version 4.2 */
    memcpy(p + 12, "mntrRGB XYZ ", 12);
    memcpy(p + 36, "acsp", 4);
    memcpy(p + 68, "\0\0\xf6\xd6\0\x01\0\0\0\0\xd3\x2d", 12); /* D50 */
    return p;
}

/* `png` with an iCCP chunk holding `profile` (zlib at `level`) after IHDR. */
static void write_with_iccp(const char *path, const unsigned char *png, size_t len,
                            const unsigned char *profile, size_t size, int level)
{
    uLongf zlen = compressBound((uLong)size);
    unsigned char *chunk = malloc(6 + zlen), *out = malloc(len + 6 + zlen + 12);
    if (!chunk || !out)
        exit(TEST_HARD_ERROR);
    memcpy(chunk, "test\0\0", 6); /* name, compression method 0 */
    if (compress2(chunk + 6, &zlen, profile, (uLong)size, level) != Z_OK)
        exit(TEST_HARD_ERROR);
    size_t n = 8 + 25; /* signature and IHDR */
    memcpy(out, png, n);
    n += put_chunk(out + n, "iCCP", chunk, (uint32_t)(6 + zlen));
    memcpy(out + n, png + 33, len - 33);
    write_all(path, out, n + len - 33);
    free(chunk);
    free(out);
}

/* The colour profile: kept when it can be, else the output is written
 * without it and a warning says so.  Either way the image is whole. */
static void test_colour_profiles(void)
{
    static const struct {
        const char *name;
        uint32_t size;
        int level, damaged, kept;
    } profiles[] = {
        {"icc-small", 4096, 9, 0, 1},
        {"icc-9mib-chunk", 9u << 20, 0, 0, 0},   /* the chunk itself is 9 MiB */
        {"icc-9mib-inflated", 9u << 20, 9, 0, 0}, /* a small chunk, 9 MiB inflated */
        {"icc-damaged", 4096, 9, 1, 0},
    };
    size_t len;
    unsigned char *png = read_all(input("rgb8"), &len);
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_gaussian(2.0, 2.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);
    make_dir(at("icc"));
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        unsigned char *icc = icc_profile(profiles[i].size);
        if (profiles[i].damaged)
            memcpy(icc + 36, "ACSP", 4);
        const char *in = at("%s.png", profiles[i].name), *out = at("icc/%s.png", profiles[i].name);
        write_with_iccp(in, png, len, icc, profiles[i].size, profiles[i].level);
        int rc = cli(in, out, (char *)NULL);
        if (rc != 0) {
            TEST_FAIL_("%s: status %d, %s", profiles[i].name, rc, cli_err);
            free(icc);
            continue;
        }
        CHECK_OUTPUT(out, &pictures[case_index("rgb8")], &k, &opt, 1);
        png_io_picture pic;
        char why[300];
        FILE *fp = fopen(out, "rb");
        if (!fp || png_io_read(fp, &pic, why, sizeof why) != 0)
            hard_error("cannot read back", out);
        fclose(fp);
        if (profiles[i].kept) {
            ASSERT(pic.iccp_size == profiles[i].size && memcmp(pic.iccp, icc, pic.iccp_size) == 0);
            ASSERT_EQ(count_lines(cli_err), 0);
        } else {
            ASSERT(pic.iccp == NULL);
            ASSERT_EQ(count_lines(cli_err), 1);
            ASSERT_CONTAINS(cli_err, profiles[i].name);
            ASSERT_CONTAINS(cli_err, "warning: colour profile (iCCP) dropped");
            if (!profiles[i].damaged)
                ASSERT_CONTAINS(cli_err, "8 MiB");
        }
        png_io_free(&pic);
        free(icc);
    }
    free(k.weights);
    free(png);
}

/* Outputs that cannot be written: status 1, the output named, no debris. */
static void test_bad_outputs(void)
{
    size_t before_len, after_len;
    int hidden;
    ASSERT_FAILS(cli(input("gray8"), at("no/such/folder/x.png"), (char *)NULL), 1, "x.png",
                 "No such file");
    ASSERT_FAILS(cli(input("gray8"), at("in/gray8.png/x.png"), (char *)NULL), 1, "x.png",
                 "Not a directory");
    if (geteuid() != 0) { /* permissions do not stop root */
        make_dir(at("locked"));
        chmod(at("locked"), 0555);
        ASSERT_FAILS(cli(input("gray8"), at("locked/x.png"), (char *)NULL), 1, "x.png",
                     "Permission denied");
        ASSERT_EQ(count_entries(at("locked"), &hidden), 0);
        chmod(at("locked"), 0755);
    }

    /* The same file as input and output is refused and left alone. */
    unsigned char *before = read_all(input("rgb8"), &before_len);
    write_all(at("same.png"), before, before_len);
    ASSERT_FAILS(cli(at("same.png"), at("same.png"), (char *)NULL), 1, "same.png",
                 "same file");
    unsigned char *after = read_all(at("same.png"), &after_len);
    ASSERT(before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
}

/* One bad file in a batch: the others are written, status 1, the lines in
 * the files' order though each output is written while the next file is
 * filtered.  An output that cannot be written (a folder holds its name)
 * fails alone too. */
static void test_batch_with_failure(void)
{
    int rc = cli("-o", at("out-batch"), input("gray8"), at("text.png"), input("rgb8"),
                 input("gray8"), (char *)NULL);
    ASSERT_EQ(rc, 1);
    ASSERT(exists(at("out-batch/gray8.png")));
    ASSERT(exists(at("out-batch/rgb8.png")));
    ASSERT(!exists(at("out-batch/text.png")));
    ASSERT_CONTAINS(cli_err, "text.png: not a PNG, JPEG or TIFF file");
    ASSERT_CONTAINS(cli_err, "would replace that of"); /* gray8.png given twice */
    ASSERT_CONTAINS(cli_err, "2 of 4 files failed");
    const char *first = strstr(cli_err, "[1/4]"), *bad = strstr(cli_err, "text.png: not a"),
               *third = strstr(cli_err, "[3/4]");
    ASSERT(first && bad && third && first < bad && bad < third);

    make_dir(at("out-taken"));
    make_dir(at("out-taken/gray8.png"));
    rc = cli("-o", at("out-taken"), input("gray8"), input("rgb8"), (char *)NULL);
    ASSERT_EQ(rc, 1);
    ASSERT(exists(at("out-taken/rgb8.png")));
    ASSERT_CONTAINS(cli_err, "out-taken/gray8.png: ");
    ASSERT_CONTAINS(cli_err, "1 of 2 files failed");
    ASSERT(strstr(cli_err, "gray8.png: ") < strstr(cli_err, "[2/2]"));
}

/* No device: the batch stops at its first file, as one file at a time
 * would, while its next input, a FIFO no one writes, holds up the thread
 * that reads ahead. */
static void test_no_device_blocked_input(void)
{
    const char *fifo = at("no-writer.png");
    unlink(fifo);
    ASSERT(mkfifo(fifo, 0644) == 0);
    alarm(120); /* a hang fails the test */
    int rc = cli("-d", "no-such-device", "-o", at("out-nodev"), input("gray8"), fifo, (char *)NULL);
    alarm(0);
    ASSERT_EQ(rc, 1);
    ASSERT_CONTAINS(cli_err, "no usable OpenCL device");
    ASSERT_CONTAINS(cli_err, "2 of 2 files failed");
    unlink(fifo);
}

static void test_usage_errors(void)
{
    static const char *const bad[][3] = {
        {"--radius", "-3", "--radius"},
        {"--radius", "2x", "--radius"},
        {"--border", "bogus", "bogus"},
        {"--border", "constant:x", "constant:x"},
        {"--kernel", "1,2;3", "row 2 has 1 value"},
        {"--kernel", "1,2;3,4", "odd"},
        {"--kernel-file", "/nonexistent/k.txt", "k.txt"},
        {"--sigma", "0", "--sigma"},
        {"--sigma", "nan", "--sigma"},
        {"--filter", "blur", "blur"},
        {"--method", "fast", "fast"},
        {"--scale", "1e99999", "--scale"},
        {"--bogus", "x", "--bogus"},
        {"--amount", "2", "sharpen"},   /* amount without sharpen */
        {"-z", "x", "-z"},
        {"--png-level", "10", "--png-level"},
        {"--png-level", "-1", "--png-level"},
        {"--png-filter", "fast", "fast"},
    };
    int hidden;
    make_dir(at("usage"));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = cli(bad[i][0], bad[i][1], input("gray8"), at("usage/x.png"), (char *)NULL);
        if (rc != 2 || !strstr(cli_err, bad[i][2]) || count_lines(cli_err) != 1)
            TEST_FAIL_("%s %s: exit %d, stderr: %s", bad[i][0], bad[i][1], rc, cli_err);
    }
    ASSERT_FAILS(cli("--filter", "sobel-x", "--border", "normalize", input("gray8"),
                     at("usage/x.png"), (char *)NULL),
                 2, "normalize", "sum to 0");
    ASSERT_FAILS(cli("-f", "box", "-s", "2", input("gray8"), at("usage/x.png"), (char *)NULL), 2,
                 "--sigma", "gaussian");
    ASSERT_FAILS(cli("-k", "1", "-f", "box", input("gray8"), at("usage/x.png"), (char *)NULL), 2,
                 "--kernel", "--filter");
    ASSERT_FAILS(cli(input("gray8"), (char *)NULL), 2, "oclconv", "INPUT.png OUTPUT.png");
    ASSERT_FAILS(cli(input("gray8"), input("rgb8"), at("usage/x.png"), (char *)NULL), 2,
                 "oclconv", "INPUT.png OUTPUT.png");
    ASSERT_FAILS(cli("-o", at("usage"), (char *)NULL), 2, "oclconv", "no input");
    ASSERT_FAILS(cli("--radius", (char *)NULL), 2, "--radius", "needs a value");
    ASSERT_FAILS(cli("--verbose=1", (char *)NULL), 2, "--verbose", "takes no value");
    ASSERT_EQ(count_entries(at("usage"), &hidden), 0);
}

int main(void)
{
    int rc = cli_harness_init("cli-failures");
    if (rc)
        return rc;
    cli_pictures_make();
    test_bad_files();
    test_hostile_headers();
    int hostile = hostile_chunks();
    hostile += hostile_headers();
    printf("hostile PNG files refused or read whole: %d\n", hostile);
    test_colour_profiles();
    test_bad_outputs();
    test_batch_with_failure();
    test_no_device_blocked_input();
    test_usage_errors();
    cli_pictures_free();
    if (!test_failures)
        remove_tree(tmp);
    return test_exit();
}
