// atomicSub on int and on unsigned (which wraps below zero).
__global__ void atomic_sub(const int* cost, int* budget, unsigned* ubudget, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicSub(&budget[i & 1], cost[i]);
        atomicSub(&ubudget[0], (unsigned)cost[i]);
    }
}
