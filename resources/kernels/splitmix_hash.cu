// SplitMix64, the hash that seeds many random number generators: 64-bit multiplies by odd constants and
// xor-shifts. Each thread hashes seed + i times the golden-ratio increment and picks one of 13 buckets.
__global__ void splitmix_hash(unsigned long long seed, unsigned long long* hashes, int* buckets, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long z = seed + (unsigned long long)(i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z = z ^ (z >> 31);
    hashes[i] = z;
    buckets[i] = (int)(z % 13);
}
