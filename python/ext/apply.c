/*
 * Context._apply: an image from any object with the buffer protocol into
 * another, through oclconv_apply(), or oclconv_apply_region() where a
 * region (whole width, height, source x, y, destination x, y) is given.  The library takes rows of packed pixels
 * at any row stride; a view whose pixels or channels are not packed within a
 * row (a column step, a channel subset, a negative stride, unaligned data)
 * is gathered into a packed copy, or filtered into one and scattered back.
 */
#include "module.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *pyoclconv_native_format(const char *f)
{
    if (!f)
        return "B";
    if (f[0] == '@' || f[0] == '=' || f[0] == (PY_LITTLE_ENDIAN ? '<' : '>'))
        return f + 1;
    if (f[0] == '<' || f[0] == '>' || f[0] == '!')
        return NULL;
    return f;
}

/* One side of the call: the caller's view and how the library sees it. */
typedef struct {
    Py_buffer view;
    oclconv_image img;
    Py_ssize_t stride[3]; /* bytes between rows, pixels, channels */
    int direct;           /* the library reads or writes the view itself */
} side;

static const char *format_name(const char *f)
{
    static const char *const names[][2] = {
        {"b", "int8"},    {"h", "int16"},   {"i", "int32"},   {"l", "int64"},
        {"q", "int64"},   {"I", "uint32"},  {"L", "uint64"},  {"Q", "uint64"},
        {"e", "float16"}, {"d", "float64"}, {"g", "longdouble"}, {"?", "bool"},
        {"Zf", "complex64"}, {"Zd", "complex128"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(f, names[i][0]) == 0)
            return names[i][1];
    return NULL;
}

/* Reads the view's format, shape and strides into s->img; 0 with an
 * exception set when the library cannot take it. */
static int describe(side *s, const char *what)
{
    Py_buffer *v = &s->view;
    const char *f = pyoclconv_native_format(v->format);
    Py_ssize_t item;
    if (!f) {
        PyErr_Format(PyExc_TypeError, "%s: data of the other byte order ('%s') is not "
                     "accepted: convert it to native order", what, v->format);
        return 0;
    }
    if (strcmp(f, "B") == 0)
        s->img.type = OCLCONV_U8, item = 1;
    else if (strcmp(f, "H") == 0)
        s->img.type = OCLCONV_U16, item = 2;
    else if (strcmp(f, "f") == 0)
        s->img.type = OCLCONV_F32, item = 4;
    else {
        const char *name = format_name(f);
        PyErr_Format(PyExc_TypeError,
                     "%s: %s%s ('%s') is not accepted: use uint8, uint16 or float32 "
                     "(convert explicitly, e.g. with .astype(numpy.float32))",
                     what, name ? "element type " : "buffer format", name ? name : "",
                     v->format ? v->format : "B");
        return 0;
    }
    if (v->itemsize != item) {
        PyErr_Format(PyExc_TypeError, "%s: item size %zd does not match its format", what,
                     v->itemsize);
        return 0;
    }
    if (v->ndim != 2 && v->ndim != 3) {
        PyErr_Format(PyExc_ValueError,
                     "%s: %d dimensions; expected 2 (height, width) or 3 (height, width, "
                     "channels 1-4)", what, v->ndim);
        return 0;
    }
    Py_ssize_t h = v->shape[0], w = v->shape[1], c = v->ndim == 3 ? v->shape[2] : 1;
    if (h == 0 || w == 0 || c == 0) {
        PyErr_Format(PyExc_ValueError, "%s: an empty image (shape has a 0)", what);
        return 0;
    }
    if (c > 4) {
        PyErr_Format(PyExc_ValueError,
                     "%s: %zd channels on the last axis; expected 1 to 4 (a 3-D volume is "
                     "not supported)", what, c);
        return 0;
    }
    if (h > INT_MAX || w > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: %zd x %zd is too large", what, w, h);
        return 0;
    }
    s->img.width = (int)w, s->img.height = (int)h, s->img.channels = (int)c;
    s->stride[0] = v->strides ? v->strides[0] : w * c * item;
    s->stride[1] = v->strides ? v->strides[1] : c * item;
    s->stride[2] = v->strides && v->ndim == 3 ? v->strides[2] : item;
    Py_ssize_t row = w * c * item;
    s->direct = (c == 1 || s->stride[2] == item) && (w == 1 || s->stride[1] == c * item) &&
                (h == 1 || (s->stride[0] >= row && s->stride[0] % item == 0)) &&
                (uintptr_t)v->buf % (uintptr_t)item == 0;
    s->img.data = s->direct ? v->buf : NULL;
    s->img.stride = s->direct && h > 1 ? (size_t)s->stride[0] : 0;
    return 1;
}

/* The bytes a view spans, whatever the signs of its strides. */
static void extent(const side *s, const char **lo, const char **hi)
{
    Py_ssize_t n[3] = {s->img.height, s->img.width, s->img.channels};
    Py_ssize_t a = 0, b = 0;
    for (int i = 0; i < 3; i++) {
        Py_ssize_t d = s->stride[i] * (n[i] - 1);
        if (d < 0)
            a += d;
        else
            b += d;
    }
    *lo = (const char *)s->view.buf + a;
    *hi = (const char *)s->view.buf + b + s->view.itemsize;
}

/* Between the view and a packed copy of it, in either direction. */
static void copy_strided(const side *s, char *packed, int to_packed)
{
    const Py_ssize_t item = s->view.itemsize, c = s->img.channels;
    const Py_ssize_t px = c * item;
    for (Py_ssize_t y = 0; y < s->img.height; y++) {
        char *row = (char *)s->view.buf + y * s->stride[0];
        char *p = packed + y * s->img.width * px;
        for (Py_ssize_t x = 0; x < s->img.width; x++, p += px) {
            char *q = row + x * s->stride[1];
            for (Py_ssize_t k = 0; k < c; k++) {
                if (to_packed)
                    memcpy(p + k * item, q + k * s->stride[2], (size_t)item);
                else
                    memcpy(q + k * s->stride[2], p + k * item, (size_t)item);
            }
        }
    }
}

static size_t packed_bytes(const side *s)
{
    return (size_t)s->img.width * (size_t)s->img.height * (size_t)s->img.channels *
           (size_t)s->view.itemsize;
}

static oclconv_options options_of(int border, float border_value, float scale, float delta,
                                  int method)
{
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.border = (oclconv_border)border;
    opt.border_value = border_value;
    opt.scale = scale;
    opt.delta = delta;
    opt.method = (oclconv_method)method;
    return opt;
}

PyObject *pyoclconv_apply(ContextObject *self, PyObject *args)
{
    PyObject *src_obj, *dst_obj, *filter, *region_obj = Py_None;
    int border, method;
    float border_value, scale, delta;
    oclconv_region region;
    if (!PyArg_ParseTuple(args, "OOO!ifffi|O:_apply", &src_obj, &dst_obj, &pyoclconv_FilterType,
                          &filter, &border, &border_value, &scale, &delta, &method,
                          &region_obj))
        return NULL;
    int with_region = region_obj != Py_None;
    if (with_region &&
        !PyArg_ParseTuple(region_obj, "iiiiii:region", &region.width, &region.height,
                          &region.src_x, &region.src_y, &region.dst_x, &region.dst_y))
        return NULL;
    if (!self->ctx) {
        PyErr_SetString(PyExc_ValueError, "the context is closed");
        return NULL;
    }
    side src, dst;
    if (PyObject_GetBuffer(src_obj, &src.view, PyBUF_RECORDS_RO) < 0)
        return NULL;
    if (PyObject_GetBuffer(dst_obj, &dst.view, PyBUF_RECORDS) < 0) {
        PyBuffer_Release(&src.view);
        return NULL;
    }
    PyObject *result = NULL;
    if (!describe(&src, "input") || !describe(&dst, "output"))
        goto done;
    if ((!with_region &&
         (src.img.width != dst.img.width || src.img.height != dst.img.height)) ||
        src.img.channels != dst.img.channels) {
        PyErr_Format(PyExc_ValueError,
                     "output: %d x %d with %d channel(s) does not match the input's %d x %d "
                     "with %d", dst.img.width, dst.img.height, dst.img.channels,
                     src.img.width, src.img.height, src.img.channels);
        goto done;
    }
    /* The library filters in place when both sides are the same image; a
     * view that overlaps the output otherwise is read from a copy. */
    const char *slo, *shi, *dlo, *dhi;
    extent(&src, &slo, &shi);
    extent(&dst, &dlo, &dhi);
    if (src.direct && dst.direct && slo < dhi && dlo < shi &&
        !(src.view.buf == dst.view.buf && src.img.stride == dst.img.stride &&
          src.img.type == dst.img.type))
        src.direct = 0, src.img.data = NULL, src.img.stride = 0;

    oclconv_options opt = options_of(border, border_value, scale, delta, method);
    const oclconv_filter *f = ((FilterObject *)filter)->f;
    oclconv_status s = OCLCONV_OK;
    char msg[2048] = "";
    int closed = 0;

    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    if (!self->ctx) {
        closed = 1;
    } else {
        if (!src.direct && (src.img.data = malloc(packed_bytes(&src))) != NULL)
            copy_strided(&src, src.img.data, 1);
        if (!dst.direct)
            dst.img.data = malloc(packed_bytes(&dst));
        if (!src.img.data || !dst.img.data) {
            s = OCLCONV_E_NOMEM;
            snprintf(msg, sizeof msg, "no host memory for a packed copy of the image");
        } else {
            s = with_region ? oclconv_apply_region(self->ctx, &src.img, &region, &dst.img, f, &opt)
                            : oclconv_apply(self->ctx, &src.img, &dst.img, f, &opt);
            if (s != OCLCONV_OK)
                snprintf(msg, sizeof msg, "%s", oclconv_errmsg(self->ctx));
            else if (!dst.direct)
                copy_strided(&dst, dst.img.data, 0);
        }
    }
    PyThread_release_lock(self->lock);
    if (!src.direct)
        free(src.img.data);
    if (!dst.direct)
        free(dst.img.data);
    Py_END_ALLOW_THREADS

    if (closed)
        PyErr_SetString(PyExc_ValueError, "the context is closed");
    else if (s != OCLCONV_OK)
        pyoclconv_raise(s, msg);
    else
        result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&dst.view);
    PyBuffer_Release(&src.view);
    return result;
}

