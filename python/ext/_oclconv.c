/*
 * _oclconv: the C side of the Python package, a thin layer over the C API.
 *
 * Images come in through the buffer protocol (no NumPy C API, so no tie to a
 * NumPy ABI): the strides are read here, a row-strided view runs without a
 * copy, and a view whose pixels or channels are not packed within a row is
 * gathered into (or scattered from) a packed copy once.  The OpenCL work runs
 * with the GIL released and the context's lock held, so a context shared by
 * several threads is safe and merely serialised.  Everything friendlier
 * (names, defaults, NumPy output arrays) lives in the Python package.
 */
#include "module.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* Exception classes by -status, handed over by the package at import
 * (oclconv/_errors.py): one per status, each also a builtin. */
#define N_STATUS 7
static PyObject *status_errors[N_STATUS];

PyObject *pyoclconv_raise(oclconv_status s, const char *detail)
{
    int i = -(int)s;
    PyObject *cls = (i > 0 && i < N_STATUS && status_errors[i]) ? status_errors[i]
                                                                 : PyExc_RuntimeError;
    size_t n = detail ? strlen(detail) : 0;
    while (n > 0 && (detail[n - 1] == '\n' || detail[n - 1] == ' '))
        n--;
    PyObject *text = n > 0 ? PyUnicode_DecodeUTF8(detail, (Py_ssize_t)n, "replace") : NULL;
    if (text) {
        PyErr_Format(cls, "%s: %U", oclconv_strerror(s), text);
        Py_DECREF(text);
    } else
        PyErr_SetString(cls, oclconv_strerror(s));
    return NULL;
}

static PyObject *set_errors(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != N_STATUS) {
        PyErr_Format(PyExc_TypeError, "_set_errors takes a tuple of %d classes", N_STATUS);
        return NULL;
    }
    for (int i = 0; i < N_STATUS; i++) {
        PyObject *c = PyTuple_GET_ITEM(arg, i);
        Py_INCREF(c);
        Py_XSETREF(status_errors[i], c);
    }
    Py_RETURN_NONE;
}

/* ====== Filter ========================================================= */
#define FilterType pyoclconv_FilterType

static void filter_dealloc(FilterObject *self)
{
    if (self->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)self);
    oclconv_filter_destroy(self->f);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Wraps a constructor's result in an instance of `cls` (Filter or a subclass). */
static PyObject *wrap_filter(PyObject *cls, oclconv_status s, oclconv_filter *f)
{
    if (s != OCLCONV_OK)
        return pyoclconv_raise(s, oclconv_errmsg(NULL));
    FilterObject *o = (FilterObject *)((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
    if (!o) {
        oclconv_filter_destroy(f);
        return NULL;
    }
    o->f = f;
    return (PyObject *)o;
}

static int check_cls(PyObject *cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &FilterType)) {
        PyErr_SetString(PyExc_TypeError, "expected the Filter class or a subclass");
        return 0;
    }
    return 1;
}

/* A packed float32 buffer of exactly `n` values (the package converts). */
static int float_buffer(PyObject *obj, Py_buffer *b, Py_ssize_t n, const char *what)
{
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return 0;
    const char *f = pyoclconv_native_format(b->format);
    if (!f || strcmp(f, "f") != 0 || b->len != n * (Py_ssize_t)sizeof(float)) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd contiguous float32 values", what, n);
        PyBuffer_Release(b);
        return 0;
    }
    return 1;
}

/* The library reads weights as floats: a buffer off a float's alignment
 * (one unpickled from a byte stream may be) is read from a copy. */
static const float *aligned_floats(const Py_buffer *b, float **copy)
{
    *copy = NULL;
    if ((uintptr_t)b->buf % _Alignof(float) == 0)
        return b->buf;
    if (!(*copy = PyMem_Malloc(b->len > 0 ? (size_t)b->len : 1))) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(*copy, b->buf, (size_t)b->len);
    return *copy;
}

static PyObject *filter_new_2d(PyObject *self, PyObject *args)
{
    PyObject *cls, *w;
    int width, height;
    Py_buffer b;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOii", &cls, &w, &width, &height) || !check_cls(cls))
        return NULL;
    if (width <= 0 || height <= 0)
        return pyoclconv_raise(OCLCONV_E_INVALID_ARG, "filter width and height must be positive");
    if (!float_buffer(w, &b, (Py_ssize_t)width * height, "weights"))
        return NULL;
    float *copy;
    const float *w32 = aligned_floats(&b, &copy);
    PyObject *res = NULL;
    if (w32) {
        oclconv_filter *f = NULL;
        oclconv_status s = oclconv_filter_create(width, height, w32, &f);
        res = wrap_filter(cls, s, f);
    }
    PyMem_Free(copy);
    PyBuffer_Release(&b);
    return res;
}

