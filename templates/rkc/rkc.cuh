// rkc/rkc.cuh - all rkc device templates.
//
// Include this from generated kernels. rkc/cluster.cuh contributes its
// declarations only when compiling for sm_90+ (__CUDA_ARCH__ >= 900).
#pragma once

#include "rkc/base.cuh"
#include "rkc/cluster.cuh"
#include "rkc/convert.cuh"
#include "rkc/grid.cuh"
#include "rkc/ops.cuh"
#include "rkc/reduce.cuh"
#include "rkc/vec.cuh"
#include "rkc/stage.cuh"
#include "rkc/quant.cuh"
