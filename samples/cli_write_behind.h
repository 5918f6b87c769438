/*
 * The command's outputs, encoded and written one behind: a thread writes
 * output i while the caller filters input i + 1 (and the read-ahead thread
 * decodes input i + 2), so that on a 2-core machine the encoding of one
 * photograph overlaps the filtering and decoding of the next.  One write
 * is in flight at a time; nothing here prints: the caller takes each
 * result back in turn and reports it.
 */
#ifndef OCLCONV_CLI_WRITE_BEHIND_H
#define OCLCONV_CLI_WRITE_BEHIND_H

#include "png_io.h"

typedef struct write_behind write_behind;

/* Called on the thread when output i is written or has failed. */
typedef void (*write_behind_done)(void *arg, int i);

/* Starts the thread.  @return NULL when no thread can be had: the caller
 * writes in place. */
write_behind *write_behind_start(write_behind_done done, void *arg);
/* Gives the thread picture i to write as the file `out` (see
 * output_file_write()), once the write before has been taken back: *pic
 * is the thread's from now on, freed when written. */
void write_behind_put(write_behind *wb, int i, const char *out, png_io_picture *pic);
/* Waits for the write put last: 0, or -1 with the reason in `why`. */
int write_behind_take(write_behind *wb, char *why, size_t why_size);
/* Stops the thread, after the write in flight. */
void write_behind_stop(write_behind *wb);

#endif
