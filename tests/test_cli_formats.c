/*
 * The oclconv command end to end with JPEG and TIFF: TIFFs of every kind it
 * reads (8, 16 bits and float; gray, gray+alpha, RGB, RGBA; strips, tiles,
 * planes, Deflate, white-is-zero) and JPEGs, written with libtiff and
 * libjpeg, filtered and compared with the CPU reference; the output format
 * following the extension, the input's its content; EXIF orientation, ICC
 * profiles, --quality, a piped input; and the hostile files it refuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.h"
#include "image_io.h"
#include "reference.h"
#include "test.h"
#include "util.h"

static const char *tin(const char *name)
{
    return at("in/%s.tif", name);
}

/* Every TIFF kind with the defaults (gaussian, sigma 2, alpha
 * premultiplied), in one batch: the outputs are TIFFs of the same kind. */
static void test_tiff_every_kind(void)
{
    const char *args[N_TIFF_CASES + 2];
    char names[N_TIFF_CASES + 1][1200];
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_gaussian(2.0, 2.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);
    args[0] = "-o";
    args[1] = strcpy(names[N_TIFF_CASES], at("out-tiff"));
    for (int i = 0; i < N_TIFF_CASES; i++)
        args[i + 2] = strcpy(names[i], tin(tiff_cases[i].name));
    ASSERT_EQ(cli_argv(N_TIFF_CASES + 2, args), 0);
    for (int i = 0; i < N_TIFF_CASES; i++)
        CHECK_OUTPUT(at("out-tiff/%s.tif", tiff_cases[i].name), &tiff_pictures[i], &k, &opt, 1);
    int hidden;
    ASSERT_EQ(count_entries(at("out-tiff"), &hidden), N_TIFF_CASES);
    ASSERT_EQ(hidden, 0);
    free(k.weights);
}

/* Alpha as a plain channel, float too; and derivatives of float images,
 * whose default delta is 0.5, the middle of their nominal 0..1. */
static void test_tiff_straight_and_float_delta(void)
{
    static const char *straight[] = {"t-ga16", "t-rgba8", "t-rgbaf"};
    static const char *sobel[] = {"t-grayf", "t-rgbf", "t-rgbaf", "t-gray16"};
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_box(2, 1, &f), &f);
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_REFLECT101;
    ASSERT_EQ(cli("--no-premultiply", "-f", "box", "-r", "2x1", "-b", "reflect101", "-o",
                  at("out-straight"), tin(straight[0]), tin(straight[1]), tin(straight[2]),
                  (char *)NULL),
              0);
    for (int i = 0; i < 3; i++)
        CHECK_OUTPUT(at("out-straight/%s.tif", straight[i]),
                     &tiff_pictures[tiff_case_index(straight[i])], &k, &opt, 0);
    free(k.weights);

    k = weights_of(oclconv_filter_sobel_x(&f), &f);
    ASSERT_EQ(cli("-f", "sobel-x", "-o", at("out-sobel"), tin(sobel[0]), tin(sobel[1]),
                  tin(sobel[2]), tin(sobel[3]), (char *)NULL),
              0);
    for (int i = 0; i < 4; i++) {
        const picture *p = &tiff_pictures[tiff_case_index(sobel[i])];
        oclconv_options_init(&opt);
        opt.delta = p->decoded.type == OCLCONV_F32 ? 0.5f : 32768;
        CHECK_OUTPUT(at("out-sobel/%s.tif", sobel[i]), p, &k, &opt, 1);
    }
    free(k.weights);
}

/* JPEG inputs: a PNG output is exactly the filter of the decoded JPEG; a
 * JPEG output (lossy) decodes to the right size and stays close to it. */
