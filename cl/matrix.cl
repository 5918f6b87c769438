/*
 * Row passes as matrix products (the separable tiles' ROW_MMA), on NVIDIA's
 * tensor cores through inline PTX (ROW_MMA 1: mma.sync m16n8k16, fp16
 * operands, float sums), or emulated with local memory on any device
 * (ROW_MMA 2: the tests' way through this code on PoCL).  Needs nothing
 * from common.cl: the host builds it alone to probe the device.
 *
 * A warp multiplies D = A B + C: A 16 x 16 (here a Toeplitz matrix of a
 * row's taps), B 16 x 8 (8 rows' values along x), C and D 16 x 8.  Lane
 * (g, t) = (lane / 4, lane % 4) holds, in pairs along k:
 *   A: (g, 2t..2t+1), (g+8, 2t..2t+1), (g, 2t+8..2t+9), (g+8, 2t+8..2t+9);
 *   B: (2t..2t+1, g), (2t+8..2t+9, g);
 *   C, D: (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
 *
 * The operands are integers: 8-bit values, and the taps scaled by 2^S and
 * cut into three digits of 11 bits, each at most 1024 in magnitude (fp16
 * holds such integers exactly).  A digit's products over at most 33 taps
 * and a rounded-up window of 48 values sum to under 2^24 in magnitude, so
 * every partial sum of every digit is an integer a float holds exactly:
 * the hardware's order of additions and its rounding of them cannot show,
 * and the emulation gives its results to the bit.  The digits' sums are
 * then put together with two roundings (row_value()).
 */

#ifndef ROW_MMA
#define ROW_MMA 0
#endif

#define MMA_DIGITS 3
#define MMA_DIGIT_BASE 2048.0f

#if ROW_MMA == 1
/* A pair of fp16 values in one register. */
typedef uint mma_pair;

inline mma_pair mma_pack(float lo, float hi)
{
    uint r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/* Byte c of the words w0 and w1 as a pair: each byte under the exponent of
 * 1024 (0x64) is 1024 + the byte in fp16, less 1024 exactly. */
inline mma_pair mma_bytes(uint w0, uint w1, int c)
{
    uint x;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(x) : "r"(w0), "r"(w1), "r"(c | (4 + c) << 8));
    x = (x & 0x00FF00FFu) | 0x64006400u;
    uint r;
    asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(0x64006400u));
    return r;
}

#define MMA_ROOM_DECL
#define MMA_ROOM_ARG
#define MMA_ROOM_PARAM
/* d += a b for one warp. */
inline void mma_step(float *d, const mma_pair *a, const mma_pair *b, int lane)
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#elif ROW_MMA == 2
typedef float2 mma_pair;
#define mma_pack(lo, hi) ((float2)(lo, hi))
#define mma_bytes(w0, w1, c) ((float2)(((w0) >> (8 * (c))) & 255u, ((w1) >> (8 * (c))) & 255u))

/* A warp's room for its operands, 16 x 16 + 16 x 8 floats, in local
 * memory: the kernel declares MMA_ROOM_DECL and passes MMA_ROOM_ARG. */
#define MMA_ROOM 384
#define MMA_ROOM_DECL __local float mma_room[MMA_ROOM * (MMA_ITEMS / 32)]
#define MMA_ROOM_ARG , mma_room + (mma_item / 32) * MMA_ROOM
#define MMA_ROOM_PARAM , __local float *room
/* d += a b for one warp of a work-group whose items all come here: each
 * lane puts its pairs in the room, then takes its four sums from it. */
inline void mma_step(float *d, const mma_pair *a, const mma_pair *b, int lane
                     MMA_ROOM_PARAM)
{
    int g = lane / 4, t = lane % 4;
    __local float *ra = room, *rb = room + 256;
    for (int h = 0; h < 4; h++) {
        int m = g + 8 * (h & 1), k = 2 * t + 8 * (h >> 1);
        ra[m * 16 + k] = a[h].x;
        ra[m * 16 + k + 1] = a[h].y;
    }
    for (int h = 0; h < 2; h++) {
        int k = 2 * t + 8 * h;
        rb[k * 8 + g] = b[h].x;
        rb[(k + 1) * 8 + g] = b[h].y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < 4; i++) {
        int m = g + 8 * (i >> 1), n = 2 * t + (i & 1);
        float s = d[i];
        for (int k = 0; k < 16; k++)
            s += ra[m * 16 + k] * rb[k * 8 + n];
        d[i] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

#if ROW_MMA == 1
#define MMA_UNROLL _Pragma("unroll")
#else
/* Loops around the emulation's barriers stay loops: PoCL makes each
 * barrier of an unrolled loop a region of its own, and took half a minute
 * to build a tile. */
#define MMA_UNROLL _Pragma("unroll 1")
#endif

#if ROW_MMA
/* Row (m) and column (k) of lane's pair h of A. */
#define MMA_A_ROW(lane, h) ((lane) / 4 + 8 * ((h) & 1))
#define MMA_A_COL(lane, h) (2 * ((lane) % 4) + 8 * ((h) >> 1))

/* A row's value from its digits' sums: (d2 2048 + d1) 2048 + d0, in units
 * of 2^-S. */
inline float row_value(const float *digit)
{
    return fma(fma(digit[2], MMA_DIGIT_BASE, digit[1]), MMA_DIGIT_BASE, digit[0]);
}
#endif

#ifdef MATRIX_PROBE
/* One warp multiplies two integer matrices, A = (7 m + 13 k) % 41 * 50 -
 * 1000 and B = (31 k + 17 n) % 256, accumulating them twice, B's values
 * from bytes as the tiles take theirs; the host checks the 16 x 8 result (src/matrix.c). */
#define MMA_ITEMS 32
__kernel __attribute__((reqd_work_group_size(32, 1, 1))) void matrix_probe(__global float *out)
{
    MMA_ROOM_DECL;
    int lane = get_local_id(0), mma_item = lane, g = lane / 4, t = lane % 4;
    mma_pair a[4], b[2];
    for (int h = 0; h < 4; h++) {
        int m = MMA_A_ROW(lane, h), k = MMA_A_COL(lane, h);
        a[h] = mma_pack((7 * m + 13 * k) % 41 * 50 - 1000, (7 * m + 13 * (k + 1)) % 41 * 50 - 1000);
    }
    /* B's values from byte 2 of two words. */
    for (int h = 0; h < 2; h++) {
        uint k = 2 * t + 8 * h;
        b[h] = mma_bytes((31 * k + 17 * g) % 256 << 16 | 0xA5u,
                         (31 * (k + 1) + 17 * g) % 256 << 16 | 0x5Au, 2);
    }
    float d[4] = {0, 0, 0, 0};
    mma_step(d, a, b, lane MMA_ROOM_ARG);
    mma_step(d, a, b, lane MMA_ROOM_ARG);
    for (int i = 0; i < 4; i++)
        out[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}
#endif
