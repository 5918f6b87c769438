/*
 * The command's inputs, read and decoded one ahead: a thread decodes input
 * i + 1 while the caller filters and writes input i, so that on a 2-core
 * machine the decoding of one photograph overlaps the encoding of the
 * one before.  Results come back in the inputs' order and nothing here
 * prints: the caller reports each file's failure in turn.
 */
#ifndef OCLCONV_CLI_READ_AHEAD_H
#define OCLCONV_CLI_READ_AHEAD_H

#include "png_io.h"

typedef struct {
    int status;          /* 0: pic holds the picture; -1: why says what failed */
    png_io_picture pic;
    char why[600];
} read_result;

/* Reads input `in` (a path, or "-" for standard input) for output `out`:
 * refuses a terminal and an input that is the output file itself. */
void read_input(const char *in, const char *out, read_result *res);

typedef struct read_ahead read_ahead;

/* Starts the thread on ins[0..n-1], each for outs[i]; those with skip[i]
 * set are not read.  An input that names an earlier input's output waits
 * for read_ahead_written() of that one, as it would read in turn.
 * @return NULL when no thread can be had: the caller reads in place. */
read_ahead *read_ahead_start(char *const *ins, char *const *outs, const int *skip, int n);
/* Waits for input i (asked in order, skipped ones not) and moves its
 * result into *res. */
void read_ahead_take(read_ahead *ra, int i, read_result *res);
/* Input i is done: its output is written or will not be. */
void read_ahead_written(read_ahead *ra, int i);
/* Stops the thread and frees what it read that was not taken. */
void read_ahead_stop(read_ahead *ra);

#endif
