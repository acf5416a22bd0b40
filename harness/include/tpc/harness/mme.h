// The MME model: a functional GEMM (the host BLAS does the arithmetic: f32, or bf16 inputs with f32
// accumulation) and its modelled time from the array geometry, the clock, the array's fill and drain and
// the HBM bandwidth (a roofline: docs/pipeline.md).
#pragma once

#include <cstdint>

#include "tpc/harness/device_model.h"

namespace tpc::harness {

// The modelled time of C[m,n] = A[m,k] B[k,n] in microseconds: compute on the array(s) or memory traffic,
// whichever is longer. `inputs` is F32 or BF16 (the element type read by the array); C is written as
// `output` (the array accumulates in f32 and converts on the way out).
double mmeTimeUs(const DeviceModel& model, DType inputs, int64_t m, int64_t n, int64_t k, DType output = DType::F32);
// The compute part alone (cycles of the busier MME, fill and drain included).
double mmeComputeCycles(const DeviceModel& model, DType inputs, int64_t m, int64_t n, int64_t k);

// C[m,n] = op(A) op(B), row-major, op(X) = X^T when trans*. With inputs BF16 the elements of A and B are
// rounded to bf16 (nearest even) first; products of bf16 values are exact in f32 and summed in f32.
void mmeGemm(DType inputs, bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float* a,
             const float* b, float* c);

// f32 -> bf16 rounding (nearest even; NaN stays NaN) and back.
uint16_t toBf16(float f);
float fromBf16(uint16_t h);

// Limits the host BLAS to the calling thread (the devices already run on threads of their own).
void useOneBlasThread();

}  // namespace tpc::harness
