/* The built-in functions the kernels call, declared with the signatures of
 * the OpenCL C 1.2 specification (section 6.12), for every type and vector
 * width a program may instantiate them with.
 *
 * PoCL's compiler puts clang's opencl-c.h ahead of every program: 17 000
 * lines declaring every built-in for every type, parsed twice a build (once
 * to hash the preprocessed text for its cache, once to compile), about 80 ms
 * of the 0.1-0.6 s a program takes on a 2-core CPU.  On PoCL, program.c puts
 * this file first and defines that header's guard, _OPENCL_H_, so the
 * compiler reads these declarations instead; a built-in the kernels call
 * but this file misses fails the build on PoCL, which every kernel's test
 * compiles.  Other compilers never read this file. */

#define BI_OVL __attribute__((overloadable))
#define BI_CONST __attribute__((overloadable, const))
#define BI_PURE __attribute__((overloadable, pure))

/* Work-items and synchronisation (6.12.1, 6.12.8). */
size_t BI_CONST get_global_id(uint);
size_t BI_CONST get_global_size(uint);
size_t BI_CONST get_global_offset(uint);
size_t BI_CONST get_local_id(uint);
size_t BI_CONST get_local_size(uint);
size_t BI_CONST get_group_id(uint);
size_t BI_CONST get_num_groups(uint);
void __attribute__((overloadable, convergent)) barrier(cl_mem_fence_flags);

/* 32-bit atomics on global and local memory (6.12.11). */
#define BI_ATOMICS(T, AS)                                                                  \
    T BI_OVL atomic_min(volatile AS T *, T);                                              \
    T BI_OVL atomic_max(volatile AS T *, T);
BI_ATOMICS(int, __global)
BI_ATOMICS(uint, __global)
BI_ATOMICS(int, __local)
BI_ATOMICS(uint, __local)

/* Each width of an element type: scalar, 2, 3, 4, 8 and 16. */
#define BI_WIDTHS(M, S) M(S, S) M(S##2, S) M(S##3, S) M(S##4, S) M(S##8, S) M(S##16, S)

/* min, max and clamp of vectors and of a vector and a scalar (6.12.3,
 * 6.12.2 for floats); fmin and fmax for floats. */
#define BI_MINMAX(V, S)                                                                    \
    V BI_CONST min(V, V);                                                                 \
    V BI_CONST max(V, V);                                                                 \
    V BI_CONST clamp(V, V, V);                                                            \
    V BI_CONST min(V, S);                                                                 \
    V BI_CONST max(V, S);                                                                 \
    V BI_CONST clamp(V, S, S);
#define BI_FMINMAX(V, S)                                                                   \
    BI_MINMAX(V, S)                                                                       \
    V BI_CONST fmin(V, V);                                                                \
    V BI_CONST fmax(V, V);                                                                \
    V BI_CONST fmin(V, S);                                                                \
    V BI_CONST fmax(V, S);
BI_WIDTHS(BI_MINMAX, char)
BI_WIDTHS(BI_MINMAX, uchar)
BI_WIDTHS(BI_MINMAX, short)
BI_WIDTHS(BI_MINMAX, ushort)
BI_WIDTHS(BI_MINMAX, int)
BI_WIDTHS(BI_MINMAX, uint)
BI_WIDTHS(BI_MINMAX, long)
BI_WIDTHS(BI_MINMAX, ulong)
BI_WIDTHS(BI_FMINMAX, float)

/* select(a, b, c): c's lanes of the same size, signed or not (6.12.6). */
#define BI_SELECT_OF(V, M) V BI_CONST select(V, V, M);
#define BI_SELECT(W, T, I, U) BI_SELECT_OF(T##W, I##W) BI_SELECT_OF(T##W, U##W)
#define BI_SELECTS(T, I, U)                                                                \
    BI_SELECT(, T, I, U) BI_SELECT(2, T, I, U) BI_SELECT(3, T, I, U)                      \
    BI_SELECT(4, T, I, U) BI_SELECT(8, T, I, U) BI_SELECT(16, T, I, U)
BI_SELECTS(char, char, uchar)
BI_SELECTS(uchar, char, uchar)
BI_SELECTS(short, short, ushort)
BI_SELECTS(ushort, short, ushort)
BI_SELECTS(int, int, uint)
BI_SELECTS(uint, int, uint)
BI_SELECTS(long, long, ulong)
BI_SELECTS(ulong, long, ulong)
BI_SELECTS(float, int, uint)

/* ldexp(x, k) with k per lane or one for all (6.12.2). */
#define BI_LDEXP(W, T) T##W BI_CONST ldexp(T##W, int##W); T##W BI_CONST ldexp(T##W, int);
#define BI_LDEXPS(T)                                                                       \
    BI_LDEXP(, T) BI_LDEXP(2, T) BI_LDEXP(3, T) BI_LDEXP(4, T) BI_LDEXP(8, T) BI_LDEXP(16, T)
BI_LDEXPS(float)

