/*
 * One run of the command: the filter made once, the device opened at the
 * first file, then each input filtered and written in turn while the next
 * one is read (cli_read_ahead.h); a failing file does not stop the others.
 */
#ifndef OCLCONV_CLI_RUN_H
#define OCLCONV_CLI_RUN_H

#include "cli_options.h"

/* @return the exit status: 0 every file written, EXIT_FILE_FAILED when one
 *         failed or no device could be used, EXIT_USAGE for a filter the
 *         options cannot make. */
int cli_run(const cli_options *o);

#endif
