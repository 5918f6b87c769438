/* Shared by the two files of the _oclconv extension module. */
#ifndef OCLCONV_PY_MODULE_H
#define OCLCONV_PY_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <oclconv.h>

typedef struct {
    PyObject_HEAD
    oclconv_filter *f;
    PyObject *weakrefs;
} FilterObject;

typedef struct {
    PyObject_HEAD
    oclconv_context *ctx; /* NULL once closed */
    PyThread_type_lock lock;
    PyObject *weakrefs;
} ContextObject;

extern PyTypeObject pyoclconv_FilterType;

/* A buffer format without its native byte-order prefix ('@', '=', or '<'
 * on a little-endian host); NULL for a format of the other byte order. */
const char *pyoclconv_native_format(const char *format);

/* Raises the package's exception for status `s` with `detail`; returns NULL. */
PyObject *pyoclconv_raise(oclconv_status s, const char *detail);

/* Context._apply(src, dst, filter, border, border_value, scale, delta, method[,
 * region (whole width, height, source x, y, destination x, y)]) */
PyObject *pyoclconv_apply(ContextObject *self, PyObject *args);
/* Context._apply_batch(srcs, dsts, filter, border, border_value, scale, delta, method):
 * oclconv_apply_batch() over two sequences of buffers. */
PyObject *pyoclconv_apply_batch(ContextObject *self, PyObject *args);

#endif
