// A second difference over 16-bit samples with a halo in shared memory, as an audio or image filter writes
// it: shorts in global and shared memory at both halves of a word, an unsigned short magnitude, and fixed
// positions (the halo's ends) beside computed ones.
__global__ void short_stencil(const short* in, short* out, unsigned short* magnitude, int n) {
    __shared__ short s[18];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t + 1] = i < n ? in[i] : 0;
    if (t == 0) s[0] = i > 0 ? in[i - 1] : 0;
    if (t == blockDim.x - 1) s[blockDim.x + 1] = i + 1 < n ? in[i + 1] : 0;
    __syncthreads();
    if (i < n) {
        short v = short(s[t] - 2 * s[t + 1] + s[t + 2]);
        out[i] = v;
        magnitude[i] = (unsigned short)(v < 0 ? -v : v);
    }
}
