/* Helpers the test programs share: random images and filters, contexts. */
#ifndef OCLCONV_TEST_UTIL_H
#define OCLCONV_TEST_UTIL_H

#include "oclconv.h"
#include "reference.h"

#include <stdint.h>

/* A small, seeded generator so failures reproduce. */
uint32_t rng_next(uint64_t *state);
double rng_uniform(uint64_t *state, double lo, double hi);

/* The bytes of one value of type t. */
size_t value_size(oclconv_type t);

/* An image with random values over the type's range (F32: -100..300), a row
 * stride of `extra` bytes beyond packed (rounded to the value size), and
 * padding bytes set to a canary.  Free with image_free(). */
oclconv_image image_random(uint64_t *rng, int width, int height, int channels, oclconv_type type,
                           size_t extra);
/* An image of the same shape as `like` with type `type`, filled with a canary. */
oclconv_image image_like(const oclconv_image *like, oclconv_type type, size_t extra);
void image_free(oclconv_image *img);
/* The bytes an image's rows take, padding included (stride 0: packed). */
size_t image_bytes(const oclconv_image *img);
/* Whether the padding bytes after each row still hold the canary. */
int image_padding_intact(const oclconv_image *img);

/* The context the tests run on: OCLCONV_DEVICE or the default.  Exits with
 * the hard-error status when no device can be had. */
oclconv_context *test_context(void);
/* The kernel shapes of the other device type than ctx's, as OCLCONV_TUNE
 * names them: "gpu" on a CPU device, else "cpu". */
const char *other_shapes(oclconv_context *ctx);
/* Plans the calls that follow in the other device type's kernel shapes
 * (other != 0, OCLCONV_TUNE), or again in ctx's own.  No user runs GPU
 * shapes on a CPU device: what they are checked for there is their logic,
 * and unoptimised (OCLCONV_BUILD_OPTIONS=-cl-opt-disable) they build in
 * less than half the time (test_paths on PoCL 3.1: 372 CPU-s to 158).
 * Returns the shapes' name. */
const char *use_shapes(oclconv_context *ctx, int other);
/* Whether ctx's calls are planned in GPU kernel shapes now: OCLCONV_TUNE's
 * choice where use_shapes() made one, else the device's type. */
int gpu_shapes(oclconv_context *ctx);

/* For the programs that check the library's host side (the API, regions,
 * devices, batches, threads, the command, the Python package): the
 * kernels they call build unoptimised (OCLCONV_BUILD_OPTIONS set to
 * -cl-opt-disable where it is unset), the same sources with the same
 * arithmetic in a quarter of the time on PoCL 3.1 (test_regions: 34 CPU-s
 * to 8).  The optimised builds users run are the path tests' subject
 * (test_paths, test_mixed, test_fft, test_edges, test_runs, test_calibrate,
 * test_cl_buffers). */
void unoptimised_kernels(void);

/* The build folder: $OCLCONV_BUILD, or build where unset. */
const char *test_build_dir(void);
/* Writes test_build_dir()/tests/NAME into path and creates that folder
 * (and tests/ above it).  Returns 0, or -1 when the path does not fit or a
 * folder cannot be made. */
int test_scratch_dir(const char *name, char *path, size_t size);

/* Copies cl/NAME.cl (the tests run from the project's root) into dir;
 * returns 0 or -1. */
int test_copy_kernel_source(const char *dir, const char *name);
/* Fills dir, for OCLCONV_KERNEL_DIR, with builtins.cl, common.cl, chunks.cl and a
 * buffer.cl that does not compile (it names undefined_name); 0 or -1. */
int test_broken_sources(const char *dir);

const char *type_name(oclconv_type t);
/* The default options with a border and its value. */
oclconv_options border_options(oclconv_border border, float value);
const char *border_name(oclconv_border b);

#endif