static void test_jpeg_inputs(void)
{
    static const char *names[2] = {"j-gray", "j-rgb"};
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_gaussian(1.0, 1.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);
    for (int i = 0; i < 2; i++) {
        ASSERT_EQ(cli("-s", "1", at("in/%s.jpg", names[i]), at("%s.png", names[i]),
                      (char *)NULL),
                  0);
        CHECK_OUTPUT(at("%s.png", names[i]), &jpeg_pictures[i], &k, &opt, 1);
        ASSERT_EQ(cli("-s", "1", at("in/%s.jpg", names[i]), at("%s-out.jpg", names[i]),
                      (char *)NULL),
                  0);
        picture lossy = decode_jpeg(at("%s-out.jpg", names[i]));
        png_io_picture png;
        ASSERT_EQ(read_output(at("%s.png", names[i]), &png), 0);
        const oclconv_image *a = &lossy.decoded, *b = &png.image;
        ASSERT_EQ(a->width, 64);
        ASSERT_EQ(a->height, 48);
        ASSERT_EQ(a->channels, i ? 3 : 1);
        if (a->width == b->width && a->height == b->height && a->channels == b->channels) {
            /* Quality 90 on smooth pictures: small errors on average. */
            const size_t n = (size_t)a->width * (size_t)a->height * (size_t)a->channels;
            double sum = 0;
            for (size_t j = 0; j < n; j++)
                sum += fabs((double)((uint8_t *)a->data)[j] - ((uint8_t *)b->data)[j]);
            ASSERT(sum / (double)n < 2.5);
        }
        png_io_free(&png);
        free(lossy.decoded.data);
    }
    /* --quality: a lower quality, a smaller file. */
    struct stat lo, hi;
    ASSERT_EQ(cli("--quality", "20", at("in/j-rgb.jpg"), at("q20.jpg"), (char *)NULL), 0);
    ASSERT_EQ(cli("--quality=98", at("in/j-rgb.jpg"), at("q98.jpg"), (char *)NULL), 0);
    ASSERT(stat(at("q20.jpg"), &lo) == 0 && stat(at("q98.jpg"), &hi) == 0);
    ASSERT(lo.st_size < hi.st_size);
    free(k.weights);
}

