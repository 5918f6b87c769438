/*
 * What the oclconv command's test programs share: running the command and
 * capturing what it prints (cli_harness.c), test pictures of every PNG
 * colour type and bit depth with what the command must make of them
 * (cli_pictures.c), and JPEG and TIFF ones (cli_formats.c).
 *
 * The command is $OCLCONV_CLI, else $OCLCONV_BUILD/oclconv, else
 * build/oclconv; scratch files go to $OCLCONV_BUILD/tests/<name>.  Nothing
 * here asserts: test.h counts failures per program, so the checks return
 * a reason and the programs assert (CHECK_OUTPUT, ASSERT_FAILS).
 */
#ifndef OCLCONV_CLI_HARNESS_H
#define OCLCONV_CLI_HARNESS_H

#include <png.h>
#include <stdint.h>
#include <sys/types.h>

#include "oclconv.h"
#include "png_io.h"
#include "test.h"

enum { W = 23, H = 17 }; /* odd sizes, smaller than some filters are wide */

/* ====== Files and processes ========================================== */

extern char cli_path[1024];              /* the command */
extern char tmp[1024];                   /* the scratch folder */
extern char cli_out[1 << 16], cli_err[1 << 16]; /* the last run's stdout, stderr */

/* Finds the command, checks that a device is there, and makes the scratch
 * folder `name` empty.  @return 0, or TEST_HARD_ERROR after saying why. */
int cli_harness_init(const char *name);

/* A path under the scratch folder, in one of 32 rotating buffers: enough
 * for the arguments of one command. */
__attribute__((format(printf, 1, 2)))
const char *at(const char *fmt, ...);

_Noreturn void hard_error(const char *what, const char *path);
void remove_tree(const char *path);
void make_dir(const char *path);
/* Names in a folder; *hidden counts those starting with '.' (temporary
 * files the command failed to remove). */
int count_entries(const char *dir, int *hidden);
int exists(const char *path);
unsigned char *read_all(const char *path, size_t *len);
void write_all(const char *path, const void *data, size_t len);

enum { MAX_ARGS = 64 };

/* Runs the command with `n` arguments; its stdout and stderr land in cli_out
 * and cli_err.  @return its exit status, or 128 + the signal that ended it. */
int cli_argv(int n, const char *const *args);
/* Standard input of the command, a path; NULL: the test's own. */
extern const char *cli_stdin;
/* Starts the command without waiting for it: stdout to the scratch folder,
 * stderr into a pipe whose read end comes back in *err_fd; the signal
 * `ignored` (0: none) comes inherited as ignored, as under nohup.
 * @return its process id, for cli_wait(). */
pid_t cli_start(int n, const char *const *args, int ignored, int *err_fd);
/* @return the exit status of a command cli_start() started, or 128 + the
 * signal that ended it. */
int cli_wait(pid_t pid);
/* cli_argv() with the arguments listed, NULL last. */
int cli(const char *first, ...);

/* The command's own lines on stderr: progress ("[i/n] ...") and messages
 * ("oclconv: ...").  The OpenCL runtime may print lines of its own there
 * (PoCL compiling under a sanitizer, say); they are not the command's. */
int count_lines(const char *s);

/* A failure: the status, one line on stderr, naming `name`. */
#define ASSERT_FAILS(rc, status, name, reason)                                 \
    do {                                                                       \
        ASSERT_EQ(rc, status);                                                 \
        ASSERT_CONTAINS(cli_err, name);                                        \
        ASSERT_CONTAINS(cli_err, reason);                                      \
        ASSERT_EQ(count_lines(cli_err), 1);                                    \
    } while (0)

/* ====== Test pictures ================================================ */

typedef struct {
    const char *name;
    int colour_type; /* PNG_COLOR_TYPE_* */
    int depth;       /* bits per sample in the file */
    int trns;        /* with a tRNS chunk */
    int interlace;
} png_case;

/* A test picture: the samples as the file stores them, and the picture a
 * reader must decode from it (the expansion written out independently). */
typedef struct {
    int samples;        /* per pixel in the file */
    uint16_t *stored;   /* W * H * samples; palette: the index */
    png_color palette[256];
    int n_palette;
    png_byte trans_alpha[256];
    int n_trans;
    png_color_16 trans_colour;
    oclconv_image decoded;
} picture;

typedef struct {
    int w, h;
    double *weights;
} weights;

enum { N_CASES = 20 };
extern const png_case cases[N_CASES];
extern picture pictures[N_CASES];

/* Makes every picture and writes it as in/<case name>.png. */
void cli_pictures_make(void);
void cli_pictures_free(void);
/* The index in cases[] of the case named `name`. */
int case_index(const char *name);
/* The path of that case's input file. */
const char *input(const char *name);

/* The weights of the library filter that the call which returned `st` made
 * in *made; the filter is then destroyed.  (A pointer to the pointer: the
 * call and the read of *made are then sequenced.) */
weights weights_of(oclconv_status st, oclconv_filter **made);

/* Reads an output of the command and compares it with the CPU reference
 * for picture p filtered with k and opt: straight convolution, or with
 * alpha premultiplied as the command does by default.
 * @return 0, or -1 with the first difference in `why`. */
int output_differs(const char *path, const picture *p, const weights *k,
                   const oclconv_options *opt, int premultiplied, char *why, size_t why_size);

/* ====== JPEG and TIFF pictures (cli_formats.c) ======================= */

enum { TIFF_SEPARATE = 1, TIFF_TILED = 2, TIFF_DEFLATE = 4, TIFF_MINISWHITE = 8 };
typedef struct {
    const char *name;
    int channels;      /* the last of 2 or 4 is unassociated alpha */
    oclconv_type type; /* 8, 16 bits or 32-bit float */
    int flags;         /* TIFF_*: how the file stores them */
} tiff_case;

enum { N_TIFF_CASES = 13 };
extern const tiff_case tiff_cases[N_TIFF_CASES];
/* Their pictures (only `decoded` is set): in/<name>.tif. */
extern picture tiff_pictures[N_TIFF_CASES];
/* 64x48 photographs, gray and RGB, written with libjpeg at quality 90 as
 * in/j-gray.jpg and in/j-rgb.jpg, and decoded back with libjpeg. */
extern picture jpeg_pictures[2];

/* Writes every TIFF and JPEG picture into in/. */
void cli_formats_make(void);
void cli_formats_free(void);
int tiff_case_index(const char *name);
/* img as a TIFF, stored as `flags` says. */
void write_tiff(const char *path, const oclconv_image *img, int flags);
/* img (U8, 1 or 3 channels) as a JPEG, with an EXIF orientation (0: no
 * EXIF) and an ICC profile (NULL: none). */
void write_jpeg(const char *path, const oclconv_image *img, int quality, int orientation,
                const unsigned char *icc, size_t icc_size);
/* A JPEG decoded by libjpeg with its defaults: no EXIF orientation. */
picture decode_jpeg(const char *path);
/* An output read with the command's reader, whatever its format.
 * @return 0, or -1 after saying why on stderr. */
int read_output(const char *path, png_io_picture *pic);

#define CHECK_OUTPUT(path, p, k, opt, premultiplied)                              \
    do {                                                                         \
        char why_[600];                                                          \
        if (output_differs(path, p, k, opt, premultiplied, why_, sizeof why_))   \
            TEST_FAIL_("%s", why_);                                              \
    } while (0)

#endif
