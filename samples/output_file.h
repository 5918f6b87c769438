/*
 * Where the command's outputs go.  A new or regular file is written to a
 * temporary file beside it and renamed into place, so a failed or
 * interrupted run never leaves a half-written image; a replaced file keeps
 * its permissions (and owner, where the process may give it).  A symbolic
 * link is followed and its target replaced.  A character device or a FIFO
 * is written into; "-" is standard output; terminals, block devices and
 * sockets are refused.  SIGINT, SIGTERM and SIGHUP remove the temporary
 * file being written before the command dies of them; those inherited
 * ignored (nohup) stay ignored, and blocked, so that no handler a library
 * installs over SIG_IGN (an OpenCL compiler's) ever runs for them.
 */
#ifndef OCLCONV_OUTPUT_FILE_H
#define OCLCONV_OUTPUT_FILE_H

#include <stddef.h>

#include "image_io.h"

/* Reads the umask for new files, installs the signal handlers and takes
 * the compression and quality every file gets; once, before the first
 * output_file_write(). */
void output_file_init(const image_io_settings *set);

/* Writes pic as the file `out`, in the format its extension names (PNG
 * for standard output and any other name; see image_io.h).
 * @return 0, or -1 with a one-line reason in `why` (nothing is left behind). */
int output_file_write(const char *out, const png_io_picture *pic, char *why, size_t why_size);

/* Blocks the handled signals in the calling thread, a helper of the main
 * one's (reading ahead, writing behind): they go to the main thread. */
void output_file_helper_thread(void);

/* The part of `path` after its last '/'. */
const char *output_base_name(const char *path);

/* "dir/name" (one '/' between them) from malloc, or NULL when out of memory. */
char *output_join_path(const char *dir, const char *name);

#endif
