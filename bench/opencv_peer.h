/*
 * The OpenCV side of the bench: the same operations as oclconv, on the CPU,
 * on the caller's pixels (no copies).  Implemented in opencv_peer.cpp, which
 * is built only when pkg-config finds opencv4 (then OCLCONV_BENCH_OPENCV is
 * defined).  Every function returns 0, or -1 with the reason in
 * ocvpeer_errmsg(); none throws.
 */
#ifndef OCLCONV_BENCH_OPENCV_PEER_H
#define OCLCONV_BENCH_OPENCV_PEER_H

#include "oclconv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "OpenCV 4.6.0, 2 threads (pthreads)". */
const char *ocvpeer_describe(void);
const char *ocvpeer_errmsg(void);

/* All use BORDER_REPLICATE and write the source's depth (u8 or f32). */
int ocvpeer_gaussian(const oclconv_image *src, oclconv_image *dst, int ksize, double sigma);
int ocvpeer_filter2d(const oclconv_image *src, oclconv_image *dst, const float *kernel, int kw,
                     int kh);
int ocvpeer_sep_filter2d(const oclconv_image *src, oclconv_image *dst, const float *row,
                         int nrow, const float *col, int ncol);
int ocvpeer_blur(const oclconv_image *src, oclconv_image *dst, int ksize);

#ifdef __cplusplus
}
#endif
#endif