PyObject *pyoclconv_apply_batch(ContextObject *self, PyObject *args)
{
    PyObject *src_list, *dst_list, *filter;
    int border, method;
    float border_value, scale, delta;
    if (!PyArg_ParseTuple(args, "OOO!ifffi:_apply_batch", &src_list, &dst_list,
                          &pyoclconv_FilterType, &filter, &border, &border_value, &scale, &delta,
                          &method))
        return NULL;
    if (!self->ctx) {
        PyErr_SetString(PyExc_ValueError, "the context is closed");
        return NULL;
    }
    PyObject *srcs = PySequence_Fast(src_list, "images must be a sequence");
    PyObject *dsts = srcs ? PySequence_Fast(dst_list, "outputs must be a sequence") : NULL;
    if (!dsts) {
        Py_XDECREF(srcs);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(srcs), got = 0;
    side *s = n ? calloc((size_t)n, sizeof *s) : NULL, *d = n ? calloc((size_t)n, sizeof *d) : NULL;
    oclconv_image *si = n ? calloc((size_t)n, sizeof *si) : NULL;
    oclconv_image *di = n ? calloc((size_t)n, sizeof *di) : NULL;
    PyObject *result = NULL;
    if (PySequence_Fast_GET_SIZE(dsts) != n) {
        PyErr_SetString(PyExc_ValueError, "as many outputs as images are needed");
        goto done;
    }
    if (n && (!s || !d || !si || !di)) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < n; got++) {
        char what[64];
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(srcs, got), &s[got].view,
                               PyBUF_RECORDS_RO) < 0)
            goto done;
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(dsts, got), &d[got].view,
                               PyBUF_RECORDS) < 0) {
            PyBuffer_Release(&s[got].view);
            goto done;
        }
        snprintf(what, sizeof what, "image %zd", got);
        if (!describe(&s[got], what) || !describe(&d[got], what)) {
            got++;
            goto done;
        }
    }
    oclconv_options opt = options_of(border, border_value, scale, delta, method);
    oclconv_status st = OCLCONV_OK;
    char msg[2048] = "";
    size_t failed = 0;
    int closed = 0;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    for (Py_ssize_t i = 0; i < n && st == OCLCONV_OK; i++) {
        if (!s[i].direct && (s[i].img.data = malloc(packed_bytes(&s[i]))) != NULL)
            copy_strided(&s[i], s[i].img.data, 1);
        if (!d[i].direct)
            d[i].img.data = malloc(packed_bytes(&d[i]));
        if (!s[i].img.data || !d[i].img.data) {
            st = OCLCONV_E_NOMEM;
            snprintf(msg, sizeof msg, "no host memory for a packed copy of image %zd", i);
        }
        si[i] = s[i].img;
        di[i] = d[i].img;
    }
    if (!self->ctx)
        closed = 1;
    else if (st == OCLCONV_OK &&
             (st = oclconv_apply_batch(self->ctx, (size_t)n, si, di,
                                       ((FilterObject *)filter)->f, &opt, &failed)) != OCLCONV_OK)
        snprintf(msg, sizeof msg, "%s", oclconv_errmsg(self->ctx));
    for (Py_ssize_t i = 0; i < n && st == OCLCONV_OK && !closed; i++)
        if (!d[i].direct)
            copy_strided(&d[i], d[i].img.data, 0);
    PyThread_release_lock(self->lock);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!s[i].direct)
            free(s[i].img.data);
        if (!d[i].direct)
            free(d[i].img.data);
    }
    Py_END_ALLOW_THREADS
    if (closed)
        PyErr_SetString(PyExc_ValueError, "the context is closed");
    else if (st != OCLCONV_OK)
        pyoclconv_raise(st, msg);
    else
        result = Py_NewRef(Py_None);
done:
    for (Py_ssize_t i = 0; i < got; i++) {
        PyBuffer_Release(&s[i].view);
        PyBuffer_Release(&d[i].view);
    }
    free(s);
    free(d);
    free(si);
    free(di);
    Py_DECREF(srcs);
    Py_DECREF(dsts);
    return result;
}