static PyObject *filter_new_separable(PyObject *self, PyObject *args)
{
    PyObject *cls, *row, *col;
    Py_buffer br, bc;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO", &cls, &row, &col) || !check_cls(cls))
        return NULL;
    if (PyObject_GetBuffer(row, &br, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(col, &bc, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&br);
        return NULL;
    }
    Py_ssize_t nr = br.len / (Py_ssize_t)sizeof(float), nc = bc.len / (Py_ssize_t)sizeof(float);
    PyObject *res = NULL;
    const char *fr = pyoclconv_native_format(br.format), *fc = pyoclconv_native_format(bc.format);
    if (!fr || !fc || strcmp(fr, "f") != 0 || strcmp(fc, "f") != 0)
        PyErr_SetString(PyExc_ValueError, "row and col: expected contiguous float32 values");
    else if (nr > INT_MAX || nc > INT_MAX)
        pyoclconv_raise(OCLCONV_E_INVALID_ARG, "too many taps");
    else {
        float *rcopy, *ccopy = NULL;
        const float *r32 = aligned_floats(&br, &rcopy);
        const float *c32 = r32 ? aligned_floats(&bc, &ccopy) : NULL;
        if (c32) {
            oclconv_filter *f = NULL;
            oclconv_status s = oclconv_filter_separable((int)nr, r32, (int)nc, c32, &f);
            res = wrap_filter(cls, s, f);
        }
        PyMem_Free(rcopy);
        PyMem_Free(ccopy);
    }
    PyBuffer_Release(&br);
    PyBuffer_Release(&bc);
    return res;
}

static PyObject *filter_new_box(PyObject *self, PyObject *args)
{
    PyObject *cls;
    int rx, ry;
    (void)self;
    if (!PyArg_ParseTuple(args, "Oii", &cls, &rx, &ry) || !check_cls(cls))
        return NULL;
    oclconv_filter *f = NULL;
    oclconv_status s = oclconv_filter_box(rx, ry, &f);
    return wrap_filter(cls, s, f);
}

static PyObject *filter_new_gaussian(PyObject *self, PyObject *args)
{
    PyObject *cls;
    double sx, sy;
    int rx, ry;
    (void)self;
    if (!PyArg_ParseTuple(args, "Oddii", &cls, &sx, &sy, &rx, &ry) || !check_cls(cls))
        return NULL;
    oclconv_filter *f = NULL;
    oclconv_status s = oclconv_filter_gaussian(sx, sy, rx, ry, &f);
    return wrap_filter(cls, s, f);
}

static PyObject *filter_new_named(PyObject *self, PyObject *args)
{
    PyObject *cls;
    const char *name;
    float amount = 1.0f;
    (void)self;
    if (!PyArg_ParseTuple(args, "Os|f", &cls, &name, &amount) || !check_cls(cls))
        return NULL;
    oclconv_filter *f = NULL;
    oclconv_status s;
    if (strcmp(name, "sharpen") == 0)
        s = oclconv_filter_sharpen(amount, &f);
    else if (strcmp(name, "emboss") == 0)
        s = oclconv_filter_emboss(&f);
    else if (strcmp(name, "laplacian") == 0)
        s = oclconv_filter_laplacian(&f);
    else if (strcmp(name, "sobel_x") == 0)
        s = oclconv_filter_sobel_x(&f);
    else if (strcmp(name, "sobel_y") == 0)
        s = oclconv_filter_sobel_y(&f);
    else
        return PyErr_Format(PyExc_ValueError, "no built-in filter named '%s'", name);
    return wrap_filter(cls, s, f);
}

static PyObject *filter_get_size(FilterObject *self, void *closure)
{
    int w = 0, h = 0;
    (void)closure;
    oclconv_filter_size(self->f, &w, &h);
    return Py_BuildValue("(ii)", h, w);
}

/* The weights the filter stands for, row by row, as float64 bytes. */
static PyObject *filter_weight_bytes(FilterObject *self, PyObject *unused)
{
    int w = 0, h = 0;
    (void)unused;
    oclconv_filter_size(self->f, &w, &h);
    return PyBytes_FromStringAndSize((const char *)oclconv_filter_weights(self->f),
                                     (Py_ssize_t)w * h * (Py_ssize_t)sizeof(double));
}

static PyMethodDef filter_methods[] = {
    {"_weight_bytes", (PyCFunction)filter_weight_bytes, METH_NOARGS,
     "The weights as float64 bytes, row by row."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef filter_getset[] = {
    {"shape", (getter)filter_get_size, NULL, "(height, width) in taps", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyObject *filter_tp_new(PyTypeObject *t, PyObject *a, PyObject *k)
{
    (void)t, (void)a, (void)k;
    PyErr_SetString(PyExc_TypeError, "_oclconv.Filter is made by the filter_* functions");
    return NULL;
}

PyTypeObject FilterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "oclconv._oclconv.Filter",
    .tp_basicsize = sizeof(FilterObject),
    .tp_dealloc = (destructor)filter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "An immutable filter (odd width and height, anchored at its centre).",
    .tp_weaklistoffset = offsetof(FilterObject, weakrefs),
    .tp_methods = filter_methods,
    .tp_getset = filter_getset,
    .tp_new = filter_tp_new,
};

/* ====== Context ======================================================== */
/* Takes the context's lock without holding the GIL, so that a thread waiting
 * for it never blocks a thread that needs the GIL to finish. */
static void lock_context(ContextObject *c)
{
    if (!PyThread_acquire_lock(c->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(c->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
}

static int context_init(ContextObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"device", NULL};
    const char *spec = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|z:Context", names, &spec))
        return -1;
    if (self->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "Context is already initialised");
        return -1;
    }
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    oclconv_context *ctx = NULL;
    oclconv_status s;
    char msg[1024] = "";
    Py_BEGIN_ALLOW_THREADS
    s = oclconv_create(spec, &ctx);
    if (s != OCLCONV_OK)
        snprintf(msg, sizeof msg, "%s", oclconv_errmsg(NULL));
    Py_END_ALLOW_THREADS
    if (s != OCLCONV_OK) {
        pyoclconv_raise(s, msg);
        return -1;
    }
    self->ctx = ctx;
    return 0;
}

static void context_dealloc(ContextObject *self)
{
    if (self->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)self);
    oclconv_destroy(self->ctx); /* no other reference exists, so nobody holds the lock */
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *context_close(ContextObject *self, PyObject *unused)
{
    (void)unused;
    if (!self->lock)
        Py_RETURN_NONE;
    lock_context(self);
    oclconv_context *ctx = self->ctx;
    self->ctx = NULL;
    PyThread_release_lock(self->lock);
    Py_BEGIN_ALLOW_THREADS
    oclconv_destroy(ctx);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static int check_open(ContextObject *self)
{
    if (!self->ctx) {
        PyErr_SetString(PyExc_ValueError, "the context is closed");
        return 0;
    }
    return 1;
}

static PyObject *context_device_name(ContextObject *self, void *closure)
{
    (void)closure;
    if (!check_open(self))
        return NULL;
    lock_context(self);
    PyObject *name = self->ctx ? PyUnicode_FromString(oclconv_device_name(self->ctx)) : NULL;
    PyThread_release_lock(self->lock);
    if (!name && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "the context is closed");
    return name;
}

static PyObject *context_last_method(ContextObject *self, void *closure)
{
    (void)closure;
    if (!check_open(self))
        return NULL;
    lock_context(self);
    oclconv_method m = self->ctx ? oclconv_last_method(self->ctx) : OCLCONV_METHOD_AUTO;
    PyThread_release_lock(self->lock);
    return PyUnicode_FromString(oclconv_method_name(m));
}

static PyObject *context_last_choice(ContextObject *self, void *closure)
{
    static const char *const names[] = {"none", "caller", "rule", "measured"};
    (void)closure;
    if (!check_open(self))
        return NULL;
    lock_context(self);
    oclconv_choice c = self->ctx ? oclconv_last_choice(self->ctx) : OCLCONV_CHOICE_NONE;
    PyThread_release_lock(self->lock);
    return PyUnicode_FromString(names[(unsigned)c < 4 ? c : 0]);
}

static PyObject *context_set_calibration(ContextObject *self, PyObject *args)
{
    static const char *const modes[] = {"default", "on", "off", "stored", "fresh"};
    const char *mode, *folder = NULL;
    if (!PyArg_ParseTuple(args, "s|z:set_calibration", &mode, &folder) || !check_open(self))
        return NULL;
    int m = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(mode, modes[i]) == 0)
            m = i;
    if (m < 0) {
        PyErr_Format(PyExc_ValueError,
                     "calibration mode '%s' is not one of default, on, off, stored, fresh", mode);
        return NULL;
    }
    lock_context(self);
    oclconv_status s = OCLCONV_OK;
    char msg[256] = "";
    if (self->ctx && (s = oclconv_set_calibration(self->ctx, (oclconv_calibration)m, folder)) !=
                         OCLCONV_OK)
        snprintf(msg, sizeof msg, "%s", oclconv_errmsg(self->ctx));
    PyThread_release_lock(self->lock);
    if (s != OCLCONV_OK)
        return pyoclconv_raise(s, msg);
    Py_RETURN_NONE;
}

static PyObject *context_last_kernel_seconds(ContextObject *self, void *closure)
{
    (void)closure;
    if (!check_open(self))
        return NULL;
    lock_context(self);
    double t = self->ctx ? oclconv_last_kernel_seconds(self->ctx) : 0.0;
    PyThread_release_lock(self->lock);
    return PyFloat_FromDouble(t);
}

static PyObject *context_programs_built(ContextObject *self, void *closure)
{
    (void)closure;
    if (!check_open(self))
        return NULL;
    lock_context(self);
    size_t n = self->ctx ? oclconv_programs_built(self->ctx) : 0;
    PyThread_release_lock(self->lock);
    return PyLong_FromSize_t(n);
}

static PyObject *context_closed(ContextObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->ctx == NULL);
}

static PyMethodDef context_methods[] = {
    {"_apply", (PyCFunction)(void (*)(void))pyoclconv_apply, METH_VARARGS,
     "_apply(src, dst, filter, border, border_value, scale, delta, method[, region])"},
    {"_apply_batch", (PyCFunction)(void (*)(void))pyoclconv_apply_batch, METH_VARARGS,
     "_apply_batch(srcs, dsts, filter, border, border_value, scale, delta, method)"},
    {"set_calibration", (PyCFunction)context_set_calibration, METH_VARARGS,
     "set_calibration(mode, folder=None): how AUTO picks a path: 'on' (measure a class of\n"
     "jobs once on this device and store the choice), 'off' (the rules), 'stored' (stored\n"
     "choices only), 'fresh' (measure again), 'default' ($OCLCONV_CALIBRATE, else on);\n"
     "folder: where the choices are kept (None: $OCLCONV_CALIBRATION_DIR, else\n"
     "$XDG_CACHE_HOME/oclconv)."},
    {"close", (PyCFunction)context_close, METH_NOARGS,
     "Release the device's resources now; later calls raise ValueError."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef context_getset[] = {
    {"device_name", (getter)context_device_name, NULL, "the device's name", NULL},
    {"last_method", (getter)context_last_method, NULL,
     "the path the last successful apply took ('auto' before the first)", NULL},
    {"last_choice", (getter)context_last_choice, NULL,
     "how the last path was chosen: 'measured', 'rule', 'caller' or 'none'", NULL},
    {"last_kernel_seconds", (getter)context_last_kernel_seconds, NULL,
     "device time of the last successful apply's kernels", NULL},
    {"programs_built", (getter)context_programs_built, NULL,
     "how many OpenCL programs this context compiled", NULL},
    {"closed", (getter)context_closed, NULL, "whether close() was called", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "oclconv._oclconv.Context",
    .tp_basicsize = sizeof(ContextObject),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Context(device=None): an OpenCL device, its queue and its program cache.",
    .tp_weaklistoffset = offsetof(ContextObject, weakrefs),
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_init = (initproc)context_init,
    .tp_new = PyType_GenericNew,
};

/* ====== Module ========================================================= */
static PyObject *list_devices(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    char buf[8192];
    oclconv_status s;
    Py_BEGIN_ALLOW_THREADS
    s = oclconv_list_devices(buf, sizeof buf);
    Py_END_ALLOW_THREADS
    if (s != OCLCONV_OK)
        return pyoclconv_raise(s, oclconv_errmsg(NULL));
    return PyUnicode_FromString(buf);
}

static PyMethodDef module_methods[] = {
    {"_set_errors", set_errors, METH_O, "Exception classes, one per status, by -status."},
    {"list_devices", list_devices, METH_NOARGS, "One line per OpenCL device."},
    {"filter_2d", filter_new_2d, METH_VARARGS, "filter_2d(cls, float32 weights, width, height)"},
    {"filter_separable", filter_new_separable, METH_VARARGS, "filter_separable(cls, row, col)"},
    {"filter_box", filter_new_box, METH_VARARGS, "filter_box(cls, rx, ry)"},
    {"filter_gaussian", filter_new_gaussian, METH_VARARGS, "filter_gaussian(cls, sx, sy, rx, ry)"},
    {"filter_named", filter_new_named, METH_VARARGS, "filter_named(cls, name[, amount])"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_oclconv", "The C side of oclconv's Python package.", -1,
    module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__oclconv(void);
PyMODINIT_FUNC PyInit__oclconv(void)
{
    if (PyType_Ready(&FilterType) < 0 || PyType_Ready(&ContextType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&FilterType);
    Py_INCREF(&ContextType);
    if (PyModule_AddObject(m, "Filter", (PyObject *)&FilterType) < 0 ||
        PyModule_AddObject(m, "Context", (PyObject *)&ContextType) < 0 ||
        PyModule_AddIntConstant(m, "version_number", oclconv_version_number()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