/* The output's format follows its extension; the input's, its content. */
static void test_formats_by_name_and_content(void)
{
    oclconv_filter *f;
    oclconv_options opt;
    png_io_picture pic;
    size_t len;
    weights k = weights_of(oclconv_filter_gaussian(2.0, 2.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);

    /* 16-bit TIFF to PNG: 16 bits kept. */
    ASSERT_EQ(cli(tin("t-rgb16"), at("rgb16.png"), (char *)NULL), 0);
    unsigned char *head = read_all(at("rgb16.png"), &len);
    ASSERT(len > 8 && image_io_sniff(head, 8) == IMAGE_IO_PNG);
    free(head);
    CHECK_OUTPUT(at("rgb16.png"), &tiff_pictures[tiff_case_index("t-rgb16")], &k, &opt, 1);
    /* ... to JPEG, in capitals: 8 bits. */
    ASSERT_EQ(cli(tin("t-rgb16"), at("rgb16.JPEG"), (char *)NULL), 0);
    ASSERT_EQ(read_output(at("rgb16.JPEG"), &pic), 0);
    head = read_all(at("rgb16.JPEG"), &len);
    ASSERT(len > 8 && image_io_sniff(head, 8) == IMAGE_IO_JPEG);
    free(head);
    ASSERT(pic.image.type == OCLCONV_U8 && pic.image.channels == 3 && pic.image.width == W &&
           pic.image.height == H);
    png_io_free(&pic);
    /* Float to PNG: 16 bits, 0..1 clamped. */
    ASSERT_EQ(cli(tin("t-grayf"), at("grayf.png"), (char *)NULL), 0);
    ASSERT_EQ(read_output(at("grayf.png"), &pic), 0);
    ASSERT(pic.image.type == OCLCONV_U16 && pic.image.channels == 1);
    if (pic.image.type == OCLCONV_U16) {
        ref_result ref;
        long bad = 0;
        if (ref_convolve(&tiff_pictures[tiff_case_index("t-grayf")].decoded, k.w, k.h,
                         k.weights, &opt, &ref))
            exit(TEST_HARD_ERROR);
        for (size_t i = 0; i < (size_t)W * H; i++) {
            double v = ref.value[i] < 0 ? 0 : ref.value[i] > 1 ? 1 : ref.value[i];
            bad += fabs(((uint16_t *)pic.image.data)[i] - v * 65535) > 1.01;
        }
        ASSERT_EQ(bad, 0);
        ref_result_free(&ref);
    }
    png_io_free(&pic);
    /* A JPEG named .png and a TIFF named .jpg read by their content. */
    unsigned char *jpeg = read_all(at("in/j-rgb.jpg"), &len);
    write_all(at("in/disguised.png"), jpeg, len);
    free(jpeg);
    unsigned char *tiff = read_all(tin("t-rgba16"), &len);
    write_all(at("in/disguised.jpg"), tiff, len);
    free(tiff);
    ASSERT_EQ(cli(at("in/disguised.png"), at("disguised-j.png"), (char *)NULL), 0);
    CHECK_OUTPUT(at("disguised-j.png"), &jpeg_pictures[1], &k, &opt, 1);
    ASSERT_EQ(cli(at("in/disguised.jpg"), at("disguised-t.tiff"), (char *)NULL), 0);
    CHECK_OUTPUT(at("disguised-t.tiff"), &tiff_pictures[tiff_case_index("t-rgba16")], &k, &opt,
                 1);
    /* A JPEG to TIFF: the same pixels as to PNG. */
    ASSERT_EQ(cli(at("in/j-gray.jpg"), at("j-gray.tif"), (char *)NULL), 0);
    CHECK_OUTPUT(at("j-gray.tif"), &jpeg_pictures[0], &k, &opt, 1);
    free(k.weights);
}

/* EXIF orientation is applied on reading: the output stands upright, and
 * carries no orientation of its own. */
static void test_exif_orientation(void)
{
    uint64_t rng = 77;
    oclconv_image img = image_random(&rng, 24, 16, 3, OCLCONV_U8, 0);
    for (int o = 2; o <= 8; o++) {
        write_jpeg(at("in/o%d.jpg", o), &img, 95, o, NULL, 0);
        picture stored = decode_jpeg(at("in/o%d.jpg", o));
        png_io_picture out;
        ASSERT_EQ(cli("-f", "identity", at("in/o%d.jpg", o), at("o%d.png", o), (char *)NULL), 0);
        ASSERT_EQ(read_output(at("o%d.png", o), &out), 0);
        const int w = stored.decoded.width, h = stored.decoded.height;
        const int ow = o >= 5 ? h : w, oh = o >= 5 ? w : h;
        ASSERT_EQ(out.image.width, ow);
        ASSERT_EQ(out.image.height, oh);
        long bad = 0;
        for (int y = 0; y < oh && out.image.width == ow && out.image.height == oh; y++)
            for (int x = 0; x < ow; x++) {
                /* Where each displayed pixel is stored, by EXIF's definitions. */
                static const int map[9][4] = {{0}, {0}, {-1, 0, 0, 1}, {-1, 0, 0, -1},
                                              {1, 0, 0, -1}, {0, 1, 1, 0}, {0, 1, -1, 0},
                                              {0, -1, -1, 0}, {0, -1, 1, 0}};
                const int *m = map[o];
                int sx = m[0] ? (m[0] > 0 ? x : w - 1 - x) : (m[1] > 0 ? y : w - 1 - y);
                int sy = m[2] ? (m[2] > 0 ? x : h - 1 - x) : (m[3] > 0 ? y : h - 1 - y);
                bad += memcmp((uint8_t *)out.image.data + ((size_t)y * ow + x) * 3,
                              (uint8_t *)stored.decoded.data + ((size_t)sy * w + sx) * 3, 3) != 0;
            }
        ASSERT_EQ(bad, 0);
        png_io_free(&out);
        free(stored.decoded.data);
    }
    image_free(&img);
}

/* An ICC profile goes through JPEG to TIFF and TIFF to JPEG. */
static void test_icc_profiles(void)
{
    unsigned char icc[3000];
    png_io_picture pic;
    for (size_t i = 0; i < sizeof icc; i++)
        icc[i] = (unsigned char)(i * 7 + 3);
    write_jpeg(at("in/icc.jpg"), &jpeg_pictures[1].decoded, 90, 0, icc, sizeof icc);
    ASSERT_EQ(cli(at("in/icc.jpg"), at("icc.tif"), (char *)NULL), 0);
    ASSERT_EQ(read_output(at("icc.tif"), &pic), 0);
    ASSERT(pic.iccp_size == sizeof icc && pic.iccp && memcmp(pic.iccp, icc, sizeof icc) == 0);
    png_io_free(&pic);
    ASSERT_EQ(cli(at("icc.tif"), at("icc.jpg"), (char *)NULL), 0);
    ASSERT_EQ(read_output(at("icc.jpg"), &pic), 0);
    ASSERT(pic.iccp_size == sizeof icc && pic.iccp && memcmp(pic.iccp, icc, sizeof icc) == 0);
    png_io_free(&pic);
}

/* A TIFF through a pipe (which cannot seek) on standard input. */
static void test_piped_tiff(void)
{
    char fifo[1200];
    size_t len;
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_gaussian(2.0, 2.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);
    snprintf(fifo, sizeof fifo, "%s", at("pipe.tif"));
    ASSERT(mkfifo(fifo, 0644) == 0);
    unsigned char *tiff = read_all(tin("t-rgbaf"), &len);
    pid_t writer = fork();
    if (writer == 0) {
        int fd = open(fifo, O_WRONLY);
        _exit(fd >= 0 && write(fd, tiff, len) == (ssize_t)len ? 0 : 1);
    }
    cli_stdin = fifo;
    ASSERT_EQ(cli("-", at("piped.tif"), (char *)NULL), 0);
    cli_stdin = NULL;
    int status;
    ASSERT(waitpid(writer, &status, 0) == writer && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0);
    CHECK_OUTPUT(at("piped.tif"), &tiff_pictures[tiff_case_index("t-rgbaf")], &k, &opt, 1);
    free(tiff);
    free(k.weights);
}

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

/* A little-endian 8-bit gray TIFF of one strip, by hand: its pixels follow
 * the IFD unless `strip_at` says elsewhere; `count` (0: the true one) is
 * the IFD's entry count. */
static void write_raw_tiff(const char *path, uint32_t w, uint32_t h, unsigned spp,
                           unsigned compression, uint32_t strip_at, unsigned count)
{
    static const unsigned tags[9] = {256, 257, 258, 259, 262, 273, 277, 278, 279};
    const size_t ifd_end = 8 + 2 + 9 * 12 + 4, pixels = (size_t)w * h * spp;
    const size_t n = ifd_end + (pixels < 4096 ? pixels : 4096);
    unsigned char *b = calloc(1, n);
    if (!b)
        exit(TEST_HARD_ERROR);
    memcpy(b, "II*\0", 4);
    put32(b + 4, 8);
    put16(b + 8, count ? count : 9);
    const uint32_t values[9] = {w, h, 8, compression, 1, strip_at ? strip_at : (uint32_t)ifd_end,
                                spp, h, (uint32_t)pixels};
    for (int i = 0; i < 9; i++) {
        unsigned char *e = b + 10 + 12 * i;
        const int is_long = tags[i] == 256 || tags[i] == 257 || tags[i] >= 273;
        put16(e, tags[i]);
        put16(e + 2, is_long && tags[i] != 277 ? 4 : 3);
        put32(e + 4, 1);
        put32(e + 8, values[i]);
    }
    write_all(path, b, n);
    free(b);
}

/* Hostile and broken files: one line naming the file, status 1, nothing
 * written. */
static void test_hostile_files(void)
{
    size_t len;
    int hidden;
    unsigned char *jpeg = read_all(at("in/j-rgb.jpg"), &len);
    make_dir(at("fail"));
    make_dir(at("bad"));
    write_all(at("bad/half.jpg"), jpeg, len / 2);
    ASSERT_FAILS(cli(at("bad/half.jpg"), at("fail/x.png"), (char *)NULL), 1, "half.jpg",
                 "truncated");
    write_all(at("bad/no-eoi.jpg"), jpeg, len - 2);
    ASSERT_FAILS(cli(at("bad/no-eoi.jpg"), at("fail/x.jpg"), (char *)NULL), 1, "no-eoi.jpg",
                 "truncated");
    for (size_t i = 2; i + 9 < len; i++)
        if (jpeg[i] == 0xff && jpeg[i + 1] == 0xc0) { /* SOF0: height, width */
            jpeg[i + 5] = jpeg[i + 7] = 0xff;
            jpeg[i + 6] = jpeg[i + 8] = 0xdc;
            break;
        }
    write_all(at("bad/huge.jpg"), jpeg, len);
    ASSERT_FAILS(cli(at("bad/huge.jpg"), at("fail/x.tif"), (char *)NULL), 1, "huge.jpg",
                 "65500x65500 pixels of 3 bytes is over the 1024 MiB limit");
    free(jpeg);

    write_raw_tiff(at("bad/fine.tif"), 40, 30, 1, 1, 0, 0); /* the builder itself works */
    ASSERT_EQ(cli(at("bad/fine.tif"), at("fine.png"), (char *)NULL), 0);
    write_raw_tiff(at("bad/strip.tif"), 40, 30, 1, 1, 0x7fffff00u, 0);
    ASSERT_FAILS(cli(at("bad/strip.tif"), at("fail/x.tif"), (char *)NULL), 1, "strip.tif",
                 "TIFF error");
    write_raw_tiff(at("bad/ifd.tif"), 40, 30, 1, 1, 0, 0xffff);
    ASSERT_FAILS(cli(at("bad/ifd.tif"), at("fail/x.tif"), (char *)NULL), 1, "ifd.tif",
                 "TIFF error");
    write_raw_tiff(at("bad/codec.tif"), 40, 30, 1, 12345, 0, 0);
    ASSERT_FAILS(cli(at("bad/codec.tif"), at("fail/x.png"), (char *)NULL), 1, "codec.tif",
                 "unsupported TIFF compression 12345");
    write_raw_tiff(at("bad/wide.tif"), 70000, 1, 1, 1, 0, 0);
    ASSERT_FAILS(cli(at("bad/wide.tif"), at("fail/x.png"), (char *)NULL), 1, "wide.tif",
                 "too large");
    write_raw_tiff(at("bad/big.tif"), 60000, 60000, 1, 1, 0, 0);
    ASSERT_FAILS(cli(at("bad/big.tif"), at("fail/x.png"), (char *)NULL), 1, "big.tif",
                 "over the 1024 MiB limit");
    write_all(at("bad/header.tif"), "II*\0\xff\xff\xff\x7f", 8);
    ASSERT_FAILS(cli(at("bad/header.tif"), at("fail/x.png"), (char *)NULL), 1, "header.tif",
                 "TIFF");
    /* No alpha in JPEG: refused, not flattened. */
    ASSERT_FAILS(cli(tin("t-rgba8"), at("fail/x.jpg"), (char *)NULL), 1, "x.jpg",
                 "JPEG has no alpha channel");
    ASSERT_EQ(count_entries(at("fail"), &hidden), 0);
    ASSERT_EQ(hidden, 0);

    ASSERT_FAILS(cli("--quality", "0", at("in/j-rgb.jpg"), at("fail/x.jpg"), (char *)NULL), 2,
                 "--quality", "from 1 to 100");
    ASSERT_FAILS(cli("--quality=101", at("in/j-rgb.jpg"), at("fail/x.jpg"), (char *)NULL), 2,
                 "--quality", "from 1 to 100");
    ASSERT_FAILS(cli("--quality", "9x", at("in/j-rgb.jpg"), at("fail/x.jpg"), (char *)NULL), 2,
                 "--quality", "from 1 to 100");
}

int main(void)
{
    int rc = cli_harness_init("cli_formats");
    if (rc)
        return rc;
    cli_formats_make();
    test_tiff_every_kind();
    test_tiff_straight_and_float_delta();
    test_jpeg_inputs();
    test_formats_by_name_and_content();
    test_exif_orientation();
    test_icc_profiles();
    test_piped_tiff();
    test_hostile_files();
    cli_formats_free();
    if (!test_failures)
        remove_tree(tmp);
    return test_exit();
}
