/* Shared by test_paths and test_mixed: what their cases draw from, one case
 * checked against the reference, and sets of cases in child processes. */
#ifndef OCLCONV_PATH_CHECK_H
#define OCLCONV_PATH_CHECK_H

#include "util.h"

#include <stdint.h>

/* Source and destination types a case filters between. */
typedef struct {
    oclconv_type src, dst;
} type_pair;
enum { TYPE_PAIRS = 6, SIZES = 7, SHAPES = 5 };
extern const type_pair type_pairs[TYPE_PAIRS];
/* Image sizes that are multiples of nothing, some thinner than a filter. */
extern const int sizes[SIZES][2];
/* Filter shapes, width x height. */
extern const int shapes[SHAPES][2];

/* A filter of the kind `method` runs: any 2-D filter, a separable one
 * (given as factors, or as a 2-D outer product to be detected), a box. */
oclconv_filter *filter_for(oclconv_method method, uint64_t *rng, int fw, int fh);
/* Options of a forced path, a border and its value. */
oclconv_options options_for(oclconv_method method, oclconv_border border, float value);

/* Filters `src` into `dst` and compares `dst` with the reference's result
 * for `ref_src` (src's values as they were, where dst is src itself);
 * returns the number of mismatching values, reported under `label`. */
long apply_and_compare(oclconv_context *ctx, const oclconv_image *src, oclconv_image *dst,
                       const oclconv_image *ref_src, const oclconv_filter *f,
                       const oclconv_options *opt, const char *label);
/* Filters src into a fresh destination and compares with the reference;
 * also that the destination's row padding is untouched and the forced
 * path ran.  Returns the number of mismatching values. */
long check_one(oclconv_context *ctx, const oclconv_image *src, oclconv_type dst_type,
               size_t dst_extra, const oclconv_filter *f, const oclconv_options *opt,
               const char *label);
/* src and dst the same memory, 1 to 4 channels: the result is as if they
 * were not. */
void in_place(oclconv_context *ctx, oclconv_method method, uint64_t *rng);

/* A case of each size (and one of w x h where w > 0), src of cn channels of
 * tp's source type, checked into tp's destination type; returns the cases. */
long check_sizes(oclconv_context *ctx, uint64_t *rng, const char *name, const type_pair *tp,
                 int cn, const oclconv_filter *f, const oclconv_options *opt, int w, int h);
/* In parts, a 67x131 u8 image of 1 to 4 channels under each of the four
 * borders in turn: bands of rows (OCLCONV_BANDS) and strips under a 64 KB
 * cap, alternately. */
void in_parts(oclconv_context *ctx, oclconv_method method, uint64_t *rng, const oclconv_filter *f,
              const oclconv_border borders[4]);

/* A set of cases: `kind` tells the body which (a path, or a part of the
 * mixed cases), in the device's own kernel shapes or in the other device
 * type's (OCLCONV_TUNE); `seed` picks its random stream. */
typedef struct {
    int other_shapes;
    int kind;
    int seed;
    const char *name;
} case_set;
/* Runs one set's cases in ctx; returns the failures its file counted. */
typedef int (*case_body)(oclconv_context *ctx, uint64_t *rng, int kind, int own_shapes);
/* Runs the n sets, each in a child process, as many at once as there are
 * processors, and prints their output in order; returns the exit status. */
int run_case_sets(const case_set *sets, int n, case_body body);

#endif
