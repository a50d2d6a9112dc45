// Experiment tool (not product code): how many thread-block clusters of
// each size can be resident at once on this GPU (cudaOccupancyMaxActiveClusters),
// for CTAs of T threads with S bytes of dynamic shared memory, against the
// CTAs-per-SM bound alone: a cluster must fit in one GPC, so clusters of 4+
// can hold fewer CTAs than SMs x CTAs per SM.
//   nvcc -O2 -arch=sm_90a bench/experiments/cluster_occupancy.cu -o cluster_occupancy
#include <cuda_runtime.h>
#include <cstdio>

__global__ void k(float *p) {
  extern __shared__ float s[];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (p) p[threadIdx.x] = s[threadIdx.x ^ 1];
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s: %d SMs\n", prop.name, prop.multiProcessorCount);
  cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
  const int threads[] = {128, 256, 512};
  const int perSm[] = {1, 2, 3, 4};
  for (int t : threads)
    for (int ps : perSm) {
      size_t smem = (size_t)(220 * 1024 / ps) - 1024;
      if (smem > 200 * 1024) smem = 200 * 1024;
      int blocks = 0;
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, t, smem);
      std::printf("threads %3d smem %6zu: %d CTAs/SM ->", t, smem, blocks);
      for (int c = 1; c <= 16; c *= 2) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = c, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
        cfg.gridDim = dim3(c * 64), cfg.blockDim = dim3(t), cfg.dynamicSmemBytes = smem;
        cfg.attrs = &attr, cfg.numAttrs = 1;
        int n = -1;
        cudaError_t e = cudaOccupancyMaxActiveClusters(&n, k, &cfg);
        if (e != cudaSuccess) { std::printf(" c%d: %s", c, cudaGetErrorString(e)); cudaGetLastError(); continue; }
        std::printf(" c%d: %d clusters = %d CTAs;", c, n, n * c);
      }
      std::printf("\n");
    }
  return 0;
}
