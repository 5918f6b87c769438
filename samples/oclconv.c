/*
 * oclconv — filter PNG images by convolution on an OpenCL device.
 *
 *   oclconv [options] INPUT.png OUTPUT.png
 *   oclconv [options] -o DIR INPUT.png...
 *
 * The parts: cli_options.c (the command line and the filter it names),
 * cli_run.c (one run: each file read, filtered and written in turn),
 * output_file.c (temporary files, renames and signals), png_io.c (PNG files
 * to and from images), kernel_text.c (weights written as text).
 * Exit status: 0 every file written, 1 a file failed, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "cli_run.h"
#include "oclconv.h"
#include "jpeg_io.h"
#include "png_io.h"
#include "tiff_io.h"

static int list_devices(void)
{
    size_t size = 1 << 16;
    char *buf = malloc(size);
    oclconv_status st;
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", cli_program);
        return EXIT_FILE_FAILED;
    }
    st = oclconv_list_devices(buf, size);
    if (st == OCLCONV_OK) {
        fputs(buf, stdout);
        if (*buf && buf[strlen(buf) - 1] != '\n')
            fputc('\n', stdout);
    } else {
        fprintf(stderr, "%s: cannot list devices: %s: %s\n", cli_program, oclconv_strerror(st),
                cli_one_line(oclconv_errmsg(NULL), buf, size));
    }
    free(buf);
    return st == OCLCONV_OK ? 0 : EXIT_FILE_FAILED;
}

static void print_version(void)
{
    int lib = oclconv_version_number();
    printf("oclconv %d.%d.%d (liboclconv %d.%d.%d, libpng %s, %s, libtiff %s)\n",
           OCLCONV_VERSION_MAJOR, OCLCONV_VERSION_MINOR, OCLCONV_VERSION_PATCH, lib / 10000,
           lib / 100 % 100, lib % 100, png_io_libpng_version(), jpeg_io_version(),
           tiff_io_version());
}

int main(int argc, char **argv)
{
    cli_options o;
    int rc;
    if (cli_parse_args(argc, argv, &o)) {
        rc = EXIT_USAGE;
    } else if (o.help) {
        cli_usage(stdout);
        rc = 0;
    } else if (o.version) {
        print_version();
        rc = 0;
    } else if (o.list_devices) {
        rc = list_devices();
    } else {
        rc = cli_run(&o);
    }
    free(o.operands);
    return rc;
}
