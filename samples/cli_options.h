/*
 * The command's options: what the command line says, checked, and the
 * filter it asks for.  Everything here reports a usage error itself, as one
 * line on stderr, and returns -1; the caller exits with EXIT_USAGE.
 */
#ifndef OCLCONV_CLI_OPTIONS_H
#define OCLCONV_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "oclconv.h"
#include "image_io.h"

/* PNG outputs' compression unless --png-level and --png-filter say
 * otherwise.  On three 4000x3000 RGB photographs, Gaussian sigma 2 on
 * PoCL, the whole command: level 4 with the up filter 3.4-3.6 s and 23.3
 * MB, libpng's own (6, every filter) 9.8-11.8 s and 22.0 MB; level 3 was
 * slower and larger than 4, level 2 2.6-3.5 s and 26.7 MB, 6 with up
 * 10.1 s and 21.5 MB, no filter twice the size. */
#define CLI_PNG_LEVEL 4
#define CLI_PNG_FILTER PNG_IO_FILTER_UP

#define EXIT_FILE_FAILED 1
#define EXIT_USAGE 2

/* The name every message starts with. */
extern const char *const cli_program;

typedef enum {
    FILTER_GAUSSIAN,
    FILTER_BOX,
    FILTER_SHARPEN,
    FILTER_EMBOSS,
    FILTER_LAPLACIAN,
    FILTER_SOBEL_X,
    FILTER_SOBEL_Y,
    FILTER_IDENTITY,
    FILTER_CUSTOM
} filter_kind;

/* By filter_kind: "gaussian", ..., "custom". */
extern const char *const cli_filter_names[];

typedef struct {
    filter_kind filter;
    int filter_given;
    int radius_given, rx, ry;
    double sigma_x, sigma_y;
    int sigma_given;
    double amount;
    int amount_given;
    const char *kernel, *kernel_file;
    oclconv_options conv; /* border, border value, method, scale, delta */
    int delta_given;
    oclconv_calibration calibrate; /* --calibrate; 0: the library's default */
    const char *device;
    const char *out_dir;
    int premultiply, verbose, list_devices, help, version;
    png_io_settings png;  /* how PNG outputs are compressed */
    int quality;          /* JPEG outputs' quality, 1-100 */
    char **operands;      /* from malloc; the strings are argv's */
    int n_operands;
} cli_options;

/* Fills *o from the command line.  o->operands is allocated even on failure;
 * free it.  @return 0, or -1 after saying why. */
int cli_parse_args(int argc, char **argv, cli_options *o);

/* The --help text. */
void cli_usage(FILE *out);

/* "oclconv: " and the message on stderr, one line.  @return -1. */
__attribute__((format(printf, 1, 2)))
int cli_usage_error(const char *fmt, ...);

/* The library's detail on one line, for an error that must fit on one: line
 * breaks become "; " (a space after a colon), and what does not fit in
 * `size`, a long build log say, is cut with "...".  @return out. */
const char *cli_one_line(const char *detail, char *out, size_t size);

/* The filter the options name.  @return 0, or -1 after saying why. */
int cli_make_filter(const cli_options *o, oclconv_filter **f);

#endif