/* shuffle2 of two float vectors of 16 by lane indices (6.12.12). */
float16 BI_CONST shuffle2(float16, float16, uint16);

/* vloadN and vstoreN (6.12.7): from constant memory, and from and to the
 * generic address space where the language has one (OpenCL C 3.0 on PoCL
 * 5), else each named one; opencl-c-base.h defines which. */
#define BI_VLOAD_AS(T, N, AS)                                                              \
    T##N BI_PURE vload##N(size_t, const AS T *);                                          \
    void BI_OVL vstore##N(T##N, size_t, AS T *);
#if defined(__opencl_c_generic_address_space)
#define BI_VLOAD_GENERIC(T, N) BI_VLOAD_AS(T, N, )
#else
#define BI_VLOAD_GENERIC(T, N)
#endif
#if defined(__opencl_c_named_address_space_builtins)
#define BI_VLOAD_NAMED(T, N)                                                               \
    BI_VLOAD_AS(T, N, __global) BI_VLOAD_AS(T, N, __local) BI_VLOAD_AS(T, N, __private)
#else
#define BI_VLOAD_NAMED(T, N)
#endif
#define BI_VLOAD(T, N)                                                                     \
    BI_VLOAD_GENERIC(T, N) BI_VLOAD_NAMED(T, N)                                           \
    T##N BI_PURE vload##N(size_t, const __constant T *);
#define BI_VLOADS(T)                                                                    \
    BI_VLOAD(T, 2) BI_VLOAD(T, 3) BI_VLOAD(T, 4) BI_VLOAD(T, 8) BI_VLOAD(T, 16)
BI_VLOADS(char)
BI_VLOADS(uchar)
BI_VLOADS(short)
BI_VLOADS(ushort)
BI_VLOADS(int)
BI_VLOADS(uint)
BI_VLOADS(long)
BI_VLOADS(ulong)
BI_VLOADS(float)

/* convert_T and convert_T_sat_rte between the types images and sums take
 * (6.2.3): 8- and 16-bit pixels, 32- and 64-bit integer sums, floats. */
#define BI_CONVERT(D, S, N)                                                                \
    D##N BI_CONST convert_##D##N(S##N);                                                   \
    D##N BI_CONST convert_##D##N##_sat_rte(S##N);
#define BI_CONVERT_WIDTHS(D, S)                                                            \
    BI_CONVERT(D, S, ) BI_CONVERT(D, S, 2) BI_CONVERT(D, S, 3) BI_CONVERT(D, S, 4)        \
    BI_CONVERT(D, S, 8) BI_CONVERT(D, S, 16)
#define BI_CONVERTS_TO(D)                                                                  \
    BI_CONVERT_WIDTHS(D, uchar) BI_CONVERT_WIDTHS(D, ushort) BI_CONVERT_WIDTHS(D, int)    \
    BI_CONVERT_WIDTHS(D, uint) BI_CONVERT_WIDTHS(D, float)
BI_CONVERTS_TO(uchar)
BI_CONVERTS_TO(ushort)
BI_CONVERTS_TO(int)
BI_CONVERTS_TO(uint)
BI_CONVERTS_TO(float)
BI_CONVERT_WIDTHS(ulong, uint)

#ifdef cl_khr_fp64
BI_WIDTHS(BI_FMINMAX, double)
BI_SELECTS(double, long, ulong)
BI_LDEXPS(double)
BI_VLOADS(double)
BI_CONVERTS_TO(double)
BI_CONVERT_WIDTHS(uchar, double)
BI_CONVERT_WIDTHS(ushort, double)
BI_CONVERT_WIDTHS(int, double)
BI_CONVERT_WIDTHS(uint, double)
BI_CONVERT_WIDTHS(float, double)
BI_CONVERT_WIDTHS(double, double)
BI_CONVERT_WIDTHS(double, ulong)
#endif

/* 2-D images read through a sampler and written (6.12.14). */
float4 BI_PURE read_imagef(read_only image2d_t, sampler_t, int2);
float4 BI_PURE read_imagef(read_only image2d_t, sampler_t, float2);
uint4 BI_PURE read_imageui(read_only image2d_t, sampler_t, int2);
uint4 BI_PURE read_imageui(read_only image2d_t, sampler_t, float2);
void BI_OVL write_imagef(write_only image2d_t, int2, float4);
void BI_OVL write_imageui(write_only image2d_t, int2, uint4);

#undef BI_OVL
#undef BI_CONST
#undef BI_PURE
#undef BI_ATOMICS
#undef BI_WIDTHS
#undef BI_MINMAX
#undef BI_FMINMAX
#undef BI_SELECT_OF
#undef BI_SELECT
#undef BI_SELECTS
#undef BI_LDEXP
#undef BI_LDEXPS
#undef BI_VLOAD_AS
#undef BI_VLOAD_GENERIC
#undef BI_VLOAD_NAMED
#undef BI_VLOAD
#undef BI_VLOADS
#undef BI_CONVERT
#undef BI_CONVERT_WIDTHS
#undef BI_CONVERTS_TO
