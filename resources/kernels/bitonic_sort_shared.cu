// Bitonic sort of 16 keys by one block in shared memory: every stage compares each thread's key with its
// partner (index xor j) and keeps the smaller or larger by the direction bit k, with a barrier between.
__global__ void bitonic_sort_shared(int* keys) {
    __shared__ int s[16];
    int t = threadIdx.x;
    s[t] = keys[t];
    __syncthreads();
    for (int k = 2; k <= 16; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int partner = t ^ j;
            if (partner > t) {
                bool ascending = (t & k) == 0;
                int a = s[t], b = s[partner];
                if ((a > b) == ascending) {
                    s[t] = b;
                    s[partner] = a;
                }
            }
            __syncthreads();
        }
    }
    keys[t] = s[t];
}
