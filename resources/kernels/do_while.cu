// A do-while loop: each lane walks a linked list (next = -1 ends it) from its own node, summing values.
__global__ void do_while(const int* next, const int* val, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = i;
        int s = 0;
#pragma unroll 1
        do {
            s += val[j];
            j = next[j];
        } while (j >= 0);
        out[i] = s;
    }
}
