// Row sums of a B x T x C activation tensor addressed as llm.c does it: a block per batch entry, a thread per
// position, and the row's start computed in size_t (b * T * C + t * C) before the channel loop indexes from it.
__global__ void row_offsets(const float* inp, float* sums, int T, int C) {
    int b = blockIdx.x, t = threadIdx.x;
    if (t >= T) return;
    const float* x = inp + (size_t)b * T * C + (size_t)t * C;
    float s = 0.0f;
    for (int c = 0; c < C; c++) s += x[c];
    sums[b * T + t] = s;
}
